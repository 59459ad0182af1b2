/* cpuset.c - "0-3,6" CPU lists and the kernel's tracing_cpumask form. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static void cpu_set(struct nop_cpuset *set, int cpu)
{
	set->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

bool nop_cpuset_has(const struct nop_cpuset *set, int cpu)
{
	return cpu >= 0 && cpu < NOP_MAX_CPUS && (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

static int cpu_num(const char **p, int ncpus, const char *list, struct nop_error *err)
{
	char *end;
	long v;

	if (**p < '0' || **p > '9')
		goto bad;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v < 0 || v >= ncpus) {
		nop_error_set(err, NOP_EUSAGE, 0,
			      "CPU list '%s': CPU %.*s does not exist (this machine has CPUs 0-%d)",
			      list, (int)(end - *p), *p, ncpus - 1);
		return -1;
	}
	*p = end;
	return (int)v;
bad:
	nop_error_set(err, NOP_EUSAGE, 0,
		      "invalid CPU list '%s'; use numbers and ranges such as 0-3,6", list);
	return -1;
}

int nop_cpuset_parse(const char *list, int ncpus, struct nop_cpuset *set, struct nop_error *err)
{
	const char *p = list;

	memset(set, 0, sizeof(*set));
	if (ncpus > NOP_MAX_CPUS)
		ncpus = NOP_MAX_CPUS;
	if (!*p)
		return cpu_num(&p, ncpus, list, err);
	while (*p) {
		int a = cpu_num(&p, ncpus, list, err), b;

		if (a < 0)
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			b = cpu_num(&p, ncpus, list, err);
			if (b < 0)
				return -1;
			if (b < a) {
				nop_error_set(err, NOP_EUSAGE, 0, "CPU list '%s': range %d-%d runs backwards",
					      list, a, b);
				return -1;
			}
		}
		for (int c = a; c <= b; c++)
			cpu_set(set, c);
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return cpu_num(&(const char *){ "x" }, ncpus, list, err);
	}
	return 0;
}

void nop_cpuset_mask(const struct nop_cpuset *set, int ncpus, char *buf, size_t len)
{
	int groups = (ncpus + 31) / 32;
	size_t off = 0;

	if (groups < 1)
		groups = 1;
	buf[0] = 0;
	for (int g = groups - 1; g >= 0 && off < len; g--) {
		uint32_t w;

		if (!set) /* every CPU: as many ones as there are CPUs */
			w = ncpus - g * 32 >= 32 ? 0xffffffffU : (1U << (ncpus - g * 32)) - 1;
		else /* a set names at most NOP_MAX_CPUS */
			w = g / 2 < (int)ARRAY_SIZE(set->bits) ? (uint32_t)(set->bits[g / 2] >> ((g % 2) * 32)) : 0;

		off += (size_t)snprintf(buf + off, len - off, g == groups - 1 ? "%x" : ",%08x", w);
	}
}

/* util.c - small helpers every part of libnopctl uses: growing arrays,
 * joining paths, trimming lines, reading list files, counting CPUs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

void *nop_zalloc(size_t size, struct nop_error *err)
{
	void *p = calloc(1, size);

	if (!p)
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	return p;
}

int nop_grow(void **v, size_t *cap, size_t need, size_t sz)
{
	size_t ncap = *cap ? *cap : 16;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nv = realloc(*v, ncap * sz);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

char *nop_path(char *buf, size_t len, const char *dir, const char *rel)
{
	int n = snprintf(buf, len, "%s/%s", dir, rel);

	return n < 0 || (size_t)n >= len ? NULL : buf;
}

bool nop_path_exists(const char *dir, const char *rel)
{
	char path[4200];

	return nop_path(path, sizeof(path), dir, rel) && access(path, F_OK) == 0;
}

char *nop_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

bool nop_list_entry(const char *l)
{
	return *l && *l != '#' && strcmp(l, "no pid") != 0;
}

/* The line of text at p, trimmed, into buf (cut to its size); the next
 * line's start, or NULL after the last. */
static const char *next_line(const char *p, char *buf, size_t len)
{
	size_t n;

	if (!p || !*p)
		return NULL;
	n = strcspn(p, "\n");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	memmove(buf, nop_trim(buf), strlen(nop_trim(buf)) + 1);
	return p + n + (p[n] == '\n');
}

bool nop_list_empty(const char *text)
{
	char line[512];

	for (const char *p = text; (p = next_line(p, line, sizeof(line)));)
		if (nop_list_entry(line))
			return false;
	return true;
}

bool nop_list_has(const char *text, const char *entry)
{
	size_t n = strlen(entry);

	for (const char *p = text; p && (p = strstr(p, entry)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

bool nop_list_shares(const char *text, const char *entries)
{
	char line[512];

	for (const char *p = entries; (p = next_line(p, line, sizeof(line)));)
		if (nop_list_entry(line) && nop_list_has(text, line))
			return true;
	return false;
}

/* The CPUs online now (/sys/devices/system/cpu/online), read once; NULL
 * where that cannot be read. A machine may have far more possible CPUs
 * (hot-pluggable, _SC_NPROCESSORS_CONF) than online ones: one buffer file
 * per possible CPU would be descriptors for nothing. */
int nop_cpuset_online(struct nop_cpuset *set)
{
	char *list = nop_read_file("/sys/devices/system/cpu/online", NULL, NULL);
	int ret = list ? nop_cpuset_parse(nop_trim(list), nop_ncpus(), set, NULL) : -1;

	free(list);
	return ret;
}

const struct nop_cpuset *nop_online_cpus(void)
{
	static struct nop_cpuset set;
	static int state; /* 0 unread, 1 read, -1 unreadable */

	if (state == 0)
		state = nop_cpuset_online(&set) == 0 ? 1 : -1;
	return state > 0 ? &set : NULL;
}

size_t nop_mem_free(void)
{
	long avail = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	return avail > 0 && psz > 0 ? (size_t)avail * (size_t)psz : 0;
}

int nop_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n < 1 ? 1 : (int)n;
}

char *nop_hex(const char *s)
{
	size_t n = strlen(s);
	char *h = malloc(2 * n + 1);

	if (!h)
		return NULL;
	for (size_t i = 0; i < n; i++)
		sprintf(h + 2 * i, "%02x", (unsigned char)s[i]);
	h[2 * n] = 0;
	return h;
}

/* whole bytes only: a line cut in the middle of a byte is no value */
int nop_unhex(char *s)
{
	size_t n = strlen(s) / 2;

	if (strlen(s) % 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		s[i] = (char)v;
	}
	s[n] = 0;
	return 0;
}

const char *nop_errno_name(long long v)
{
	return nop_is_errno(v) ? strerrorname_np((int)-v) : NULL;
}

const char *nop_retval_errno(long long v, bool user)
{
	return user ? NULL : nop_errno_name(v);
}

void *nop_task_slot(void **v, size_t *n, size_t *cap, size_t sz, int pid, size_t *last, bool *added)
{
	char *b = *v;

	*added = false;
	if (*last < *n && *(int *)(b + *last * sz) == pid)
		return b + *last * sz;
	for (size_t i = 0; i < *n; i++)
		if (*(int *)(b + i * sz) == pid) {
			*last = i;
			return b + i * sz;
		}
	if (nop_grow(v, cap, *n + 1, sz))
		return NULL;
	b = (char *)*v + *n * sz;
	memset(b, 0, sz);
	*(int *)b = pid;
	*last = (*n)++;
	*added = true;
	return b;
}

const char nop_dec_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				"8081828384858687888990919293949596979899";
const unsigned long long nop_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL, 10000000000000000000ULL,
};

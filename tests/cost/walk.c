/* walk.c - the cost of a recording's one walk after its capture (counted
 * by tests/cost.sh under callgrind, in walk() only): a captured page set
 * written TIMES over into a trace.dat, then every saved page counted and
 * the addresses its events name noted (nop_dat_count_pages). Prints the
 * events walked. walk KERNEL_DIR CAPTURE TIMES OUT */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static int tally(void *ctx, const struct nop_event *ev)
{
	unsigned long long *n = ctx;

	if (ev->type == NOP_EV_COUNTS)
		*n += ev->nfunc + ev->nexit + ev->nkev;
	return 0;
}

__attribute__((noinline)) static int walk(struct nop_decoder *d, struct nop_dat *w, unsigned long long *n,
					  struct nop_error *err)
{
	return nop_dat_count_pages(d, w, tally, n, err);
}

int main(int argc, char **argv)
{
	struct nop_error err;
	struct nop_decoder *d;
	struct nop_dat *w = NULL;
	unsigned long long n = 0;
	char path[4096], ks[4096], *page;
	int ps;

	if (argc != 5)
		return 2;
	if (!(d = nop_decoder_new(argv[1], &err)) || !(page = malloc((size_t)(ps = nop_decoder_page_size(d))))) {
		fprintf(stderr, "walk: %s\n", d ? "out of memory" : err.msg);
		return 1;
	}
	snprintf(ks, sizeof(ks), "%s/kallsyms", argv[1]);
	if (nop_dat_open(&w, argv[4], true, argv[1], ks, ps, &err)) {
		fprintf(stderr, "walk: %s\n", err.msg);
		return 1;
	}
	for (int cpu = 0; cpu < 2; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/cpu%d.raw", argv[1], argv[2], cpu);
		if (!(f = fopen(path, "r")))
			continue;
		for (int t = 0; t < atoi(argv[3]); t++) {
			rewind(f);
			while (fread(page, 1, (size_t)ps, f) == (size_t)ps)
				if (nop_dat_page(w, cpu, page, (size_t)ps))
					return 1;
		}
		fclose(f);
	}
	if (walk(d, w, &n, &err) || nop_dat_finish(w, &err)) {
		fprintf(stderr, "walk: %s\n", err.msg);
		return 1;
	}
	nop_dat_free(w, false);
	nop_decoder_free(d);
	free(page);
	printf("%llu\n", n);
	return 0;
}

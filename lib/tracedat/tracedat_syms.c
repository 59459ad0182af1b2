/* tracedat_syms.c - the kernel symbols a trace.dat needs: those of the
 * functions its events name (hit, caller, stack entries), not all of
 * /proc/kallsyms, which would be most of a short recording's size. */
#include <stdlib.h>
#include <string.h>

#include "tracedat/tracedat.h"

struct sym {
	unsigned long long addr;
	const char *line;
	size_t len;
	bool keep;
};

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the function symbol at or below a (the one a reader names it by) */
static struct sym *containing(struct sym *v, size_t n, unsigned long long a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &v[lo - 1] : NULL;
}

struct nop_ksyms {
	struct sym *v;
	size_t n;
};

struct nop_ksyms *nop_ksyms_index(const char *text, size_t len)
{
	struct nop_ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0;

	if (!k)
		return NULL;
	for (const char *l = text, *end; l < text + len; l = end + 1) {
		char *after;
		unsigned long long a;

		end = memchr(l, '\n', (size_t)(text + len - l));
		if (!end)
			end = text + len;
		a = strtoull(l, &after, 16);
		/* "ADDR TYPE NAME [MOD]": functions only (t, T, w, W) */
		if (after == l || after + 2 >= end || after[0] != ' ' || !after[1] || !strchr("tTwW", after[1]))
			continue;
		if (nop_grow((void **)&k->v, &cap, k->n + 1, sizeof(*k->v))) {
			nop_ksyms_free(k);
			return NULL;
		}
		k->v[k->n++] = (struct sym){ .addr = a, .line = l, .len = (size_t)(end - l) };
	}
	qsort(k->v, k->n, sizeof(*k->v), by_addr);
	return k;
}

void nop_ksyms_free(struct nop_ksyms *k)
{
	if (k)
		free(k->v);
	free(k);
}

char *nop_ksyms_subset(struct nop_ksyms *k, const struct nop_addrset *s, size_t *outlen)
{
	struct sym *v = k->v;
	size_t n = k->n, o = 0;
	char *out;

	*outlen = 0;
	for (size_t i = 0; i < n; i++)
		v[i].keep = false;
	/* each with the function after it: readers take that as its end, and
	 * name nothing past the last symbol (nopctl's resolver, libtraceevent) */
	for (size_t i = 0; i < s->cap; i++) {
		struct sym *y = s->v[i] ? containing(v, n, s->v[i]) : NULL;

		for (int j = 0; y && j < 2 && y < v + n; j++, y++)
			if (!y->keep) {
				y->keep = true;
				o += y->len + 1;
			}
	}
	if (!(out = malloc(o + 1)))
		return NULL;
	o = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].keep) {
			memcpy(out + o, v[i].line, v[i].len);
			o += v[i].len;
			out[o++] = '\n';
		}
	*outlen = o;
	return out;
}

char *nop_kallsyms_subset(const char *text, size_t len, const struct nop_addrset *s, size_t *outlen)
{
	struct nop_ksyms *k = nop_ksyms_index(text, len);
	char *out = k ? nop_ksyms_subset(k, s, outlen) : NULL;

	nop_ksyms_free(k);
	return out;
}

int nop_kallsyms_keep(struct nop_kallsyms_kept *k)
{
	unsigned long long h = nop_modules_hash(); /* before kallsyms: a module loaded between is in it */

	if (k->text && k->idx && h == k->mods)
		return 0;
	nop_kallsyms_kept_free(k);
	if (!(k->text = nop_read_file("/proc/kallsyms", &k->len, NULL)) ||
	    !(k->idx = nop_ksyms_index(k->text, k->len))) {
		nop_kallsyms_kept_free(k);
		return -1;
	}
	k->mods = h;
	return 0;
}

void nop_kallsyms_kept_free(struct nop_kallsyms_kept *k)
{
	nop_ksyms_free(k->idx);
	free(k->text);
	*k = (struct nop_kallsyms_kept){ 0 };
}

/* funcs.c - the traceable functions (available_filter_functions). */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tracefs.h"

int nop_funcs_parse(const char *text, struct nop_funcs *f, struct nop_error *err)
{
	size_t cap = 0;
	const char *p = text;

	f->v = NULL;
	f->n = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *sp = memchr(p, ' ', len);
		struct nop_func fn = { 0 };

		if (len == 0 || *p == '#')
			goto next;
		fn.name = strndup(p, sp ? (size_t)(sp - p) : len);
		if (sp && sp[1] == '[') {
			const char *close = memchr(sp, ']', len - (size_t)(sp - p));

			if (close)
				fn.module = strndup(sp + 2, (size_t)(close - sp - 2));
		}
		if (!fn.name || nop_grow((void **)&f->v, &cap, f->n + 1, sizeof(*f->v))) {
			free(fn.name);
			free(fn.module);
			nop_funcs_free(f);
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		f->v[f->n++] = fn;
next:
		p += len + (eol ? 1 : 0);
	}
	return 0;
}

int nop_funcs_load(const char *tracing_dir, struct nop_funcs *f, struct nop_error *err)
{
	char path[4096];
	char *text;
	int ret;
	/* before the list is read: a module loaded meanwhile fails the match */
	unsigned long long modules = nop_modules_hash();

	nop_path(path, sizeof(path), tracing_dir, "available_filter_functions");
	if (!(text = nop_funcs_cache_read(tracing_dir))) {
		if (!(text = nop_read_file(path, NULL, err)))
			return -1;
		if (*text)
			nop_funcs_cache_write(tracing_dir, text);
	}
	ret = nop_funcs_parse(text, f, err);
	free(text);
	f->modules = modules;
	if (ret == 0 && f->n == 0) {
		nop_error_set(err, NOP_EKERNEL, 0,
			      "%s lists no functions: this kernel has no dynamic ftrace", path);
		return -1;
	}
	return ret;
}

void nop_funcs_free(struct nop_funcs *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].module);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

bool nop_func_matches(const struct nop_func *fn, const char *pat, const char *mod)
{
	if (mod && (!fn->module || strcmp(fn->module, mod) != 0))
		return false;
	if (!nop_pattern_is_glob(pat))
		return strcmp(fn->name, pat) == 0;
	return fnmatch(pat, fn->name, 0) == 0;
}

size_t nop_funcs_count(const struct nop_funcs *f, const char *pat, const char *mod)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += nop_func_matches(&f->v[i], pat, mod);
	return n;
}

/* Edit distance with an early exit once every cell exceeds limit. */
int nop_levenshtein(const char *a, const char *b, int limit)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[NOP_NAME_MAX + 1];

	if (la > NOP_NAME_MAX || lb > NOP_NAME_MAX)
		return limit + 1;
	if ((int)(la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0], best;

		row[0] = (int)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
}

/* A compiler clone (foo.isra.0, foo.constprop.0, foo.part.0, foo.cold) is
 * scored by its base name: asking for foo finds foo.isra.0. */
static int score(const char *pat, const char *name, int limit)
{
	char base[NOP_NAME_MAX + 1];
	const char *dot = strchr(name, '.');
	int d = nop_levenshtein(pat, name, limit);

	if (dot && (size_t)(dot - name) <= NOP_NAME_MAX) {
		memcpy(base, name, (size_t)(dot - name));
		base[dot - name] = 0;
		int db = nop_levenshtein(pat, base, limit);

		if (db < d)
			d = db;
	}
	if (d > 0 && strlen(pat) >= 4 && strstr(name, pat))
		d = d < 2 ? d : 2; /* a name that contains the whole pattern is close */
	return d;
}

size_t nop_funcs_suggest(const struct nop_funcs *f, const char *pat,
			 const char **out, size_t max)
{
	char lit[NOP_NAME_MAX + 1];
	int best[16];
	size_t n = 0, k = 0;
	int limit;

	if (max > ARRAY_SIZE(best))
		max = ARRAY_SIZE(best);
	for (const char *p = pat; *p && k < NOP_NAME_MAX; p++)
		if (!strchr("*?[]", *p))
			lit[k++] = *p;
	lit[k] = 0;
	if (k == 0)
		return 0;
	limit = k < 6 ? 2 : (int)k / 3;
	for (size_t i = 0; i < f->n; i++) {
		const char *name = f->v[i].name;
		int d = score(lit, name, limit);
		size_t pos;

		if (d > limit)
			continue;
		for (pos = 0; pos < n; pos++)
			if (strcmp(out[pos], name) == 0)
				break;
		if (pos < n)
			continue; /* the same name in two places */
		for (pos = n; pos > 0 && best[pos - 1] > d; pos--)
			;
		if (pos >= max)
			continue;
		if (n < max)
			n++;
		memmove(&out[pos + 1], &out[pos], (n - 1 - pos) * sizeof(*out));
		memmove(&best[pos + 1], &best[pos], (n - 1 - pos) * sizeof(*best));
		out[pos] = name;
		best[pos] = d;
	}
	return n;
}

/* list.c - nopctl list: the traceable functions, the kernel's or a
 * binary's (BINARY:GLOB). */
#include <string.h>

#include "cmd.h"

/* BINARY:GLOB: the binary's functions that a trace of it would probe (a
 * library by name: as the dynamic loader finds it) */
static int list_user(struct opts *o, const char *pat, struct nop_error *err)
{
	char bin[4096], path[4096];
	const char *glob;
	struct nop_ubin b;

	if (nop_upattern_split(pat, bin, sizeof(bin), &glob, err) ||
	    nop_ubin_find(bin, 0, NULL, path, sizeof(path), err) ||
	    nop_ubin_load(path, &b, err))
		return -1;
	if (!nop_ubin_count(&b, glob)) {
		nop_ubin_no_match(&b, glob, err);
		nop_ubin_free(&b);
		return -1;
	}
	for (size_t i = 0; i < b.n && !ferror(stdout); i++) {
		struct nop_fields fl;
		/* a function once, under the first of its names that matches */
		long a = b.v[i].alias ? -1 : nop_ubin_match(&b, i, glob);

		if (a < 0)
			continue;
		nop_fields_open(&fl, stdout, o->enc == NOP_ENC_JSON);
		nop_field_str(&fl, "func", "%s", nop_usym_shown(&b.v[a]));
		nop_field_str(&fl, "binary", " [%s]", b.name);
		nop_fields_close(&fl);
	}
	nop_ubin_free(&b);
	return 0;
}

int cmd_list(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_funcs f;
	const char *tdir;
	size_t shown = 0, nk = 0;

	for (size_t i = 0; i < o->npatterns; i++)
		if (pattern_arg_check(o->patterns[i], &err))
			return report_error(o, &err);
	for (size_t i = 0; i < o->npatterns; i++) {
		if (!nop_upattern(o->patterns[i]))
			o->patterns[nk++] = o->patterns[i]; /* the kernel's, listed below */
		else if (list_user(o, o->patterns[i], &err))
			return report_error(o, &err);
	}
	if (o->npatterns && !nk)
		return 0;
	o->npatterns = nk;
	if (!(tdir = nop_tracefs_dir(&err)) || load_funcs(tdir, &f, &err))
		return report_error(o, &err);
	if (check_patterns(&f, o, &err)) {
		nop_funcs_free(&f);
		return report_error(o, &err);
	}
	for (size_t i = 0; i < f.n; i++) {
		struct nop_fields fl;
		bool hit = o->npatterns == 0 && (!o->module || nop_func_matches(&f.v[i], "*", o->module));

		for (size_t p = 0; p < o->npatterns && !hit; p++)
			hit = nop_func_matches(&f.v[i], o->patterns[p], o->module);
		if (!hit)
			continue;
		nop_fields_open(&fl, stdout, o->enc == NOP_ENC_JSON);
		nop_field_str(&fl, "func", "%s", f.v[i].name);
		if (f.v[i].module || o->enc == NOP_ENC_JSON)
			nop_field_str(&fl, "module", " [%s]", f.v[i].module);
		nop_fields_close(&fl);
		shown++;
		if (ferror(stdout))
			break;
	}
	nop_funcs_free(&f);
	if (!shown && o->module) {
		nop_error_set(&err, NOP_EUSAGE, 0, "no traceable function in module %s", o->module);
		return report_error(o, &err);
	}
	return 0;
}

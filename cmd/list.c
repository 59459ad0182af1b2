/* list.c - nopctl list: the traceable functions. */
#include <string.h>

#include "cmd.h"

int cmd_list(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_funcs f;
	const char *tdir;
	size_t shown = 0;

	for (size_t i = 0; i < o->npatterns; i++)
		if (nop_pattern_check(o->patterns[i], &err))
			return report_error(o, &err);
	if (!(tdir = nop_tracefs_dir(&err)) || check_patterns(tdir, o, &err) ||
	    nop_funcs_load(tdir, &f, &err))
		return report_error(o, &err);
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

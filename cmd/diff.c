/* diff.c - nopctl diff A B: what changed between two sets of runs (each
 * a FILE or FILE,FILE,... of trace.dat or nopctl's JSON). */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* "a.dat,b.dat" split in place into *v; 0, or -1 (an empty name) */
static int split(char *arg, const char ***v, size_t *n)
{
	for (char *s = arg, *comma;; s = comma + 1) {
		const char **nv;

		if ((comma = strchr(s, ',')))
			*comma = 0;
		if (!*s || !(nv = realloc(*v, (*n + 1) * sizeof(*nv))))
			return -1;
		*v = nv;
		(*v)[(*n)++] = s;
		if (!comma)
			return 0;
	}
}

int cmd_diff(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_diff_result res;
	const char **a = NULL, **b = NULL;
	size_t na = 0, nb = 0;
	char *sa = NULL, *sb = NULL;
	FILE *out = NULL;
	int code = 0;

	if (o->npatterns != 2) {
		nop_error_set(&err, NOP_EUSAGE, 0,
			      "give two sides to compare: 'nopctl diff before.dat after.dat', or several runs a side: "
			      "'nopctl diff a1.dat,a2.dat b1.dat,b2.dat'");
		return report_error(o, &err);
	}
	if (!(sa = strdup(o->patterns[0])) || !(sb = strdup(o->patterns[1])) || split(sa, &a, &na) ||
	    split(sb, &b, &nb)) {
		nop_error_set(&err, NOP_EUSAGE, 0, "an empty file name in '%.64s' or '%.64s': give FILE or FILE,FILE,...",
			      o->patterns[0], o->patterns[1]);
		code = report_error(o, &err);
		goto out;
	}
	if (output_check(o, true, &err) < 0 || !(out = open_output(o, &err))) {
		code = report_error(o, &err);
		goto out;
	}
	{
		struct nop_diff_cfg cfg = {
			.a = a, .na = na, .b = b, .nb = nb, .format = o->diff_format, .out = out,
			.all = o->all, .alpha = o->alpha, .min_change = o->min_change,
		};

		if (nop_diff(&cfg, &res, &err)) {
			code = report_error(o, &err);
			goto out;
		}
	}
	if (res.lost && !o->quiet)
		fprintf(stderr, "nopctl: the runs lost %llu events: their counts may differ by what was lost\n",
			res.lost);
	if (!o->quiet && o->diff_format == NOP_DIFF_TEXT && out != stdout)
		fprintf(stderr, "nopctl: %zu functions and %zu paths changed\n", res.funcs_changed,
			res.paths_changed);
	code = res.funcs_changed || res.paths_changed ? NOP_ECHANGED : res.lost ? NOP_ELOST : 0;
out:
	if (out && out != stdout)
		fclose(out);
	free(a);
	free(b);
	free(sa);
	free(sb);
	return code;
}

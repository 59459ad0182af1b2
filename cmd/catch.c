/* catch.c - nopctl catch: graph's capture, each call tree kept whole only
 * when its root call was slow or failed. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* catch: graph's capture, every tree held until its root call ends and
 * shown whole only when that call was slow or failed */
int cmd_catch(struct opts *o)
{
	struct nop_error err = { 0 };
	int rc = check_pattern_args(o);
	static char out[4096]; /* -o without its trailing slashes */
	size_t n = o->output ? strlen(o->output) : 0;
	bool dir = n > 1 && o->output[n - 1] == '/'; /* -o DIR/: a directory, made if absent */

	if (rc)
		return rc;
	if (dir) {
		snprintf(out, sizeof(out), "%s", o->output);
		while (n > 1 && out[n - 1] == '/')
			out[--n] = 0;
		o->output = out;
	}
	if (!o->npatterns) {
		nop_error_set(&err, NOP_EUSAGE, 0, "give the root function to catch, e.g. 'nopctl catch"
			      " --slower-than 10ms do_sys_openat2'");
		return report_error(o, &err);
	}
	if (!o->slower_ns && !o->errors && !o->outliers) {
		nop_error_set(&err, NOP_EUSAGE, 0, "say what to catch: --slower-than TIME (a root call"
			      " that lasts longer), --errors (one that returns a negative errno) or"
			      " --outliers (one slower than its function's p99 so far)");
		return report_error(o, &err);
	}
	if ((rc = catch_dir_check(o, dir, &err)) < 0)
		return report_error(o, &err);
	if (rc == 0) { /* -o DIR: the catches there, their lines on stdout */
		o->catch_dir = o->output;
		o->output = NULL;
	} else if (o->before_ns) {
		nop_error_set(&err, NOP_EUSAGE, 0, "--before keeps what came before a root call in the catch's"
			      " trace.dat: give -o DIR/, a directory (made if absent)");
		return report_error(o, &err);
	}
	/* -o NAME, a new file: the rule said, not guessed silently */
	if (rc == 1 && o->output && strcmp(o->output, "-") && access(o->output, F_OK) < 0 && !o->quiet)
		fprintf(stderr, "nopctl: catch writes the caught trees as text to %s; for a directory of"
			" catch files give -o %s/\n", o->output, o->output);
	o->catching = true;
	return run_capture(o, RUN_GRAPH);
}

/* why.c - nopctl why: of each failed root call, the function its error
 * began in, the line where it was set, and the calls that passed it up. */
#include "cmd.h"

/* graph's capture with return values, each tree held until its root
 * returns; of a failed one only the chain down to its origin goes on */
int cmd_why(struct opts *o)
{
	struct nop_error err = { 0 };
	int rc = check_pattern_args(o);

	if (rc)
		return rc;
	if (!o->npatterns) {
		nop_error_set(&err, NOP_EUSAGE, 0, "give the root function whose failures to explain, e.g."
			      " 'nopctl why ./app:handle_request -- ./app' or 'nopctl why do_sys_openat2'");
		return report_error(o, &err);
	}
	o->why = o->errors = o->retval = true;
	if (o->view == NOP_VIEW_LINES) /* text: the why view; pictures draw the chains */
		o->view = NOP_VIEW_WHY;
	return run_capture(o, RUN_GRAPH);
}

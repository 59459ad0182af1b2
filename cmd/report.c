/* report.c - nopctl report FILE: a trace.dat, shown like a live run. */
#include "cmd.h"

int cmd_report(struct opts *o)
{
	struct nop_error err = { 0 };

	if (o->npatterns != 1) {
		nop_error_set(&err, NOP_EUSAGE, 0, "give one trace.dat file to report on");
		return report_error(o, &err);
	}
	return run_report(o, o->patterns[0]);
}

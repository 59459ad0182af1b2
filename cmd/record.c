/* record.c - nopctl record: raw events into a trace.dat, or several. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <string.h>

#include "cmd.h"

/* --rotate, --split write FILE.1, FILE.2, ...: any such file already
 * there is refused before tracefs is touched (unless --overwrite) */
static int numbered_free(const struct opts *o, struct nop_error *err)
{
	char dir[4096], base[4096];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s", o->output);
	snprintf(base, sizeof(base), "%s", o->output);
	if (o->overwrite || !(d = opendir(dirname(dir))))
		return 0;
	const char *b = basename(base);
	size_t n = strlen(b);

	while (!ret && (de = readdir(d)))
		if (!strncmp(de->d_name, b, n) && de->d_name[n] == '.' && de->d_name[n + 1] &&
		    strspn(de->d_name + n + 1, "0123456789") == strlen(de->d_name + n + 1)) {
			nop_error_set(err, NOP_EUSAGE, EEXIST, "output file %s.%s exists (--rotate and --split"
				      " write %s.1, %s.2, ...): remove them, or give --overwrite", o->output,
				      de->d_name + n + 1, o->output, o->output);
			ret = -1;
		}
	closedir(d);
	return ret;
}

/* --rotate, --split: FILE.N written over a run in FILE's directory, made
 * (0700) if absent, and refused where names there could be swapped */
static int numbered_dir(const struct opts *o, struct nop_error *err)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", o->output);
	return nop_output_dir(dirname(dir), err);
}

int cmd_record(struct opts *o)
{
	struct nop_error err = { 0 };
	int rc = check_pattern_args(o); /* a bad pattern first */

	if (rc)
		return rc;
	if (!o->output) {
		nop_error_set(&err, NOP_EUSAGE, 0, "record needs -o FILE (the trace.dat to write)");
		return report_error(o, &err);
	}
	if ((o->rotate && !o->max_size && !o->split_ns) || (o->count && (o->max_size || o->split_ns))) {
		nop_error_set(&err, NOP_EUSAGE, 0, o->count ? "-c cannot be combined with --max-size or --split"
			      " (a count stops the capture; a bound closes files)"
			      : "--rotate N keeps the newest N files: give --max-size SIZE or --split TIME too");
		return report_error(o, &err);
	}
	if ((o->rotate || o->split_ns) && numbered_free(o, &err))
		return report_error(o, &err);
	rc = o->graph ? graph_needs_a_root(o)
		      : need_a_pattern(o, "nopctl record -o t.dat do_sys_openat2",
				       "or -G for function_graph of a task: -p PID or -- COMMAND");
	if (!rc && (o->rotate || o->split_ns) && numbered_dir(o, &err))
		return report_error(o, &err);
	return rc ? rc : run_capture(o, RUN_RECORD);
}

/* help.c - nopctl help, and the overview. */
#include <string.h>

#include "cmd.h"

void overview(FILE *out)
{
	fputs("usage: nopctl [--version] [--help] COMMAND [ARGS]\n\n"
	      "nopctl traces kernel functions through ftrace and leaves the kernel as it found it.\n\n"
	      "commands:\n", out);
	for (const struct cmd *c = nop_commands; c->name; c++)
		fprintf(out, "  %-8s %s\n", c->name, c->summary);
	fputs("\n'nopctl COMMAND --help' shows a command's options; nopctl(1) has the exit codes.\n", out);
}

const struct cmd *find_cmd(const char *name)
{
	for (const struct cmd *c = nop_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cmd_help(struct opts *o)
{
	const struct cmd *c;

	if (!o->npatterns) {
		overview(stdout);
		return 0;
	}
	c = find_cmd(o->patterns[0]);
	if (!c) {
		fprintf(stderr, "nopctl: no command '%s'; 'nopctl help' lists them\n", o->patterns[0]);
		return NOP_EUSAGE;
	}
	usage(c, stdout);
	return 0;
}

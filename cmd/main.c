/* main.c - the command table and the one dispatcher. Names match
 * exactly: an abbreviation that works today breaks a script tomorrow. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* Like git: what a command printed must have reached its destination. */
static int finish_stdout(int ret)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return ret;
	/* a command that failed has said why (a full disk: once, not twice) */
	if (errno == EPIPE || ret)
		return ret;
	fprintf(stderr, "nopctl: error writing output: %s\n", strerror(errno));
	return ret ? ret : NOP_EINTERNAL;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	struct nop_error err = { 0 };
	struct opts o;
	int ret;

	if (argc < 2) {
		overview(stderr);
		return NOP_EUSAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("nopctl %s\n", NOP_VERSION);
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		overview(stdout);
		return finish_stdout(0);
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "nopctl: unknown command '%.64s'; commands are:", argv[1]);
		for (c = nop_commands; c->name; c++)
			fprintf(stderr, " %s", c->name);
		fputs("\n", stderr);
		return NOP_EUSAGE;
	}
	if (opts_parse(c, argc - 1, argv + 1, &o, &err)) {
		ret = report_error(&o, &err);
		opts_free(&o);
		return ret;
	}
	if (o.help) {
		usage(c, stdout);
		opts_free(&o);
		return finish_stdout(0);
	}
	ret = c->run(&o);
	opts_free(&o);
	return finish_stdout(ret);
}

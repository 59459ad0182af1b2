/* main.c - the command table and the one dispatcher. Names match
 * exactly: an abbreviation that works today breaks a script tomorrow. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

#define TRACE_OPTS (O_PATTERNS | O_PID | O_MODULE | O_NOTRACE | O_DURATION | O_COUNT | \
		    O_BUFFER | O_CPUS | O_STACK | O_OUTPUT | O_FORMAT | O_QUIET | O_FORCE | O_COMMAND | O_TOPLEVEL)

static int cmd_help(struct opts *o);

const struct cmd nop_commands[] = {
	{ "trace", cmd_trace, TRACE_OPTS, "[OPTIONS] PATTERN... [-- COMMAND [ARG...]]",
	  "Trace calls of kernel functions with ftrace's function tracer." },
	{ "list", cmd_list, O_PATTERNS | O_MODULE | O_FORMAT, "[OPTIONS] [PATTERN...]",
	  "List the traceable kernel functions, with their module." },
	{ "status", cmd_status, O_FORMAT, "[OPTIONS]",
	  "Show the tracer, filters, pid filters, instances with their owners, and lost events." },
	{ "reset", cmd_reset, O_FORMAT | O_QUIET, "[OPTIONS]",
	  "Restore what a crashed or killed nopctl left behind, and remove its instances." },
	{ "help", cmd_help, O_PATTERNS, "[COMMAND]", "Show help for nopctl or one of its commands." },
	{ NULL, NULL, 0, NULL, NULL },
};

static void overview(FILE *out)
{
	fputs("usage: nopctl [--version] [--help] COMMAND [ARGS]\n\n"
	      "nopctl traces kernel functions through ftrace and leaves the kernel as it found it.\n\n"
	      "commands:\n", out);
	for (const struct cmd *c = nop_commands; c->name; c++)
		fprintf(out, "  %-8s %s\n", c->name, c->summary);
	fputs("\n'nopctl COMMAND --help' shows a command's options; nopctl(1) has the exit codes.\n", out);
}

static const struct cmd *find(const char *name)
{
	for (const struct cmd *c = nop_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int cmd_help(struct opts *o)
{
	const struct cmd *c;

	if (!o->npatterns) {
		overview(stdout);
		return 0;
	}
	c = find(o->patterns[0]);
	if (!c) {
		fprintf(stderr, "nopctl: no command '%s'; 'nopctl help' lists them\n", o->patterns[0]);
		return NOP_EUSAGE;
	}
	usage(c, stdout);
	return 0;
}

/* Like git: what a command printed must have reached its destination. */
static int finish_stdout(int ret)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return ret;
	if (errno == EPIPE)
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
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "nopctl: unknown command '%.64s'; commands are:", argv[1]);
		for (c = nop_commands; c->name; c++)
			fprintf(stderr, " %s", c->name);
		fputs("\n", stderr);
		return NOP_EUSAGE;
	}
	if (opts_parse(c, argc - 1, argv + 1, &o, &err)) {
		ret = fail(&o, &err);
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

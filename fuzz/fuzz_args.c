/* fuzz_args.c - libFuzzer target: everything a user can type. The input
 * is split at NUL bytes into an argument vector; the first byte picks a
 * command whose option parser reads it. Each argument also goes through
 * the pattern, module and CPU-list validators and the traceable-function
 * list parser. */
#include <stdlib.h>
#include <string.h>

#include "../cmd/cmd.h"
#include "internal.h" /* the traceable-function list parser (tracefs/) */

static size_t ncommands(void)
{
	size_t n = 0;

	while (nop_commands[n].name)
		n++;
	return n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf, *argv[65];
	int argc = 1;
	struct opts o;
	struct nop_error err;
	struct nop_funcs fl = { 0 };
	struct nop_cpuset set;
	const char *near[4];

	if (size < 1)
		return 0;
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;
	argv[0] = (char *)"nopctl";
	for (char *p = buf; p < buf + size - 1 && argc < 64; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	memset(&o, 0, sizeof(o));
	if (opts_parse(&nop_commands[data[0] % ncommands()], argc, argv, &o, &err) == 0)
		opts_free(&o);
	for (int i = 1; i < argc; i++) {
		nop_pattern_check(argv[i], &err);
		nop_module_check(argv[i], &err);
		nop_cpuset_parse(argv[i], 8, &set, &err);
	}
	if (nop_funcs_parse(buf, &fl, &err) == 0) {
		if (fl.n) {
			nop_funcs_count(&fl, argv[argc - 1], NULL);
			nop_funcs_suggest(&fl, argv[argc - 1], near, 4);
		}
		nop_funcs_free(&fl);
	}
	free(buf);
	return 0;
}

/* machines.c - facts of every machine nopctl knows, whichever it is
 * built for: a trace.dat names the machine it was recorded on (its UNAME
 * option, uname(2)'s machine last), and its events are read by that
 * machine's facts. */
#include <string.h>

#include "arch/arch.h"

static const struct {
	const char *machine;
	int ret_pops;
} machines[] = {
	{ "x86_64", 8 },  /* ret pops the return address */
	{ "aarch64", 0 }, /* ret branches to x30: the stack is as at the entry */
};

int nop_arch_ret_pops(const char *machine)
{
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (!strcmp(machine, machines[i].machine))
			return machines[i].ret_pops;
	return -1;
}

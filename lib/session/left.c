/* left.c - what a replay leaves as it is, and why: counted and named in
 * a struct nop_replay for the caller's message. Called by every file
 * that puts something back (replay.c, shared.c, probes.c); calls none. */
#include <stdio.h>
#include <string.h>

#include "session/session.h"

void nop_replay_left(struct nop_replay *rep, const char *rel, const char *why)
{
	size_t off = strlen(rep->left);

	rep->nleft++;
	if (off < sizeof(rep->left) - 1)
		snprintf(rep->left + off, sizeof(rep->left) - off, "%s%s (%s)", off ? "; " : "", rel,
			 why);
}

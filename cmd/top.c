/* top.c - nopctl top: stats' figures per interval on a live screen
 * (topscreen.c) where the output is a terminal curses can draw on; not
 * on a terminal it is stats -i. */
#include <curses.h>
#include <stdio.h>
#include <term.h>
#include <unistd.h>

#include "cmd.h"

/* why the screen cannot be drawn here, NULL if it can */
static const char *no_screen(const struct opts *o)
{
	const char *cup;
	int e;

	if (o->enc == NOP_ENC_JSON)
		return "JSON asked for";
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return "not on a terminal";
	if (setupterm(NULL, STDOUT_FILENO, &e) != OK)
		return "the terminal (TERM) is not known to terminfo";
	/* curses draws on a terminal that cannot move its cursor (dumb)
	 * without an error, and shows nothing */
	cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1)
		return "the terminal (TERM) cannot place text on the screen";
	return NULL;
}

int cmd_top(struct opts *o)
{
	const char *why = no_screen(o);

	if (!o->interval_ns)
		o->interval_ns = 1000000000ULL;
	/* a terminal curses can draw on: the screen; otherwise (a pipe, a
	 * file, TERM unknown or dumb) each interval's table, as stats -i */
	o->live = !why;
	if (!o->live && !o->quiet)
		fprintf(stderr, "nopctl: top: %s: a table every interval, as 'nopctl stats -i' prints\n", why);
	return cmd_stats(o);
}

/* top.h - top's live screen (topscreen.c), drawn from what the capture hands
 * it: the pipeline's rows and a count of the events lost. */
#ifndef NOPCTL_TOP_H
#define NOPCTL_TOP_H

#include "cmd.h"

struct top;

/* curses on the terminal, rows sorted by sort, saying when the first
 * figures come: 0 with *t (top_close frees it), or -1 with err */
int top_open(struct top **t, enum nop_sort sort, unsigned long long interval_ns, struct nop_error *err);
/* the keys typed since, acted on (q stops pipe); t NULL: nothing */
void top_keys(struct top *t, struct nop_pipeline *pipe);
/* an interval's rows from pipe, with lost: the events overwritten or
 * dropped since tracing began; t NULL or paused: nothing */
void top_draw(struct top *t, struct nop_pipeline *pipe, const struct nop_tick *k, unsigned long long lost);
/* the screen takes an interval's figures (not paused) */
bool top_drawing(const struct top *t);
/* the terminal as it was, *t freed and NULL (idempotent) */
void top_close(struct top **t);

#endif

/* topscreen.c - top's live screen (curses): stats' figures per interval,
 * sorted by a key the user picks, filtered, paused; one function's whole
 * run and its durations' histogram on Enter. */
#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top.h"

enum key { K_RATE, K_TOTAL, K_SELF, K_AVG, K_MAX, K_P99, K_ERRORS, K_NAME, K_N };
/* the key to press for each sort, and its name */
static const char sort_key[K_N] = { 'c', 't', 's', 'a', 'm', 'p', 'e', 'n' };
static const char *const sort_name[K_N] = { "calls", "total", "self", "avg", "max", "p99", "errors", "name" };

struct top {
	SCREEN *scr;
	enum key sort;
	bool paused, typing, retvals;
	char filter[64], typed[64];
	struct nop_stat_row *rows; /* the interval shown, a copy: kept while paused */
	size_t n, cap;
	struct nop_tick at;
	unsigned long long calls; /* in the interval shown */
	unsigned long long lost;  /* overwritten or dropped since tracing began */
	/* the row under the cursor, by name (it stays on its function when
	 * the rows are sorted again); cur: its place among those shown */
	char sel[256];
	size_t cur, first;
	/* the selected function's own screen: its whole run to the last tick */
	bool detail;
	struct nop_stat_row whole;
	unsigned long long log2[NOP_LOG2_BUCKETS];
	bool seen; /* whole and log2 hold it */
};

/* Text at row y, cut at the screen's right edge; rows off the screen are
 * skipped. Formatted here, never by curses: ncurses 6.4's printw sizes
 * its buffer from the screen and, for a line longer than a tiny screen,
 * formats again from a va_list already read (top died of SIGSEGV in a
 * 10x3 terminal). */
#define ROW_MAX 1024 /* bytes of a row drawn; a wider screen's rest stays blank */
static void put(int y, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(int y, const char *fmt, ...)
{
	char line[ROW_MAX];
	va_list ap;

	if (y < 0 || y >= LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	mvaddnstr(y, 0, line, COLS);
}

/* row y blank to the edge in the attributes on: a bar under its text */
static void bar(int y)
{
	put(y, "%*s", COLS < ROW_MAX - 1 ? COLS : ROW_MAX - 1, "");
}

int top_open(struct top **tp, enum nop_sort sort, unsigned long long interval_ns, struct nop_error *err)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t || !(t->scr = newterm(NULL, stdout, stdin))) {
		free(t);
		nop_error_set(err, NOP_EINTERNAL, t ? ENOTTY : ENOMEM, "cannot draw on this terminal");
		return -1;
	}
	t->sort = sort == NOP_SORT_SELF ? K_SELF : sort == NOP_SORT_CALLS ? K_RATE
		  : sort == NOP_SORT_AVG ? K_AVG : sort == NOP_SORT_MAX ? K_MAX
		  : sort == NOP_SORT_NAME ? K_NAME : K_TOTAL;
	*tp = t;
	cbreak(); /* Ctrl-C stays a signal: the run ends as on any other */
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	erase();
	put(0, "nopctl top: the first figures come in %.1f s", (double)interval_ns / 1e9);
	refresh();
	return 0;
}

void top_close(struct top **tp)
{
	struct top *t = *tp;

	if (!t)
		return;
	endwin();
	delscreen(t->scr);
	free(t->rows);
	free(t);
	*tp = NULL;
}

static unsigned long long value(const struct nop_stat_row *w, enum key k)
{
	switch (k) {
	case K_RATE: return w->calls;
	case K_SELF: return w->self;
	case K_AVG: return w->total / w->calls;
	case K_MAX: return w->max;
	case K_P99: return w->p99;
	case K_ERRORS: return w->errors;
	default: return w->total;
	}
}

/* largest first; by name for the name key and between equals */
static int cmp(const void *a, const void *b, void *arg)
{
	const struct nop_stat_row *x = a, *y = b;
	enum key sorting = *(const enum key *)arg;

	if (sorting != K_NAME) {
		unsigned long long vx = value(x, sorting), vy = value(y, sorting);

		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

static bool shown(const struct top *t, const struct nop_stat_row *w)
{
	return !t->filter[0] || strstr(w->name, t->filter) || (w->binary && strstr(w->binary, t->filter));
}

/* the rows shown, in order: the cursor on the selected function if it is
 * among them, else at its place (the last row at most); the window of
 * rows on the screen keeps it in view */
static void place_cursor(struct top *t, size_t room)
{
	size_t k = 0, at = (size_t)-1, last = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (!shown(t, &t->rows[i]))
			continue;
		if (at == (size_t)-1 && !strcmp(t->rows[i].name, t->sel))
			at = k;
		last = i;
		k++;
	}
	if (!k)
		return;
	if (at == (size_t)-1)
		at = t->cur < k ? t->cur : k - 1;
	t->cur = at;
	for (size_t i = 0, j = 0; i <= last; i++)
		if (shown(t, &t->rows[i]) && j++ == at)
			snprintf(t->sel, sizeof(t->sel), "%s", t->rows[i].name);
	if (t->cur < t->first)
		t->first = t->cur;
	else if (room && t->cur >= t->first + room)
		t->first = t->cur - room + 1;
	if (t->first >= k)
		t->first = 0;
}

/* rows sorted by the key, the cursor placed: after new rows or a key */
static void order(struct top *t)
{
	qsort_r(t->rows, t->n, sizeof(*t->rows), cmp, &t->sort);
	place_cursor(t, LINES > 4 ? (size_t)(LINES - 4) : 1);
}

static void fetch_whole(struct top *t, struct nop_pipeline *pipe)
{
	t->seen = t->sel[0] && nop_pipeline_func(pipe, t->sel, &t->whole, t->log2);
}

static void figures(int y, const char *what, const struct nop_stat_row *w, double secs, bool retvals)
{
	char v[4][32], rate[32] = "", errs[64] = "";

	nop_fmt_duration(v[0], sizeof(v[0]), w->total);
	nop_fmt_duration(v[1], sizeof(v[1]), w->total / w->calls);
	nop_fmt_duration(v[2], sizeof(v[2]), w->p99);
	nop_fmt_duration(v[3], sizeof(v[3]), w->max);
	if (secs > 0)
		snprintf(rate, sizeof(rate), " (%.0f/s)", (double)w->calls / secs);
	if (retvals && w->returned)
		snprintf(errs, sizeof(errs), "  errors %llu of %llu", w->errors, w->returned);
	put(y, "%-14s %llu calls%s  total %s  avg %s  p99 %s  max %s%s", what, w->calls, rate, v[0], v[1],
	    v[2], v[3], errs);
}

/* the selected function: this interval's figures, the whole run's, and
 * the whole run's durations by power of two */
static void draw_detail(struct top *t, int rows, double secs)
{
	const struct nop_stat_row *now = NULL;
	int y = 6, first, last;
	unsigned long long peak;

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].name, t->sel))
			now = &t->rows[i];
	attron(A_BOLD);
	put(1, "%s%s%s%s", t->sel, t->seen && t->whole.binary ? " [" : "",
	    t->seen && t->whole.binary ? t->whole.binary : "", t->seen && t->whole.binary ? "]" : "");
	attroff(A_BOLD);
	if (now)
		figures(2, "this interval", now, secs, t->retvals);
	else
		put(2, "%-14s no calls", "this interval");
	if (!t->seen || !t->whole.calls) {
		put(3, "%-14s no calls yet", "whole run");
		return;
	}
	figures(3, "whole run", &t->whole, 0, t->retvals);
	attron(A_REVERSE);
	put(5, "  %-23s | %10s | GRAPH (the whole run)", "DURATION", "COUNT");
	attroff(A_REVERSE);
	peak = nop_log2_range(t->log2, &first, &last);
	for (int e = first; e <= last && y < rows - 1; e++) {
		char line[128];

		nop_fmt_log2_line(line, sizeof(line), e, t->log2[e], peak);
		put(y++, "%s", line);
	}
}

static void draw(struct top *t, struct nop_pipeline *pipe)
{
	int rows = LINES, y = 3, shown_rows = 0;
	double secs = t->at.span_ns ? (double)t->at.span_ns / 1e9 : 1;
	char when[16] = "--:--:--";
	time_t sec = (time_t)(t->at.wall_ns / 1000000000ULL);
	struct tm tm;
	size_t k = 0;

	if (t->at.index && localtime_r(&sec, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	erase();
	attron(A_BOLD);
	put(0, "nopctl top  %s  interval %llu (%.2f s)  %zu function%s  %llu calls  sort: %s%s%s%s",
	    when, t->at.index, secs, t->n, t->n == 1 ? "" : "s", t->calls, sort_name[t->sort],
	    t->filter[0] ? "  filter: " : "", t->filter, t->paused ? "  [paused]" : "");
	attroff(A_BOLD);
	if (t->detail) {
		draw_detail(t, rows, secs);
		attron(A_REVERSE);
		bar(rows - 1);
		put(rows - 1, "q quit  space pause  Enter/Esc back to the table");
		attroff(A_REVERSE);
		refresh();
		return;
	}
	put(1, "events read %llu  lost so far %llu%s", nop_pipeline_summary(pipe)->events, t->lost,
	    t->lost ? " (a larger -b KB keeps them)" : "");
	attron(A_REVERSE);
	bar(2);
	put(2, "%10s %9s %10s %10s %10s %10s %10s%s %s", "CALLS/s", "CALLS", "TOTAL", "SELF", "AVG", "P99",
	    "MAX", t->retvals ? " ERRORS" : "", "FUNCTION");
	attroff(A_REVERSE);
	for (size_t i = 0; i < t->n && y < rows - 1; i++) {
		const struct nop_stat_row *w = &t->rows[i];
		char v[6][32];

		if (!shown(t, w) || k++ < t->first)
			continue;
		nop_fmt_duration(v[0], sizeof(v[0]), w->total);
		nop_fmt_duration(v[1], sizeof(v[1]), w->self);
		nop_fmt_duration(v[2], sizeof(v[2]), w->total / w->calls);
		nop_fmt_duration(v[3], sizeof(v[3]), w->p99);
		nop_fmt_duration(v[4], sizeof(v[4]), w->max);
		v[5][0] = '\0';
		if (t->retvals && w->returned)
			snprintf(v[5], sizeof(v[5]), " %6llu", w->errors);
		else if (t->retvals) /* no return value came for it */
			snprintf(v[5], sizeof(v[5]), " %6s", "-");
		if (k - 1 == t->cur)
			attron(A_REVERSE);
		put(y++, "%10.0f %9llu %10s %10s %10s %10s %10s%s %s%s%s%s", (double)w->calls / secs, w->calls,
		    v[0], v[1], v[2], v[3], v[4], v[5], w->name, w->binary ? " [" : "",
			 w->binary ? w->binary : "", w->binary ? "]" : "");
		attroff(A_REVERSE);
		shown_rows++;
	}
	if (!shown_rows)
		put(3, "%s", t->n ? "(no function matches the filter)" : "(no calls in this interval)");
	attron(A_REVERSE);
	bar(rows - 1);
	if (t->typing)
		put(rows - 1, "filter (part of a name; Enter applies, Esc clears): %s", t->typed);
	else
		put(rows - 1, "q quit  space pause  / filter  sort: c calls/s t total s self a avg m max"
		    " p p99%s n name  up/down Enter: a function", t->retvals ? " e errors" : "");
	attroff(A_REVERSE);
	refresh();
}

bool top_drawing(const struct top *t)
{
	return t && !t->paused;
}

void top_draw(struct top *t, struct nop_pipeline *pipe, const struct nop_tick *k, unsigned long long lost)
{
	size_t n;
	const struct nop_stat_row *w = nop_pipeline_rows(pipe, &n);

	if (!t || t->paused)
		return;
	if (n > t->cap) {
		struct nop_stat_row *nr = realloc(t->rows, n * sizeof(*nr));

		if (!nr)
			return; /* the last interval stays on the screen */
		t->rows = nr;
		t->cap = n;
	}
	if (n)
		memcpy(t->rows, w, n * sizeof(*w));
	t->n = n;
	t->at = *k;
	t->lost = lost;
	t->calls = 0;
	for (size_t i = 0; i < n; i++) {
		t->calls += w[i].calls;
		t->retvals |= w[i].returned > 0;
	}
	order(t);
	if (t->detail)
		fetch_whole(t, pipe);
	draw(t, pipe);
}

/* Enter, as a terminal sends it (a line feed, a carriage return) or as
 * the keypad's own key */
static bool is_enter(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER;
}

/* a key while a filter is typed */
static void typing(struct top *t, int ch)
{
	size_t len = strlen(t->typed);

	if (is_enter(ch)) {
		snprintf(t->filter, sizeof(t->filter), "%s", t->typed);
		t->typing = false;
	} else if (ch == 27) { /* Esc */
		t->filter[0] = t->typed[0] = '\0';
		t->typing = false;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (len)
			t->typed[len - 1] = '\0';
	} else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(t->typed)) {
		t->typed[len] = (char)ch;
		t->typed[len + 1] = '\0';
	}
}

void top_keys(struct top *t, struct nop_pipeline *pipe)
{
	bool redraw = false;
	int ch;

	if (!t)
		return;
	while ((ch = getch()) != ERR) {
		redraw = true;
		if (t->typing) {
			typing(t, ch);
			order(t);
			continue;
		}
		if (ch == 'q' || ch == 'Q') {
			nop_pipeline_stop(pipe, NOP_STOP_QUIT, 0);
			return;
		}
		if (t->detail && (ch == 27 || is_enter(ch) || ch == KEY_LEFT || ch == KEY_BACKSPACE || ch == 127)) {
			t->detail = false;
			continue;
		}
		if (ch == ' ')
			t->paused = !t->paused;
		else if (t->detail)
			continue; /* the table's keys wait for it */
		else if (ch == KEY_DOWN || ch == 'j')
			t->cur++, t->sel[0] = '\0';
		else if ((ch == KEY_UP || ch == 'k') && t->cur)
			t->cur--, t->sel[0] = '\0';
		else if ((is_enter(ch) || ch == KEY_RIGHT) && t->sel[0]) {
			t->detail = true;
			fetch_whole(t, pipe);
		} else if (ch == '/') {
			t->typing = true;
			snprintf(t->typed, sizeof(t->typed), "%s", t->filter);
		} else if (ch == 27)
			t->filter[0] = '\0';
		else
			for (int k = 0; k < K_N; k++)
				if (ch == sort_key[k])
					t->sort = (enum key)k;
		order(t);
	}
	if (redraw)
		draw(t, pipe);
}

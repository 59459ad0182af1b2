/* sink/sink.h - the sink area of libnopctl: the views: one sink per output
 * format, and the run summary. Its header includes the one of the area
 * before it (lib/README.md: the order): a file sees its own area and those
 * below, never one above. */
#ifndef NOPCTL_AREA_SINK_H
#define NOPCTL_AREA_SINK_H

#include "graph/graph.h"

/* sinks: one per view (sink_*.c), chosen by sink.c */
struct nop_sink;

struct nop_sink_ops {
	int (*init)(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err);
	int (*event)(struct nop_sink *s, const struct nop_event *ev); /* function tracer */
	int (*graph)(struct nop_sink *s, const struct nop_gitem *gi);	/* function_graph */
	int (*summary)(struct nop_sink *s, const struct nop_summary *sum); /* the end */
	int (*tick)(struct nop_sink *s, const struct nop_tick *t); /* an interval's end (optional) */
	void (*free)(struct nop_sink *s);
};

struct nop_sink {
	const struct nop_sink_ops *ops;
	void *priv;
	FILE *out, *diag;
	struct nop_resolver *res;
	enum nop_encoding enc;
	bool quiet;
	unsigned renames; /* a task took a new name (fork, exec): cached prefixes go */
	/* lines built in place, written to out a buffer at a time (see
	 * nop_sink_room); anything else written to out spills them first */
	char *obuf;
	size_t olen;
	int werr; /* errno of a failed write of obuf: every later one fails */
	struct nop_strmap *safe; /* names with control bytes: their text form */
};

int nop_sink_init(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err);
/* a string from a file or the kernel (a function, binary or event name)
 * as text shows it (nop_text_escape: control bytes, C1 too, and bytes of
 * no valid UTF-8 as \xNN); JSON's own escaping keeps it exact. Lives as
 * long as the sink. */
const char *nop_sink_text(struct nop_sink *s, const char *str);
/* the same in place, in a buffer of cap bytes the caller owns (cut short
 * if the escapes do not fit) */
void nop_sink_text_in(const struct nop_sink *s, char *buf, size_t cap);

void nop_sink_free(struct nop_sink *s);

/* a path's last name (a source file as pictures and why name it) */
const char *nop_sink_base(const char *path);

/* a task's name as the sink's encoding may show it */
const char *nop_sink_comm(struct nop_sink *s, int pid);

/* "name" of a traced address, cached; "0x..." when unknown */
const char *nop_sink_func(struct nop_sink *s, unsigned long long addr);

/* fn is nop_sink_func's "0x...": one buffer, reused by the next call, so
 * not to be cached by its address as a name is */
bool nop_sink_func_unnamed(const char *fn);

#define NOP_SINK_OBUF (1 << 18)

/* where a line of up to need (<= NOP_SINK_OBUF) bytes is built at
 * s->obuf + s->olen, after writing out what the buffer held if it had no
 * room; NULL when out of memory or the output failed */
char *nop_sink_room(struct nop_sink *s, size_t need);

/* write the buffered lines to out (0, or -1 with out's error set) */
int nop_sink_spill(struct nop_sink *s);

/* spill, then fflush out */
int nop_sink_flush(struct nop_sink *s);

/* sinks (sink_*.c) */
extern const struct nop_sink_ops nop_lines_ops, nop_folded_ops, nop_dot_ops, nop_chrome_ops,
	nop_stats_ops, nop_callers_ops, nop_profile_ops, nop_why_ops;

/* the stats sink has a row for func (--hist FUNC: a function it saw) */
bool nop_stats_has(const struct nop_sink *s, const char *func);

/* the stats sink's last interval's rows (NULL, *n 0: none, or another sink) */
const struct nop_stat_row *nop_stats_rows(const struct nop_sink *s, size_t *n);

/* the stats sink's whole-run figures of one function (nop_pipeline_func) */
bool nop_stats_func(const struct nop_sink *s, const char *name, struct nop_stat_row *row,
		    unsigned long long log2[NOP_LOG2_BUCKETS]);

/* the stats sink: a call of a summary (nop_graph_summarize) */
int nop_stats_call(struct nop_sink *s, const struct nop_gcall *c);

int nop_sink_priv(struct nop_sink *s, size_t size, struct nop_error *err);

int nop_graph_lines(struct nop_sink *s, const struct nop_gitem *gi);

/* a kernel event's name and fields (args "TEXT\0JSON") into f: text
 * "sched_switch: prev_comm=..." (its system left out, as the kernel's
 * own output has it), JSON "name" and "fields" */
#define GRAPH_EVENT_TEXT 1024
void nop_sink_kevent_fields(struct nop_sink *s, struct nop_fields *f, const char *name, const char *args);
/* its text into buf: fmt with its name (system left out) and fields,
 * control bytes as the text view shows them */
void nop_sink_kevent_text(const struct nop_sink *s, char *buf, size_t len, const char *fmt, const char *name,
			  const char *args);


/* off-CPU time by state: text "38.200 ms (D)", or with more than one
 * state "38.200 ms (S 30.100 ms, D 8.100 ms)"; JSON {"S":30100000,...} */
void nop_fmt_off(char *buf, size_t len, const unsigned long long *off);
const char *nop_off_json(char *buf, size_t len, const unsigned long long *off);

void nop_sink_sym(struct nop_sink *s, unsigned long long addr, char *buf, size_t len, bool off);

/* catch: why a tree was caught; its root call (its return, or its entry
 * when caught open: ASKED), and the tree's items (held, so far) */
enum nop_catch_why { NOP_CATCH_NONE, NOP_CATCH_SLOWER, NOP_CATCH_ERROR, NOP_CATCH_OUTLIER,
		     NOP_CATCH_ASKED };
struct nop_caught {
	unsigned long long seq; /* 1, 2, ... */
	enum nop_catch_why why;
	const struct nop_gitem *root;
	unsigned long long limit_ns; /* SLOWER: the threshold; OUTLIER: the p99 it passed */
	size_t calls; /* in the tree (ASKED: so far) */
	/* the tree's first event's stamp on the buffer's clock (it ends in
	 * what was read so far: a return's stamp is function_graph's own
	 * clock, which can run apart from the buffer's, 6.1) */
	unsigned long long from;
};
/* catch: the line that tells of a catch, before its tree: on the output
 * (text: a '#' line; JSON: a "catch" object), for pictures as text on the
 * diagnostic stream; file: where the catch was written (NULL: nowhere) */
int nop_catch_write(struct nop_sink *s, const struct nop_caught *c, const char *file);

/* the run summary, for any view (summary.c) */
int nop_summary_write(struct nop_sink *s, const struct nop_summary *sum);

int nop_summary_to_diag(struct nop_sink *s, const struct nop_summary *sum);

#endif

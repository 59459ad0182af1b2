/* sink_graph.c - function_graph calls as lines: the kernel's own tree
 * view for people, entry/call/exit objects for scripts. */
#include <stdint.h>
#include <string.h>

#include "sink/sink.h"

/* The kernel's markers for long calls, in front of the duration. */
static char marker(unsigned long long ns)
{
	static const struct { unsigned long long ns; char c; } m[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		{ 1000000ULL, '#' },	{ 100000ULL, '!' },    { 10000ULL, '+' },
	};

	for (size_t i = 0; i < ARRAY_SIZE(m); i++)
		if (ns > m[i].ns)
			return m[i].c;
	return ' ';
}

struct quoted {
	const char *name;
	char raw[17]; /* a task name's bytes, to check the slot still holds them */
	size_t len; /* of q; 0: not cached (too long) */
	char q[96];
};

struct graph_lines {
	int last_pid[NOP_MAX_CPUS];
	bool seen[NOP_MAX_CPUS];
	/* function names by address (an address keeps its name, as in the
	 * resolver's own cache): their lengths (strlen per line was a tenth of
	 * a report), for text a copy of up to 48 bytes, copied 16 bytes a
	 * store (memcpy's call per name), for JSON the name quoted and
	 * escaped (escaping every name at every line was a quarter of
	 * `report -j`, perf, on trace-cmd's files) */
	struct fname {
		unsigned long long addr;
		const char *name; /* NULL: an empty slot */
		size_t len, qlen; /* qlen 0: too long to be quoted here */
		char copy[48];
		char q[96];
		/* a user function's binary, quoted (bqlen 0: none, or too long) */
		bool binary;
		size_t bqlen;
		char bq[64];
	} names[1024];
	/* " CPU) comm-pid | " of the last line: most lines repeat it */
	int pre_cpu, pre_pid;
	unsigned pre_renames;
	char pre[64];
	size_t npre;
	/* JSON: task names quoted and escaped once, by name pointer, checked
	 * too (its slot is rewritten when the task renames itself) */
	struct quoted comms[64];
};

static int task_switch(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct graph_lines *g = s->priv;

	if (gi->cpu < 0 || gi->cpu >= NOP_MAX_CPUS)
		return 0;
	if (g->seen[gi->cpu] && g->last_pid[gi->cpu] != gi->pid) {
		int old = g->last_pid[gi->cpu];

		if (nop_sink_spill(s))
			return -1;
		fprintf(s->out, " ------------------------------------------\n");
		fprintf(s->out, " %3d) %16s-%-6d =>  %s-%d\n", gi->cpu, nop_sink_comm(s, old), old,
			nop_sink_comm(s, gi->pid), gi->pid);
		fprintf(s->out, " ------------------------------------------\n\n");
	}
	g->seen[gi->cpu] = true;
	g->last_pid[gi->cpu] = gi->pid;
	return 0;
}

/* The line is built by hand in the sink's buffer, not by printf. A line holds up to GRAPH_LINE_MAX - 1 bytes
 * before its newline; longer ones are cut. */
#define GRAPH_LINE_MAX 1024
/* the buffer's room for a line: spaces are stored 16 at a time */
#define GRAPH_LINE_ROOM (GRAPH_LINE_MAX + 16)

struct line {
	char *b;
	size_t n;
};

/* A string constant is copied with a few stores: where it fits, len is
 * the compiler's constant (clamping it first makes every put a loop of
 * single bytes) */
static inline __attribute__((always_inline)) void put(struct line *l, const char *s, size_t len)
{
	size_t room = GRAPH_LINE_MAX - 1 - l->n;

	if (len > room) { /* the line is full: cut */
		memcpy(l->b + l->n, s, room);
		l->n += room;
		return;
	}
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

/* sixteen spaces a store, up to 15 past the pad (room: GRAPH_LINE_ROOM),
 * not a call of memset per pad */
static void pad(struct line *l, size_t len, size_t width)
{
	static const char sp[16] = "                ";
	size_t n = len < width ? width - len : 0;

	if (n > GRAPH_LINE_MAX - 1 - l->n)
		n = GRAPH_LINE_MAX - 1 - l->n;
	for (size_t i = 0; i < n; i += sizeof(sp))
		memcpy(l->b + l->n + i, sp, sizeof(sp));
	l->n += n;
}

/* s (len bytes) right-aligned (width > 0) or left-aligned (width < 0) */
static void strn(struct line *l, const char *s, size_t len, int width)
{
	if (width > 0)
		pad(l, len, (size_t)width);
	put(l, s, len);
	if (width < 0)
		pad(l, len, (size_t)-width);
}

static void str(struct line *l, const char *s, int width)
{
	strn(l, s, strlen(s), width);
}

/* v in decimal, at least zeros digits, aligned as strn */
static inline __attribute__((always_inline)) void num(struct line *l, long long v, int width, int zeros)
{
	unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
	size_t n = nop_dec_len(u, v < 0, zeros);

	if (width > 0)
		pad(l, n, (size_t)width);
	if (n > GRAPH_LINE_MAX - 1 - l->n)
		return; /* the line is full */
	nop_dec_put(l->b + l->n + n, u, v < 0, zeros);
	l->n += n;
	if (width < 0)
		pad(l, n, (size_t)-width);
}

/* "(dfd=-100, filename=\"/etc/hostname\")", or "()" without --args */
static inline __attribute__((always_inline)) void call_args(struct line *l, const char *args)
{
	put(l, "(", 1);
	if (args)
		str(l, args, 0);
	put(l, ")", 1);
}

/* slot i (or *unnamed) filled for addr; the name it held moves to the
 * other slot of its pair, whose name is dropped */
static __attribute__((noinline)) const struct fname *fname_fill(struct nop_sink *s, struct fname *set,
								 size_t i, unsigned long long addr,
								 struct fname *unnamed)
{
	const char *name = nop_sink_func(s, addr);
	struct fname *f = &set[i];

	if (nop_sink_func_unnamed(name))
		f = unnamed;
	else if (f->name)
		set[i ^ 1] = *f;
	f->addr = addr;
	f->name = name;
	f->len = strlen(name);
	if (f->len <= sizeof(f->copy))
		memcpy(f->copy, name, f->len);
	f->qlen = nop_json_quote(f->q, sizeof(f->q), name);
	name = nop_resolve_binary(s->res, addr);
	f->binary = name != NULL;
	f->bqlen = name ? nop_json_quote(f->bq, sizeof(f->bq), name) : 0;
	return f;
}

/* addr's name, a look-up in the line (its fill called apart); one with
 * none ("0x...", nop_sink_func's one buffer, rewritten by the next call)
 * is set in *unnamed, never cached. Two slots a hash, so that two hot
 * functions whose addresses collide do not evict each other */
static inline __attribute__((always_inline)) const struct fname *
fname(struct nop_sink *s, struct graph_lines *g, unsigned long long addr, struct fname *unnamed)
{
	/* 1024 slots: the top 10 bits of a multiplicative hash of the address
	 * less the low bits the kernel's function alignment leaves 0 (hashed
	 * whole, the 267 functions above took 5,914 fills on x86-64, which
	 * aligns them to 16 bytes) */
	_Static_assert(ARRAY_SIZE(((struct graph_lines *)0)->names) == 1 << 10, "names: 2^10 slots");
	size_t i = (size_t)(((addr >> NOP_KFUNC_ALIGN_SHIFT) * 0x9e3779b97f4a7c15ULL) >> 54);
	struct fname *f = &g->names[i], *o = &g->names[i ^ 1];

	if (f->name && f->addr == addr)
		return f;
	if (o->name && o->addr == addr)
		return o;
	return fname_fill(s, g->names, i, addr, unnamed);
}

/* len bytes of q to d, 16 a store: up to 15 past len are read from q and
 * written to d, both of which must have that room; the end of the copy */
static inline __attribute__((always_inline)) char *copy16(char *d, const char *q, size_t len)
{
	for (size_t i = 0; i < len; i += 16)
		memcpy(d + i, q + i, 16);
	return d + len;
}

/* the name, from its copy 16 bytes a store (up to 15 past it, within the
 * line's room) */
static inline __attribute__((always_inline)) void put_name(struct line *l, const struct fname *f)
{
	if (f->len > sizeof(f->copy) || f->len > GRAPH_LINE_MAX - 1 - l->n) {
		put(l, f->name, f->len);
		return;
	}
	l->n = (size_t)(copy16(l->b + l->n, f->copy, f->len) - l->b);
}

/* " CPU) comm-pid | " */
static void task_prefix(struct nop_sink *s, struct line *l, const struct nop_gitem *gi)
{
	put(l, " ", 1);
	num(l, gi->cpu, 3, 0);
	put(l, ") ", 2);
	str(l, nop_sink_comm(s, gi->pid), 16);
	put(l, "-", 1);
	num(l, gi->pid, -6, 0);
	put(l, " | ", 3);
}

static int text(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct graph_lines *g;
	struct line l = { .n = 0 };
	struct fname unnamed;
	const struct fname *name;

	if (!s->priv && nop_sink_priv(s, sizeof(struct graph_lines), NULL))
		return -1;
	name = fname(s, s->priv, gi->func, &unnamed);
	if (task_switch(s, gi) || !(l.b = nop_sink_room(s, GRAPH_LINE_ROOM)))
		return -1;
	/* " %3d) %16s-%-6d | %16s | %*s" */
	g = s->priv;
	if (!g->npre || g->pre_cpu != gi->cpu || g->pre_pid != gi->pid || g->pre_renames != s->renames) {
		task_prefix(s, &l, gi);
		g->npre = l.n < sizeof(g->pre) ? l.n : 0;
		memcpy(g->pre, l.b, g->npre);
		g->pre_cpu = gi->cpu;
		g->pre_pid = gi->pid;
		g->pre_renames = s->renames;
	} else {
		memcpy(l.b, g->pre, sizeof(g->pre)); /* whole: a fixed copy, no call */
		l.n = g->npre;
	}
	if (gi->timed && gi->kind != NOP_GI_ENTER) {
		/* "%c %7llu.%03llu us" */
		char m = marker(gi->duration);

		put(&l, &m, 1);
		put(&l, " ", 1);
		num(&l, (long long)(gi->duration / 1000), 7, 0);
		put(&l, ".", 1);
		num(&l, (long long)(gi->duration % 1000), 0, 3);
		put(&l, " us", 3);
	} else {
		pad(&l, 0, 16);
	}
	put(&l, " | ", 3);
	pad(&l, 0, 2 * (size_t)gi->depth);
	switch (gi->kind) {
	case NOP_GI_ENTER:
		put_name(&l, name);
		call_args(&l, gi->args);
		put(&l, " {", 2);
		break;
	case NOP_GI_LEAF:
		put_name(&l, name);
		call_args(&l, gi->args);
		put(&l, ";", 1);
		if (gi->no_entry)
			str(&l, " /* entered before the capture or in a gap */", 0);
		else if (gi->unwound)
			str(&l, " /* unwound: no return */", 0);
		break;
	case NOP_GI_EVENT: /* event_line's */
	case NOP_GI_ORIGIN: /* why's sink only */
		break;
	case NOP_GI_RETURN:
		put(&l, "} /* ", 5);
		put_name(&l, name);
		if (gi->unwound)
			str(&l, ": unwound, no return */", 0);
		else if (gi->timed)
			put(&l, " */", 3);
		else
			put(&l, ": exit not seen */", 18);
		break;
	}
	if (gi->kind != NOP_GI_ENTER && gi->has_retval) {
		const char *en = nop_retval_errno(gi->retval, (gi->func & NOP_UKEY_MASK) == NOP_UKEY);

		put(&l, " /* = ", 6);
		num(&l, gi->retval, 0, 0);
		if (en) {
			put(&l, " (", 2);
			str(&l, en, 0);
			put(&l, ")", 1);
		}
		put(&l, " */", 3);
	}
	if (nop_gi_ends_call(gi) && nop_off_total(gi->off)) {
		char off[160];

		nop_fmt_off(off, sizeof(off), gi->off);
		put(&l, " /* off CPU ", 12);
		str(&l, off, 0);
		put(&l, " */", 3);
	}
	if (gi->other_task)
		str(&l, " /* context switch: task not traced */", 0);
	l.b[l.n++] = '\n';
	s->olen += l.n;
	return 0;
}

/* a task's name, quoted from its cache entry (checked to hold the same
 * bytes: a task renames itself); len 0: too long to be kept */
static const struct quoted *quote_comm(struct graph_lines *g, const char *name)
{
	struct quoted *c = &g->comms[((uintptr_t)name >> 3) & (ARRAY_SIZE(g->comms) - 1)];

	if (c->name != name || strcmp(c->raw, name)) {
		c->name = name;
		c->len = strlen(name) >= sizeof(c->raw) ? 0 : nop_json_quote(c->q, sizeof(c->q), name);
		if (c->len)
			strcpy(c->raw, name);
	}
	return c;
}

/* key: name, as quoted (len bytes at q) where it could be */
static void quoted_field(struct nop_fields *f, const char *key, const char *q, size_t len, const char *name)
{
	if (len)
		nop_field_quoted(f, key, q, len);
	else
		nop_field_str(f, key, NULL, name);
}

/* The common JSON line, built in place as text's is: keys as string
 * constants the compiler copies with a few stores, the names from their
 * quoted caches 16 bytes a store, where nop_fields would quote each key
 * again. Only for a line that has nothing else (no arguments, return
 * value or mark): 0 then, else 1 and nothing written. */
#define LIT(d, lit) (memcpy((d), (lit), sizeof(lit) - 1), (d) + sizeof(lit) - 1)
/* the most such a line holds: its constants, six numbers, three names */
#define JSON_FAST_MAX (144 + 6 * NOP_DEC_MAX + sizeof(((struct quoted *)0)->q) + \
		       sizeof(((struct fname *)0)->q) + sizeof(((struct fname *)0)->bq))

static char *ujnum(char *d, unsigned long long u, bool neg)
{
	size_t n = nop_dec_len(u, neg, 0);

	nop_dec_put(d + n, u, neg, 0);
	return d + n;
}

static char *jnum(char *d, long long v)
{
	return ujnum(d, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0);
}

static int json_common(struct nop_sink *s, struct graph_lines *g, const struct nop_gitem *gi)
{
	const struct quoted *comm;
	const struct fname *func;
	struct fname unnamed;
	char *b, *d;

	if (gi->other_task || (gi->args && gi->kind != NOP_GI_RETURN) || nop_off_total(gi->off) ||
	    (gi->kind != NOP_GI_ENTER && (!gi->timed || gi->has_retval || gi->no_entry || gi->unwound)))
		return 1;
	comm = quote_comm(g, nop_resolve_comm(s->res, gi->pid));
	func = fname(s, g, gi->func, &unnamed);
	if (!comm->len || !func->qlen || (func->binary && !func->bqlen))
		return 1;
	if (!(b = d = nop_sink_room(s, JSON_FAST_MAX + 16)))
		return -1;
	switch (gi->kind) {
	case NOP_GI_ENTER: d = LIT(d, "{\"type\":\"entry\",\"ts\":"); break;
	case NOP_GI_LEAF: d = LIT(d, "{\"type\":\"call\",\"ts\":"); break;
	case NOP_GI_RETURN: d = LIT(d, "{\"type\":\"exit\",\"ts\":"); break;
	case NOP_GI_EVENT: /* event_line's */
	case NOP_GI_ORIGIN: break; /* why's sink only */
	}
	d = ujnum(d, gi->ts, false);
	d = LIT(d, ",\"cpu\":");
	d = jnum(d, gi->cpu);
	d = LIT(d, ",\"pid\":");
	d = jnum(d, gi->pid);
	d = LIT(d, ",\"comm\":");
	d = copy16(d, comm->q, comm->len);
	d = LIT(d, ",\"func\":");
	d = copy16(d, func->q, func->qlen);
	if (func->binary) {
		d = LIT(d, ",\"binary\":");
		d = copy16(d, func->bq, func->bqlen);
	}
	d = LIT(d, ",\"depth\":");
	d = jnum(d, gi->depth);
	if (gi->kind != NOP_GI_ENTER) {
		d = LIT(d, ",\"duration_ns\":");
		d = ujnum(d, gi->duration, false);
		d = LIT(d, ",\"self_ns\":");
		d = ujnum(d, gi->self, false);
	}
	d = LIT(d, "}\n");
	s->olen += (size_t)(d - b);
	return 0;
}

static int json(struct nop_sink *s, const struct nop_gitem *gi)
{
	/* quoted already, not escaped at every line */
	static const struct { const char *q; size_t len; } type[] = {
		{ "\"entry\"", 7 }, { "\"call\"", 6 }, { "\"exit\"", 6 } };
	struct nop_fields f;
	struct graph_lines *g;
	const char *comm;
	const struct quoted *qcomm;
	const struct fname *func;
	struct fname unnamed;
	int ret;

	if (!s->priv && nop_sink_priv(s, sizeof(struct graph_lines), NULL))
		return -1;
	g = s->priv;
	if ((ret = json_common(s, g, gi)) <= 0)
		return ret;
	if (!nop_sink_room(s, GRAPH_LINE_MAX))
		return -1;
	nop_fields_open_at(&f, s->out, s->obuf, s->olen, NOP_SINK_OBUF);
	nop_field_quoted(&f, "type", type[gi->kind].q, type[gi->kind].len);
	nop_field_u64(&f, "ts", NULL, gi->ts);
	nop_field_i64(&f, "cpu", NULL, gi->cpu);
	nop_field_i64(&f, "pid", NULL, gi->pid);
	comm = nop_resolve_comm(s->res, gi->pid);
	qcomm = quote_comm(g, comm);
	quoted_field(&f, "comm", qcomm->q, qcomm->len, comm);
	func = fname(s, g, gi->func, &unnamed);
	quoted_field(&f, "func", func->q, func->qlen, func->name);
	if (nop_resolve_binary(s->res, gi->func))
		nop_field_str(&f, "binary", NULL, nop_resolve_binary(s->res, gi->func));
	nop_field_i64(&f, "depth", NULL, gi->depth);
	if (gi->kind != NOP_GI_ENTER) {
		if (gi->timed) {
			nop_field_u64(&f, "duration_ns", NULL, gi->duration);
			nop_field_u64(&f, "self_ns", NULL, gi->self);
		} else {
			nop_field_str(&f, "duration_ns", NULL, NULL);
			nop_field_str(&f, "self_ns", NULL, NULL);
		}
		if (gi->has_retval) {
			const char *en = nop_retval_errno(gi->retval, (gi->func & NOP_UKEY_MASK) == NOP_UKEY);

			nop_field_i64(&f, "retval", NULL, gi->retval);
			if (en)
				nop_field_str(&f, "error", NULL, en);
		}
		if (nop_off_total(gi->off)) {
			char js[200];

			nop_field_u64(&f, "off_cpu_ns", NULL, nop_off_total(gi->off));
			nop_field_u64(&f, "off_cpu_self_ns", NULL, nop_off_total(gi->off_self));
			nop_field_json(&f, "off_cpu", nop_off_json(js, sizeof(js), gi->off));
		}
		if (gi->no_entry)
			nop_field_str(&f, "entry", NULL, "not seen");
		if (!gi->timed)
			nop_field_str(&f, "exit", NULL, "not seen");
		else if (gi->unwound)
			nop_field_str(&f, "exit", NULL, "unwound");
	}
	if (gi->args && gi->kind != NOP_GI_RETURN)
		nop_field_json(&f, "args", nop_args_json(gi->args));
	if (gi->other_task)
		nop_field_bool(&f, "context_switch", NULL, true);
	nop_fields_close(&f);
	s->olen = f.len;
	return 0; /* a failed output is found where the buffer is written out (nop_sink_room), as text's */
}

/* A kernel event in the tree, at its task's depth: text as the kernel's
 * function_graph shows one, a comment "sched_switch: ...", JSON an
 * "event" object with its fields by name */
static __attribute__((noinline)) int event_line(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct nop_fields f;
	char text[GRAPH_EVENT_TEXT];
	struct line l = { .n = 0 };

	if (s->enc == NOP_ENC_JSON) {
		if (!nop_sink_room(s, GRAPH_LINE_MAX))
			return -1;
		nop_fields_open_at(&f, s->out, s->obuf, s->olen, NOP_SINK_OBUF);
		nop_field_str(&f, "type", NULL, "event");
		nop_field_u64(&f, "ts", NULL, gi->ts);
		nop_field_i64(&f, "cpu", NULL, gi->cpu);
		nop_field_i64(&f, "pid", NULL, gi->pid);
		nop_field_str(&f, "comm", NULL, nop_resolve_comm(s->res, gi->pid));
		nop_field_i64(&f, "depth", NULL, gi->depth);
		nop_sink_kevent_fields(s, &f, gi->event, gi->args);
		nop_fields_close(&f);
		s->olen = f.len;
		return 0;
	}
	if (!(l.b = nop_sink_room(s, GRAPH_LINE_ROOM)))
		return -1;
	task_prefix(s, &l, gi);
	pad(&l, 0, 16);
	put(&l, " | ", 3);
	pad(&l, 0, 2 * (size_t)gi->depth);
	nop_sink_kevent_text(s, text, sizeof(text), "/* %s: %s */", gi->event, gi->args);
	str(&l, text, 0);
	l.b[l.n++] = '\n';
	s->olen += l.n;
	return 0;
}

NOP_HOT int nop_graph_lines(struct nop_sink *s, const struct nop_gitem *gi)
{
	if (gi->kind == NOP_GI_EVENT)
		return event_line(s, gi);
	return s->enc == NOP_ENC_JSON ? json(s, gi) : text(s, gi);
}

/* probejoin.c - a kernel function's return value and arguments, fetched
 * by nopctl's probes, joined to the function_graph (or function tracer)
 * event of the call they belong to.
 *
 * The probe's event and the tracer's are written by the same task on the
 * same CPU, but not always side by side, and not in one order (seen in
 * the VM, trace-cmd report of nopctl's recordings):
 * - 6.12, fprobe arguments: funcgraph_entry do_sys_openat2, then the
 *   probe's own fetch of the filename string, traced as callees
 *   (strnlen_user_nofault, strncpy_from_user_nofault { ... }), then the
 *   arguments' event;
 * - 6.1, kretprobe: funcgraph_exit do_filp_open, then the return hook
 *   (kretprobe_rethook_handler { ... }) that writes the return value's
 *   event; its entry hook, pre_handler_kretprobe, shows as a callee.
 * So a call's event that expects a probe's waits, with the events of its
 * task queued behind it, until the probe's event for that function comes
 * (what came between is the probe's own work: left out), or until its
 * task shows the call is over (its caller returned, the function was
 * called again, QUEUE_MAX events): then everything goes on unjoined. A
 * probe's event that comes first waits for the call's, likewise, until its
 * task leaves the place where the call was to begin (an exit whose entry
 * came after the probe's event). Never another call's value.
 *
 * An interrupt can come between the two, and function_graph records its
 * calls as the task's: 6.19, fprobe arguments, in 1 of 300 opens in a
 * guest, do_sys_openat2__kargs, then more than 64 events of a timer
 * interrupt (raw_irqentry_exit_cond_resched, scheduler wake-ups, depths 1
 * to 12), then funcgraph_entry do_sys_openat2 at depth 0: a limit of 64
 * events would drop the value there; the
 * interrupt's calls are whole (each exit after its entry), so they do not
 * end a wait, and the queue grows to QUEUE_MAX.
 *
 * Where kprobes are not on ftrace (arm64), a return probe's entry handler
 * runs before the function tracer's callback and has put its trampoline
 * in the link register: the hit's parent is __kretprobe_trampoline. Such
 * a hit waits for its return probe's event, which records the address the
 * call returned to (__probe_ret_ip): its true parent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"

/* a task's last arguments are kept until their call's item is out of the
 * call-graph engine (at its first callee or its exit): a ring, as the
 * events of a task's CPUs can reach the engine out of order */
#define ARGS_RING 32
/* events queued behind a waiting call, or after a probe's value waiting
 * for its call: the probes' own work is a few function_graph events, an
 * interrupt between the two can add many more (above) */
#define QUEUE_MAX 16384

/* what a task's queued call waits for: its return value, its arguments,
 * or (a function tracer hit) its caller from the return probe */
enum { W_NONE, W_RET, W_ARGS, W_CALLER };

struct jtask {
	int pid;
	/* a call's event waiting for its probe's (q[0]), and the task's
	 * events after it */
	int wait;
	struct nop_event *q;
	int nq, qcap;
	/* a probe's event waiting for its call's; the task's events since,
	 * and of them the entries whose exits have not come */
	int pend, pend_age, pend_open;
	unsigned long long pend_fn;
	long long retval;
	char *pargs;
	size_t pcap;
	/* the probes' machinery (pre_handler_kretprobe...): its calls and
	 * their callees left out, down to this depth's exit (-1: none) */
	int skip_depth;
	/* arguments joined: the fetches of strings that follow are the
	 * probe's (6.12 writes the event between strnlen_user_nofault and
	 * strncpy_from_user_nofault) */
	bool after_args;
	char *ring[ARGS_RING];
	size_t cap[ARGS_RING];
	unsigned next;
	/* kernel events' fields queued behind a wait: copies, the decoder's
	 * own buffer being the next event's; freed once nothing waits */
	char **kept;
	size_t nkept, capkept;
};

struct nop_join {
	const struct nop_uprobes *u;
	nop_join_name_fn name;
	void *nctx;
	bool graph;
	struct jtask *t;
	size_t n, cap, last;
	struct { unsigned long long addr; signed char want; } cache[512];
	/* calls that went on without the value they waited for; probes'
	 * values that found no call (both say which side lost one) */
	unsigned long long missing, unclaimed;
};

struct nop_join *nop_join_new(const struct nop_uprobes *u, bool graph, nop_join_name_fn name, void *ctx)
{
	struct nop_join *j = calloc(1, sizeof(*j));

	if (j) {
		j->u = u;
		j->graph = graph;
		j->name = name;
		j->nctx = ctx;
	}
	return j;
}

void nop_join_free(struct nop_join *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		free(j->t[i].pargs);
		free(j->t[i].q);
		for (int d = 0; d < ARGS_RING; d++)
			free(j->t[i].ring[d]);
		for (size_t k = 0; k < j->t[i].nkept; k++)
			free(j->t[i].kept[k]);
		free(j->t[i].kept);
	}
	free(j->t);
	free(j);
}

/* the kernel's probe handlers, traced as callees of the probed function
 * where function_graph traces everything under it (6.1) */
static bool machinery(const char *name)
{
	static const char *const names[] = { "pre_handler_kretprobe", "kretprobe_rethook_handler",
					     "kretprobe_dispatcher", "rethook_trampoline_handler",
					     "fprobe_handler", "fprobe_exit_handler" };

	for (size_t i = 0; name && i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* a probe's fetch of memory (a string argument), traced where it runs */
static bool fetch(const char *name)
{
	return name && (!strncmp(name, "strncpy_from_", 13) || !strncmp(name, "strnlen_", 8) ||
			!strncmp(name, "copy_from_", 10)) && strstr(name, "_nofault");
}

/* a return probe's trampoline, standing in for a return address */
static bool probe_trampoline(struct nop_join *j, unsigned long long addr)
{
	const char *name = j->name(j->nctx, addr);

	return name && strstr(name, "_trampoline") && (strstr(name, "kretprobe") || strstr(name, "rethook"));
}

/* what the function at addr has: 1 a return probe, 2 an argument probe,
 * 4 it is the probes' machinery, 8 their fetch of memory */
static int wants(struct nop_join *j, unsigned long long addr)
{
	size_t s = (addr >> NOP_KFUNC_ALIGN_SHIFT) % ARRAY_SIZE(j->cache);
	const char *name;
	int w = 0;

	if ((addr & NOP_UKEY_MASK) == NOP_UKEY)
		return 0; /* a user function's */
	if (j->cache[s].addr == addr && j->cache[s].want)
		return j->cache[s].want - 1;
	name = j->name(j->nctx, addr);
	for (size_t i = 0; name && i < j->u->n; i++)
		if (j->u->v[i].kind != NOP_PROBE_USER && !strcmp(j->u->v[i].sym, name))
			w |= nop_probe_args(j->u->v[i].kind) ? 2 : 1;
	if (machinery(name))
		w |= 4;
	if (fetch(name))
		w |= 8;
	j->cache[s].addr = addr;
	j->cache[s].want = (signed char)(w + 1);
	return w;
}

/* one function, whatever address each event gives for it (a kprobe's is
 * the symbol's, function_graph's may be the patch site after an endbr64) */
static bool same_fn(struct nop_join *j, unsigned long long a, unsigned long long b)
{
	const char *na, *nb;

	if (a == b)
		return true;
	na = j->name(j->nctx, a);
	nb = na ? j->name(j->nctx, b) : NULL;
	return na && nb && !strcmp(na, nb);
}

static struct jtask *task(struct nop_join *j, int pid)
{
	bool added;
	struct jtask *t = nop_task_slot((void **)&j->t, &j->n, &j->cap, sizeof(*j->t), pid, &j->last, &added);

	if (t && added)
		t->skip_depth = -1;
	return t;
}

static int copy(char **dst, size_t *cap, const char *a)
{
	size_t n = nop_args_size(a);

	if (n > *cap) {
		char *p = realloc(*dst, n);

		if (!p)
			return -1;
		*dst = p;
		*cap = n;
	}
	memcpy(*dst, a, n);
	return 0;
}

/* the arguments a, kept where the call's event points */
static void attach_args(struct jtask *t, struct nop_event *ev, const char *a)
{
	unsigned k = t->next++ % ARGS_RING;

	if (!copy(&t->ring[k], &t->cap[k], a))
		ev->args = t->ring[k];
}

/* does ev show that the waiting call will get no probe event? */
static bool wait_over(struct nop_join *j, struct jtask *t, const struct nop_event *ev)
{
	const struct nop_event *c = &t->q[0];

	if (t->nq == QUEUE_MAX || ev->type == NOP_EV_LOST)
		return true;
	if (ev->type == NOP_EV_EXIT && c->type != NOP_EV_FUNC && ev->depth < c->depth)
		return true; /* its caller returned */
	if ((ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_FUNC) && same_fn(j, ev->ip, c->ip))
		return true; /* called again */
	return t->wait == W_ARGS && ev->type == NOP_EV_EXIT && ev->depth == c->depth &&
	       same_fn(j, ev->ip, c->ip); /* it returned */
}

static int task_event(struct nop_join *j, struct jtask *t, struct nop_event *ev, nop_emit_fn out,
		      void *ctx);
static int probe_event(struct nop_join *j, struct jtask *t, struct nop_event *ev, nop_emit_fn out,
		       void *ctx);

/* room for one more queued event: 0, or -1 (out of memory: the events go
 * on unjoined) */
static int queue_room(struct jtask *t)
{
	size_t cap = (size_t)t->qcap;

	if (nop_grow((void **)&t->q, &cap, (size_t)t->nq + 1, sizeof(*t->q)))
		return -1;
	t->qcap = (int)cap; /* at most QUEUE_MAX: a wait ends there */
	return 0;
}

/* a probe's value waiting for its call: is ev (not of that function) the
 * sign that its call will not come? An exit with no entry since the value
 * came (the task left where the call was to begin), or QUEUE_MAX events */
static bool pend_over(struct jtask *t, const struct nop_event *ev)
{
	if (++t->pend_age > QUEUE_MAX)
		return true;
	if (ev->type == NOP_EV_ENTRY)
		t->pend_open++;
	else if (ev->type == NOP_EV_EXIT && t->pend_open-- == 0)
		return true;
	return false;
}

/* the waiting call goes on, with the events behind it, each taken as if
 * it came now (one may wait in turn); joined, without the probe's own work
 * among them (its fetches and handlers, each with its callees; one still
 * open is left out to its end) */
static int release(struct nop_join *j, struct jtask *t, bool joined, nop_emit_fn out, void *ctx)
{
	/* the queue is taken whole: an event of it may start a wait in turn */
	struct nop_event *q = t->q;
	int n = t->nq, cap = t->qcap, skip = -1, ret;

	t->q = NULL;
	t->qcap = 0;
	j->missing += !joined;
	t->wait = W_NONE;
	t->nq = 0;
	ret = out(ctx, &q[0]);
	for (int i = 1; i < n && !ret; i++) {
		/* the probes' machinery (4) or their fetch of memory (8) */
		bool work = joined && (q[i].type == NOP_EV_ENTRY || q[i].type == NOP_EV_EXIT) &&
			    (wants(j, q[i].ip) & (4 | 8));

		if (skip >= 0) { /* inside a call of the probe's work (joined only) */
			if (q[i].type == NOP_EV_EXIT && q[i].depth <= skip)
				skip = -1;
		} else if (work && q[i].type == NOP_EV_ENTRY) {
			skip = q[i].depth;
		} else if (!work) { /* (a return value queued behind a hit waiting for its caller) */
			ret = q[i].type == NOP_EV_RETVAL ? probe_event(j, t, &q[i], out, ctx)
							 : task_event(j, t, &q[i], out, ctx);
		}
	}
	if (skip >= 0 && !ret)
		t->skip_depth = skip;
	if (!t->q) { /* kept for the next wait */
		t->q = q;
		t->qcap = cap;
	} else {
		free(q);
	}
	return ret;
}

static int probe_event(struct nop_join *j, struct jtask *t, struct nop_event *ev, nop_emit_fn out,
		       void *ctx)
{
	bool ret_ev = ev->type == NOP_EV_RETVAL;
	int ret;

	if (t->wait == W_CALLER && ret_ev) {
		if (!same_fn(j, t->q[0].ip, ev->ip)) /* a callee's: a line after the call's */
			return task_event(j, t, ev, out, ctx);
		if (ev->ucaller)
			t->q[0].parent_ip = ev->ucaller;
		if ((ret = release(j, t, true, out, ctx)))
			return ret;
		return out(ctx, ev);
	}
	if (t->wait == (ret_ev ? W_RET : W_ARGS) && same_fn(j, t->q[0].ip, ev->ip)) {
		if (ret_ev) {
			t->q[0].retval = ev->retval;
			t->q[0].has_retval = true;
			return release(j, t, true, out, ctx);
		}
		attach_args(t, &t->q[0], ev->args);
		ret = release(j, t, true, out, ctx);
		t->after_args = true; /* (after the events it released) */
		return ret;
	}
	if (ret_ev && !j->graph && !t->wait)
		return out(ctx, ev); /* the function tracer's: a line of its own */
	j->unclaimed += t->pend != W_NONE;
	t->pend = ret_ev ? W_RET : (copy(&t->pargs, &t->pcap, ev->args) ? W_NONE : W_ARGS);
	t->pend_age = 0;
	t->pend_open = 0;
	t->pend_fn = ev->ip;
	t->retval = ev->retval;
	return 0;
}

/* a call's event, or any other, with no call waiting on its task */
static int call_event(struct nop_join *j, struct jtask *t, struct nop_event *ev, nop_emit_fn out,
		      void *ctx)
{
	bool entry = ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_FUNC;
	int w = entry || ev->type == NOP_EV_EXIT ? wants(j, ev->ip) : 0, wait;

	if (t->skip_depth >= 0) { /* inside the probes' machinery */
		if (ev->type == NOP_EV_EXIT && ev->depth <= t->skip_depth)
			t->skip_depth = -1;
		return 0;
	}
	if (t->after_args && (w & 8) && ev->type == NOP_EV_ENTRY)
		w |= 4; /* (and the next string's fetch after it) */
	else
		t->after_args = false;
	if ((w & 4) && ev->type == NOP_EV_ENTRY) {
		t->skip_depth = ev->depth;
		return 0;
	}
	if (w & 4)
		return 0;
	if (t->pend && same_fn(j, t->pend_fn, ev->ip)) {
		if (t->pend == W_RET && ev->type == NOP_EV_EXIT) {
			ev->retval = t->retval;
			ev->has_retval = true;
			t->pend = W_NONE;
			return out(ctx, ev);
		}
		if (t->pend == W_ARGS && entry) {
			attach_args(t, ev, t->pargs);
			t->after_args = true;
			t->pend = W_NONE;
			return out(ctx, ev);
		}
		t->pend = W_NONE; /* the function again, the value unclaimed: stale */
		j->unclaimed++;
	}
	if (t->pend && pend_over(t, ev)) {
		t->pend = W_NONE;
		j->unclaimed++;
	}
	/* a call's event that waits: an exit for its value, an entry for its
	 * arguments, a hit for the caller its return probe records */
	wait = ev->type == NOP_EV_EXIT && (w & 1) ? W_RET
	       : entry && (w & 2) ? W_ARGS
	       : ev->type == NOP_EV_FUNC && (w & 1) && probe_trampoline(j, ev->parent_ip) ? W_CALLER
	       : W_NONE;
	if (wait && !queue_room(t)) {
		t->wait = wait;
		t->q[t->nq++] = *ev;
		return 0;
	}
	return out(ctx, ev);
}

/* a kernel event's fields, copied to wait in the queue (NULL: out of
 * memory, the event waits without them) */
static const char *keep_fields(struct jtask *t, const char *a)
{
	char *c;

	if (!a || nop_grow((void **)&t->kept, &t->capkept, t->nkept + 1, sizeof(*t->kept)) ||
	    !(c = malloc(nop_args_size(a))))
		return NULL;
	memcpy(c, a, nop_args_size(a));
	return t->kept[t->nkept++] = c;
}

/* a task's event other than a probe's */
static int task_event(struct nop_join *j, struct jtask *t, struct nop_event *ev, nop_emit_fn out,
		      void *ctx)
{
	int ret;

	while (t->wait) { /* (one of a released queue may wait in turn) */
		if (!wait_over(j, t, ev) && !queue_room(t)) {
			if (ev->type == NOP_EV_KEVENT)
				ev->args = keep_fields(t, ev->args);
			t->q[t->nq++] = *ev;
			return 0;
		}
		if ((ret = release(j, t, false, out, ctx)))
			return ret;
	}
	return call_event(j, t, ev, out, ctx);
}

int nop_join_event(struct nop_join *j, const struct nop_event *in, nop_emit_fn out, void *ctx)
{
	struct nop_event ev = *in;
	struct jtask *t;
	int ret;

	if (ev.type == NOP_EV_COUNTS || ev.type == NOP_EV_STACK ||
	    (ev.type == NOP_EV_LOST && !j->n) || !(t = task(j, ev.pid)))
		return out(ctx, &ev); /* (out of memory: shown unjoined) */
	if (ev.type == NOP_EV_LOST) { /* every wait ends: the events may be gone */
		for (size_t i = 0; i < j->n; i++)
			while (j->t[i].wait)
				if ((ret = release(j, &j->t[i], false, out, ctx)))
					return ret;
		return out(ctx, &ev);
	}
	if (ev.type == NOP_EV_RETVAL || ev.type == NOP_EV_ARGS)
		ret = probe_event(j, t, &ev, out, ctx);
	else
		ret = task_event(j, t, &ev, out, ctx);
	if (!t->wait && t->nkept) { /* every queued event went on */
		for (size_t k = 0; k < t->nkept; k++)
			free(t->kept[k]);
		t->nkept = 0;
	}
	return ret;
}

int nop_join_finish(struct nop_join *j, nop_emit_fn out, void *ctx)
{
	int ret = 0;

	for (size_t i = 0; i < j->n && !ret; i++) {
		while (j->t[i].wait && !ret)
			ret = release(j, &j->t[i], false, out, ctx);
		j->unclaimed += j->t[i].pend != W_NONE;
		j->t[i].pend = W_NONE;
	}
	return ret;
}

void nop_join_misses(const struct nop_join *j, unsigned long long *missing, unsigned long long *unclaimed)
{
	*missing = j ? j->missing : 0;
	*unclaimed = j ? j->unclaimed : 0;
}

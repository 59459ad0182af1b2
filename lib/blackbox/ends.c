/* ends.c - where a saved black box stopped: the last event of each CPU
 * and of each task, named, and whether that call was still open (its
 * entry recorded, its return never: the call the box stopped in). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blackbox/blackbox.h"

struct last {
	unsigned long long ts, ip;
	int cpu, pid, depth;
	bool open, set;
};

struct ends {
	struct last *cpu; /* by CPU */
	int ncpu;
	struct nop_strmap *task; /* by pid */
};

static void take(struct last *l, const struct nop_event *ev)
{
	/* a return closes its call; the caller it returns to is open still
	 * (function_graph: depth > 0), as far as this buffer tells */
	l->set = true;
	l->ts = ev->ts;
	l->ip = ev->ip;
	l->cpu = ev->cpu;
	l->pid = ev->pid;
	l->open = ev->type == NOP_EV_ENTRY;
	l->depth = ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_EXIT ? ev->depth : 0;
}

static int on_event(void *ctx, const struct nop_event *ev)
{
	struct ends *e = ctx;
	char key[16];
	struct last *t;

	if (ev->type != NOP_EV_FUNC && ev->type != NOP_EV_ENTRY && ev->type != NOP_EV_EXIT)
		return 0;
	if (ev->cpu >= 0 && ev->cpu >= e->ncpu) {
		struct last *n = realloc(e->cpu, (size_t)(ev->cpu + 1) * sizeof(*n));

		if (!n)
			return -1;
		memset(n + e->ncpu, 0, (size_t)(ev->cpu + 1 - e->ncpu) * sizeof(*n));
		e->cpu = n;
		e->ncpu = ev->cpu + 1;
	}
	if (ev->cpu >= 0)
		take(&e->cpu[ev->cpu], ev);
	snprintf(key, sizeof(key), "%d", ev->pid);
	if (!(t = nop_strmap_get(e->task, key)))
		return -1;
	take(t, ev);
	return 0;
}

static int give(struct nop_resolver *res, const struct last *l, bool per_cpu,
		int (*fn)(void *ctx, const struct nop_bbox_end *e), void *ctx)
{
	struct nop_bbox_end e = { .per_cpu = per_cpu, .cpu = l->cpu, .pid = l->pid, .ts = l->ts, .open = l->open };
	unsigned long long off = 0;
	const char *sym = nop_resolve_sym(res, l->ip, &off), *comm = nop_resolve_comm(res, l->pid);

	if (sym)
		snprintf(e.func, sizeof(e.func), "%s", sym);
	else
		snprintf(e.func, sizeof(e.func), "0x%llx", l->ip);
	snprintf(e.comm, sizeof(e.comm), "%s", comm ? comm : "<...>");
	return fn(ctx, &e);
}

int nop_bbox_ends(const char *path, int (*fn)(void *ctx, const struct nop_bbox_end *e), void *ctx,
		  struct nop_error *err)
{
	struct ends e = { 0 };
	struct nop_source *src = NULL;
	struct nop_resolver *res = NULL;
	bool more = true;
	int ret = -1;

	if (!(e.task = nop_strmap_new(sizeof(struct last)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	if (nop_source_file(&src, path, &res, err))
		goto out;
	while (more) {
		int r = src->ops->drain(src, on_event, &e, &more, err);

		if (r && !err->status) /* on_event's: out of memory */
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		if (r)
			goto out;
	}
	ret = 0;
	for (int c = 0; c < e.ncpu && !ret; c++)
		if (e.cpu[c].set)
			ret = give(res, &e.cpu[c], true, fn, ctx);
	for (size_t i = 0; i < nop_strmap_size(e.task) && !ret; i++) {
		const char *pid;

		ret = give(res, nop_strmap_at(e.task, i, &pid), false, fn, ctx);
	}
out:
	nop_resolver_free(res);
	nop_source_close(src);
	nop_strmap_free(e.task);
	free(e.cpu);
	return ret;
}

/* sink_chrome.c - Chrome trace-event JSON, which Perfetto UI and
 * chrome://tracing open: one complete ("X") event per call, microseconds,
 * a thread-name record for each task. */
#include <stdlib.h>

#include "sink/sink.h"

struct chrome {
	bool started;
	int *named; /* pids already given a thread name */
	size_t nnamed, cap;
};

static void sep(struct nop_sink *s, struct chrome *c)
{
	if (!c->started) {
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", s->out);
		c->started = true;
	} else {
		fputs(",\n", s->out);
	}
}

static void name_thread(struct nop_sink *s, struct chrome *c, int pid)
{
	for (size_t i = 0; i < c->nnamed; i++)
		if (c->named[i] == pid)
			return;
	if (nop_grow((void **)&c->named, &c->cap, c->nnamed + 1, sizeof(int)) == 0)
		c->named[c->nnamed++] = pid;
	sep(s, c);
	fprintf(s->out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", pid, pid);
	nop_json_str(s->out, nop_resolve_comm(s->res, pid));
	fputs("}}", s->out);
}

/* a kernel event: an instant ("i") on its task's track, its fields as
 * the event's args */
static int chrome_event(struct nop_sink *s, struct chrome *c, const struct nop_gitem *gi)
{
	sep(s, c);
	fputs("{\"name\":", s->out);
	nop_json_str(s->out, gi->event);
	fprintf(s->out, ",\"cat\":\"event\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%llu.%03llu,\"pid\":%d,\"tid\":%d,\"args\":%s}",
		gi->ts / 1000, gi->ts % 1000, gi->pid, gi->pid, gi->args ? nop_args_json(gi->args) : "{}");
	return ferror(s->out) ? -1 : 0;
}

static int chrome_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct chrome *c;
	unsigned long long start;

	if ((gi->kind == NOP_GI_ENTER || !gi->timed) && gi->kind != NOP_GI_EVENT)
		return 0;
	if (!s->priv && nop_sink_priv(s, sizeof(struct chrome), NULL))
		return -1;
	c = s->priv;
	name_thread(s, c, gi->pid);
	if (gi->kind == NOP_GI_EVENT)
		return chrome_event(s, c, gi);
	start = gi->kind == NOP_GI_RETURN ? gi->ts - gi->duration : gi->ts;
	sep(s, c);
	fputs("{\"name\":", s->out);
	nop_json_str(s->out, nop_sink_func(s, gi->func));
	fprintf(s->out, ",\"cat\":\"function\",\"ph\":\"X\",\"ts\":%llu.%03llu,\"dur\":%llu.%03llu,"
			"\"pid\":%d,\"tid\":%d,\"args\":{\"depth\":%d}}",
		start / 1000, start % 1000, gi->duration / 1000, gi->duration % 1000, gi->pid, gi->pid,
		gi->depth);
	return ferror(s->out) ? -1 : 0;
}

static int chrome_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct chrome *c = s->priv;

	if (!c || !c->started)
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", s->out);
	fputs("\n]}\n", s->out);
	return nop_summary_to_diag(s, sum);
}

static void chrome_free(struct nop_sink *s)
{
	struct chrome *c = s->priv;

	if (c)
		free(c->named);
}

const struct nop_sink_ops nop_chrome_ops = {
	.graph = chrome_graph,
	.summary = chrome_summary,
	.free = chrome_free,
};

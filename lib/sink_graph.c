/* sink_graph.c - function_graph calls as lines: the kernel's own tree
 * view for people, entry/call/exit objects for scripts. */
#include <string.h>

#include "internal.h"

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

struct graph_text {
	int last_pid[NOP_MAX_CPUS];
	bool seen[NOP_MAX_CPUS];
};

static void task_switch(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct graph_text *g = s->priv;

	if (gi->cpu < 0 || gi->cpu >= NOP_MAX_CPUS)
		return;
	if (g->seen[gi->cpu] && g->last_pid[gi->cpu] != gi->pid) {
		int old = g->last_pid[gi->cpu];

		fprintf(s->out, " ------------------------------------------\n");
		fprintf(s->out, " %3d) %16s-%-6d =>  %s-%d\n", gi->cpu, nop_resolve_comm(s->res, old), old,
			nop_resolve_comm(s->res, gi->pid), gi->pid);
		fprintf(s->out, " ------------------------------------------\n\n");
	}
	g->seen[gi->cpu] = true;
	g->last_pid[gi->cpu] = gi->pid;
}

static int text(struct nop_sink *s, const struct nop_gitem *gi)
{
	const char *fn = nop_sink_func(s, gi->func);
	char dur[32] = "";

	if (!s->priv && nop_sink_priv(s, sizeof(struct graph_text), NULL))
		return -1;
	task_switch(s, gi);
	if (gi->timed && gi->kind != NOP_GI_ENTER)
		snprintf(dur, sizeof(dur), "%c %7llu.%03llu us", marker(gi->duration), gi->duration / 1000,
			 gi->duration % 1000);
	fprintf(s->out, " %3d) %16s-%-6d | %16s | %*s", gi->cpu, nop_resolve_comm(s->res, gi->pid),
		gi->pid, dur, 2 * gi->depth, "");
	switch (gi->kind) {
	case NOP_GI_ENTER:
		fprintf(s->out, "%s() {\n", fn);
		break;
	case NOP_GI_LEAF:
		fprintf(s->out, "%s();%s", fn, gi->no_entry ? " /* entered before the capture or in a gap */" : "");
		if (gi->has_retval)
			fprintf(s->out, " /* = %lld */", gi->retval);
		fputc('\n', s->out);
		break;
	case NOP_GI_RETURN:
		fprintf(s->out, "} /* %s%s */", fn, gi->timed ? "" : ": exit not seen");
		if (gi->has_retval)
			fprintf(s->out, " /* = %lld */", gi->retval);
		fputc('\n', s->out);
		break;
	}
	return ferror(s->out) ? -1 : 0;
}

static int json(struct nop_sink *s, const struct nop_gitem *gi)
{
	static const char *const type[] = { "entry", "call", "exit" };
	struct nop_fields f;

	nop_fields_open(&f, s->out, true);
	nop_field_str(&f, "type", NULL, type[gi->kind]);
	nop_field_u64(&f, "ts", NULL, gi->ts);
	nop_field_i64(&f, "cpu", NULL, gi->cpu);
	nop_field_i64(&f, "pid", NULL, gi->pid);
	nop_field_str(&f, "comm", NULL, nop_resolve_comm(s->res, gi->pid));
	nop_field_str(&f, "func", NULL, nop_sink_func(s, gi->func));
	nop_field_i64(&f, "depth", NULL, gi->depth);
	if (gi->kind != NOP_GI_ENTER) {
		if (gi->timed) {
			nop_field_u64(&f, "duration_ns", NULL, gi->duration);
			nop_field_u64(&f, "self_ns", NULL, gi->self);
		} else {
			nop_field_str(&f, "duration_ns", NULL, NULL);
			nop_field_str(&f, "self_ns", NULL, NULL);
		}
		if (gi->has_retval)
			nop_field_i64(&f, "retval", NULL, gi->retval);
		if (gi->no_entry)
			nop_field_str(&f, "entry", NULL, "not seen");
		if (!gi->timed)
			nop_field_str(&f, "exit", NULL, "not seen");
	}
	nop_fields_close(&f);
	return ferror(s->out) ? -1 : 0;
}

int nop_graph_lines(struct nop_sink *s, const struct nop_gitem *gi)
{
	return s->fmt == NOP_FMT_JSON ? json(s, gi) : text(s, gi);
}

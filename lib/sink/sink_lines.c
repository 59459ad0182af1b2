/* sink_lines.c - the event stream as lines: text for people (like the
 * kernel's own function tracer output) or JSON lines for scripts, from
 * the same calls. JSON keys are documented in nopctl(1). */
#include <string.h>

#include "sink/sink.h"

/* kernel/trace/trace.h: newer kernels record ftrace's trampoline in a
 * stack as this marker (INT_MAX) */
#define FTRACE_TRAMPOLINE_MARKER 0x7fffffffULL

void nop_sink_sym(struct nop_sink *s, unsigned long long addr, char *buf, size_t len, bool off)
{
	unsigned long long o = 0;
	const char *name = nop_resolve_sym(s->res, addr, &o);

	if (addr == FTRACE_TRAMPOLINE_MARKER)
		snprintf(buf, len, "[FTRACE TRAMPOLINE]");
	else if (!name)
		snprintf(buf, len, "0x%llx", addr);
	else if (off && o)
		snprintf(buf, len, "%s+0x%llx", name, o);
	else
		snprintf(buf, len, "%s", name);
	nop_sink_text_in(s, buf, len);
}

static void stack_field(struct nop_sink *s, struct nop_fields *f, const struct nop_event *ev)
{
	char name[NOP_NAME_MAX + 32];

	nop_field_array_open(f, "stack");
	for (int i = 0; i < ev->nstack; i++) {
		nop_sink_sym(s, ev->stack[i], name, sizeof(name), true);
		nop_field_item_str(f, "\n => %s", name);
	}
	nop_field_array_close(f);
}

/* a line's task: text "comm-pid [cpu] ", JSON type, ts, cpu, pid, comm */
static void task_fields(struct nop_sink *s, struct nop_fields *f, const struct nop_event *ev, const char *type)
{
	if (!f->json)
		fprintf(s->out, "%16s-%-7d [%03d] ", nop_sink_comm(s, ev->pid), ev->pid, ev->cpu);
	nop_field_str(f, "type", NULL, type);
	nop_field_ts(f, "ts", ev->ts);
	nop_field_u64(f, "cpu", NULL, (unsigned long long)ev->cpu);
	nop_field_i64(f, "pid", NULL, ev->pid);
	nop_field_str(f, "comm", NULL, nop_resolve_comm(s->res, ev->pid));
}

static int lines_event(struct nop_sink *s, const struct nop_event *ev)
{
	struct nop_fields f;
	char fn[NOP_NAME_MAX + 32], parent[NOP_NAME_MAX + 32];
	bool json = s->enc == NOP_ENC_JSON;

	if (nop_sink_spill(s))
		return -1;
	nop_fields_open(&f, s->out, json);
	switch (ev->type) {
	case NOP_EV_LOST:
		nop_field_str(&f, "type", NULL, "lost");
		nop_field_ts(&f, "ts", ev->ts);
		nop_field_u64(&f, "cpu", "CPU:%llu ", (unsigned long long)ev->cpu);
		if (ev->lost < 0)
			nop_field_str(&f, "count", "[LOST %s EVENTS]", NULL);
		else
			nop_field_i64(&f, "count", "[LOST %lld EVENTS]", ev->lost);
		nop_field_str(&f, "source", NULL, "page");
		break;
	case NOP_EV_RETVAL: /* a kernel function returned (--retval) */
		task_fields(s, &f, ev, "return");
		nop_sink_sym(s, ev->ip, fn, sizeof(fn), false);
		nop_field_str(&f, "func", "%s", fn);
		nop_field_i64(&f, "retval", " = %lld", ev->retval);
		if (nop_errno_name(ev->retval))
			nop_field_str(&f, "error", " (%s)", nop_errno_name(ev->retval));
		break;
	case NOP_EV_FUNC:
	case NOP_EV_STACK:
		task_fields(s, &f, ev, ev->type == NOP_EV_FUNC ? "func" : "stack");
		if (ev->type == NOP_EV_FUNC && nop_resolve_uprobe(s->res, ev->ip)) {
			/* a user function: its binary where a kernel hit has its
			 * parent */
			nop_field_str(&f, "func", "%s", nop_sink_func(s, ev->ip));
			if (ev->args) { /* --args: its parameters, by their DWARF names */
				if (!json)
					fprintf(s->out, "(%s)", ev->args);
				nop_field_json(&f, "args", nop_args_json(ev->args));
			}
			if (nop_resolve_binary(s->res, ev->ip))
				nop_field_str(&f, "binary", " [%s]", nop_sink_text(s, nop_resolve_binary(s->res, ev->ip)));
		} else if (ev->type == NOP_EV_FUNC) {
			nop_sink_sym(s, ev->ip, fn, sizeof(fn), false);
			nop_sink_sym(s, ev->parent_ip, parent, sizeof(parent), false);
			nop_field_str(&f, "func", "%s", fn);
			if (ev->args) {
				if (!json)
					fprintf(s->out, "(%s)", ev->args);
				nop_field_json(&f, "args", nop_args_json(ev->args));
			}
			nop_field_str(&f, "parent", " <-%s", parent);
		} else {
			nop_field_str(&f, "func", "<stack trace>", NULL);
		}
		if (ev->nstack)
			stack_field(s, &f, ev);
		break;
	case NOP_EV_KEVENT: /* a kernel event (-e) among the hits */
		task_fields(s, &f, ev, "event");
		nop_sink_kevent_fields(s, &f, ev->ename, ev->args);
		break;
	default: /* function_graph events come through the graph op */
		break;
	}
	nop_fields_close(&f);
	return ferror(s->out) ? -1 : 0;
}

const struct nop_sink_ops nop_lines_ops = {
	.event = lines_event,
	.graph = nop_graph_lines,
	.summary = nop_summary_write,
};

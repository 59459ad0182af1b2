/* summary.c - the run summary every view ends with: what was shown, what
 * was lost and where, why the run stopped (text on the diagnostic
 * stream, or one JSON object on the output); catch's line per catch. */
#include <stdio.h>

#include "sink/sink.h"

int nop_summary_write(struct nop_sink *s, const struct nop_summary *sum)
{
	bool json = s->enc == NOP_ENC_JSON;
	struct nop_fields f;
	FILE *out = json ? s->out : s->diag;

	if (nop_sink_spill(s))
		return -1;
	if (!json && (s->quiet || !out))
		return 0;
	nop_fields_open(&f, out, json);
	nop_field_str(&f, "type", "nopctl: ", "summary");
	/* what was counted: calls under function_graph (an entry and its
	 * exit are one), hits of the function tracer otherwise */
	nop_field_u64(&f, "events", sum->graph ? "%llu call" : "%llu event", sum->events);
	if (!json && sum->events != 1)
		fputc('s', out);
	nop_field_str(&f, "counted", NULL, sum->graph ? "calls" : "events");
	if (sum->kevents || sum->kevents_asked)
		nop_field_u64(&f, "kernel_events", " and %llu kernel events", sum->kevents);
	nop_field_u64(&f, "duration_ns", NULL, sum->duration_ns);
	if (!json)
		fprintf(out, " in %.3f s", sum->duration_ns / 1e9);
	/* text: the kernel's loss counters only where one moved; JSON: all */
	if (!json && !sum->lost_pages && !sum->overrun && !sum->dropped)
		fputs(", nothing lost", out);
	nop_field_i64(&f, "lost", sum->lost_pages ? ", lost %lld (page headers)" : NULL, sum->lost_pages);
	nop_field_u64(&f, "overrun", sum->overrun ? ", overrun %llu" : NULL, sum->overrun);
	nop_field_u64(&f, "dropped", sum->dropped ? ", dropped %llu" : NULL, sum->dropped);
	if (sum->by_task)
		nop_field_u64(&f, "other_tasks", sum->other_tasks ? ", %llu of other tasks (context switches)" : NULL,
			      sum->other_tasks);
	if (sum->exit_status >= 0)
		nop_field_i64(&f, "exit_status", ", command exited %lld", sum->exit_status);
	nop_field_str(&f, "stop", ", stopped by %s", sum->stop_reason);
	if ((json && sum->live) || sum->unread)
		nop_field_u64(&f, "unread", ", %llu left unread in the buffer", sum->unread);
	if (sum->graph && (json || sum->no_entry))
		nop_field_u64(&f, "no_entry", sum->no_entry == 1 ? ", %llu call whose entry was not seen"
								 : ", %llu calls whose entry was not seen",
			      sum->no_entry);
	if (sum->graph && (json || sum->no_exit))
		nop_field_u64(&f, "no_exit", sum->no_exit == 1 ? ", %llu call whose exit was not seen"
							       : ", %llu calls whose exit was not seen",
			      sum->no_exit);
	if (sum->graph && (json || sum->gaps))
		nop_field_u64(&f, "gaps", ", %llu events lost by the kernel (missing mid-capture)",
			      sum->gaps);
	if (sum->joined && (json || sum->values_missing))
		nop_field_u64(&f, "values_missing", ", %llu calls without their probe's value",
			      sum->values_missing);
	if (sum->joined && (json || sum->values_unclaimed))
		nop_field_u64(&f, "values_unclaimed", ", %llu probe values matched to no call",
			      sum->values_unclaimed);
	if (sum->catching) {
		nop_field_u64(&f, "roots", sum->roots == 1 ? ", %llu root call" : ", %llu root calls", sum->roots);
		nop_field_u64(&f, "caught", ", %llu caught", sum->caught);
		nop_field_u64(&f, "not_whole", sum->not_whole ? ", %llu more too big to keep whole"
							   " (over a million calls)" : NULL, sum->not_whole);
		if (sum->gated) {
			nop_field_str(&f, "gate", NULL, "kernel");
			nop_field_u64(&f, "snapshots", ", judged in the kernel (%llu snapshots", sum->snapshots);
			nop_field_u64(&f, "hits", ", %llu calls met the condition)", sum->hits);
			nop_field_u64(&f, "missed", sum->missed ? ", %llu of them not shown (overwritten before"
				      " a snapshot: a larger -b KB keeps them)" : NULL, sum->missed);
		} else {
			nop_field_str(&f, "gate", NULL, "user");
		}
		if (sum->warmup) {
			nop_field_u64(&f, "warmup", ", outliers judged after %llu calls of a function", sum->warmup);
			nop_field_u64(&f, "warming", " (%llu root calls came before)", sum->warming);
		}
	}
	if (nop_off_total(sum->root_off)) {
		char on[32], off[160], js[200];
		unsigned long long o = nop_off_total(sum->root_off);

		nop_fmt_duration(on, sizeof(on), sum->root_ns > o ? sum->root_ns - o : 0);
		nop_fmt_off(off, sizeof(off), sum->root_off);
		nop_field_u64(&f, "root_ns", NULL, sum->root_ns);
		nop_field_u64(&f, "off_cpu_ns", NULL, o);
		nop_field_json(&f, "off_cpu", nop_off_json(js, sizeof(js), sum->root_off));
		if (!json)
			fprintf(out, ", root calls %s on CPU and %s off", on, off);
	}
	if (sum->offcpu_unpaired)
		nop_field_u64(&f, "offcpu_unpaired", ", %llu off-CPU intervals without their switch back"
			      " (the kernel did not record it; their time is counted only up to the task's"
			      " next event on another CPU)", sum->offcpu_unpaired);
	if (sum->offcpu_unpaired_out)
		nop_field_u64(&f, "offcpu_unpaired_out", ", %llu off-CPU intervals without their switch out"
			      " (the kernel did not record it; their time is counted from the task's last event"
			      " before, in state ?)", sum->offcpu_unpaired_out);
	if (sum->thresh_ns) {
		nop_field_u64(&f, "threshold_ns", NULL, sum->thresh_ns);
		if (!json)
			fprintf(out, ", calls under %g us not recorded: their time is in their"
				" callers' self time", sum->thresh_ns / 1e3);
	} else if (sum->returns_only) {
		nop_field_bool(&f, "returns_only", NULL, true);
		if (!json)
			fputs(", only returns recorded (tracing_thresh): the time of calls under the"
			      " threshold is in their callers' self time", out);
	}
	/* a buffer seen 3/4 full came close to losing events */
	if (json ? sum->peak_fill > 0 : sum->peak_fill >= 75)
		nop_field_i64(&f, "buffer_peak_pct", ", buffer %lld%% full at its peak",
			      sum->peak_fill);
	if (json && sum->warning)
		nop_field_str(&f, "warning", NULL, sum->warning);
	nop_fields_close(&f);
	return 0;
}

int nop_catch_write(struct nop_sink *s, const struct nop_caught *c, const char *file)
{
	static const char *const why[] = { [NOP_CATCH_SLOWER] = "slower", [NOP_CATCH_ERROR] = "error",
					   [NOP_CATCH_OUTLIER] = "outlier", [NOP_CATCH_ASKED] = "signal" };
	const struct nop_gitem *r = c->root;
	bool json = s->enc == NOP_ENC_JSON, picture = s->ops != &nop_lines_ops;
	bool done = r->kind != NOP_GI_ENTER, timed = done && r->timed;
	bool failed = done && r->has_retval && nop_is_errno(r->retval);
	FILE *out = picture ? s->diag : s->out;
	struct nop_fields f;
	char d[32], lim[32];

	if (nop_sink_spill(s))
		return -1;
	if (!out || (picture && s->quiet))
		return 0;
	json = json && !picture;
	nop_fmt_duration(d, sizeof(d), timed ? r->duration : 0);
	nop_fmt_duration(lim, sizeof(lim), c->limit_ns);
	nop_fields_open(&f, out, json);
	nop_field_str(&f, "type", picture ? "nopctl: catch" : "# catch", "catch");
	nop_field_u64(&f, "catch", " %llu:", c->seq);
	nop_field_str(&f, "function", " %s", nop_sink_func(s, r->func));
	nop_field_str(&f, "task", " %s", nop_sink_comm(s, r->pid));
	nop_field_i64(&f, "pid", "-%lld", r->pid);
	nop_field_u64(&f, "ts_ns", NULL, c->from);
	if (timed)
		nop_field_u64(&f, "duration_ns", NULL, r->duration);
	else
		nop_field_str(&f, "duration_ns", NULL, NULL);
	if (!json)
		fprintf(out, " %s", timed ? d : done ? "(not timed)" : "still running");
	if (failed) {
		const char *en = nop_retval_errno(r->retval, (r->func & NOP_UKEY_MASK) == NOP_UKEY);

		nop_field_i64(&f, "retval", en ? NULL : " = %lld", r->retval);
		nop_field_str(&f, "errno", en ? " %s" : NULL, en);
	} else {
		nop_field_str(&f, "errno", NULL, NULL);
	}
	nop_field_str(&f, "reason", NULL, why[c->why]);
	if (c->why == NOP_CATCH_SLOWER || c->why == NOP_CATCH_OUTLIER)
		nop_field_u64(&f, "limit_ns", NULL, c->limit_ns);
	if (!json)
		fprintf(out, c->why == NOP_CATCH_SLOWER	   ? ", slower than %s"
			     : c->why == NOP_CATCH_ERROR   ? ", failed"
			     : c->why == NOP_CATCH_OUTLIER ? ", over its p99 of %s"
							   : ", open when SIGUSR1 came",
			lim);
	nop_field_u64(&f, "calls", ", %llu calls", c->calls);
	nop_field_str(&f, "file", file ? " in %s" : NULL, file);
	nop_fields_close(&f);
	return 0;
}

/* Pictures keep their output to themselves: the run's summary goes to
 * the diagnostic stream as text. */
int nop_summary_to_diag(struct nop_sink *s, const struct nop_summary *sum)
{
	struct nop_sink text = { .enc = NOP_ENC_TEXT, .diag = s->diag, .quiet = s->quiet };

	return nop_summary_write(&text, sum);
}

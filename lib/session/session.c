/* session.c - one tracing session: a private instance where the kernel
 * runs the tracer there, else the top level if nobody else uses it.
 * Every write goes through sess_write(), which journals top-level files
 * before their first change; nop_session_close() replays the journal.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session/session.h"

const char *const nop_process_events[NOP_NPROCESS_EVENTS] = { "task/task_newtask", "sched/sched_process_exec",
								 "task/task_rename" };
const char *const nop_switch_events[NOP_NSWITCH_EVENTS] = { "sched/sched_switch", "sched/sched_wakeup" };

struct nop_session {
	const char *tracing_dir;
	char dir[4096];	     /* where the buffer and its files are */
	char instance[64];   /* empty at the top level */
	struct nop_journal *journal;
	char **journaled;    /* top-level files already written down */
	size_t njournaled, capj;
	struct nop_session_cfg cfg;
	int lock_fd;	     /* top-level lock, held while the session lives */
	int hold_fd;	     /* a file of our instance, open while the session lives */
	char note[320];	     /* another user's shared setting that shapes ours */
	char *pids;	     /* set_ftrace_pid as last read (nop_session_traces) */
	bool took_shared;    /* holds settings in the shared registry (shared.c) */
	char group[64];	     /* probe events' group, "" without any */
	/* in a nested PID namespace (pidns.c): cfg.pids and nopctl itself
	 * as the kernel knows them; else cfg.pids and getpid() */
	pid_t *kpids, self;
	/* when the pid lists were written, in clock ticks since boot (as
	 * /proc/PID/stat's starttime): a task started before was not followed */
	unsigned long long started;
};

/* a set-up step may take long (function_graph patches every function;
 * thousands of names or probes): whoever asked can stop it between them */
static int stop_asked(const struct nop_session *s, struct nop_error *err)
{
	if (!s->cfg.stop || !s->cfg.stop(s->cfg.stop_ctx))
		return 0;
	nop_error_set(err, NOP_EINTERNAL, EINTR, "set-up stopped before tracing began");
	return -1;
}

static bool has_probes(const struct nop_session *s)
{
	return s->cfg.uprobes && s->cfg.uprobes->n;
}

/* events recorded (probes', the gate's, process and kernel events): the
 * events' pid list and event-fork are written too */
static bool has_events(const struct nop_session *s)
{
	return has_probes(s) || s->cfg.follow_fork || s->cfg.gate || s->cfg.nevents || s->cfg.context_switches ||
	       s->cfg.off_cpu;
}

/* tasks followed: their fork and exec events tell the pipeline which
 * tasks are whose, and the name each ran under */
static bool follows(const struct nop_session *s)
{
	return s->cfg.follow_fork;
}

/* the pid lists the session writes: the function tracer's, the events'
 * (probe events follow set_event_pid), or both; the first is read back */
static const char *pid_files(const struct nop_session *s, int i, bool notrace)
{
	static const char *const f[2][2] = { { "set_ftrace_pid", "set_event_pid" },
					     { "set_ftrace_notrace_pid", "set_event_notrace_pid" } };

	if (s->cfg.tracer == NOP_TRACER_NONE)
		return i == 0 ? f[notrace][1] : NULL;
	return i == 0 || (i == 1 && has_events(s)) ? f[notrace][i] : NULL;
}

static const char *tracer_name(enum nop_tracer t)
{
	return t == NOP_TRACER_GRAPH ? "function_graph" : t == NOP_TRACER_NONE ? "nop" : "function";
}

static int journal_per_cpu_sizes(struct nop_session *s, struct nop_error *err)
{
	for (int cpu = 0; cpu < nop_ncpus(); cpu++) {
		char rel[64], path[4200], *v;
		int ret;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/buffer_size_kb", cpu);
		if (!(v = nop_read_file(nop_path(path, sizeof(path), s->tracing_dir, rel), NULL, NULL)))
			continue; /* a CPU that is not there */
		ret = nop_journal_file(s->journal, rel, v, err);
		free(v);
		if (ret)
			return -1;
	}
	return 0;
}

/* Write down a top-level file's prior value, once per session, before
 * its first change. only_if: only when the value holds that text (an
 * unexpanded buffer); a file passed over is not remembered, so a later
 * change still journals it. */
static int journal_once(struct nop_session *s, const char *rel, const char *only_if,
			struct nop_error *err)
{
	char path[4096], *prior;
	int ret = 0;

	for (size_t i = 0; i < s->njournaled; i++)
		if (!strcmp(s->journaled[i], rel))
			return 0;
	prior = nop_read_file(nop_path(path, sizeof(path), s->tracing_dir, rel), NULL, err);
	if (!prior)
		return -1;
	if (!strcmp(rel, "buffer_size_kb") && !strcmp(nop_trim(prior), "X"))
		ret = journal_per_cpu_sizes(s, err); /* sizes differ: one per CPU */
	if (ret == 0 && (!only_if || strstr(prior, only_if))) {
		ret = nop_journal_file(s->journal, rel, prior, err);
		if (ret == 0 && (nop_grow((void **)&s->journaled, &s->capj, s->njournaled + 1,
					  sizeof(char *)) ||
				 !(s->journaled[s->njournaled] = strdup(rel)))) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			ret = -1;
		} else if (ret == 0) {
			s->njournaled++;
		}
	}
	free(prior);
	return ret;
}

/* A top-level file: its prior value journaled before the first change,
 * each write announced, and what it reads back after written down (the
 * restore puts back only a file that still holds it). */
static int journaled_write(struct nop_session *s, const char *path, const char *rel,
			   const char *val, bool append, struct nop_error *err)
{
	char *now;
	int ret;

	if (journal_once(s, rel, NULL, err) || nop_journal_writing(s->journal, rel, err))
		return -1;
	ret = nop_write_file(path, val, append, err);
	if (!(now = nop_read_file(path, NULL, ret ? NULL : err)))
		return -1;
	if (nop_journal_holds(s->journal, rel, now, ret ? NULL : err))
		ret = -1;
	free(now);
	return ret;
}

/* Write dir/rel; a top-level file is journaled before its first change. */
static int write_in(struct nop_session *s, const char *dir, const char *rel, const char *val,
		    bool append, struct nop_error *err)
{
	char path[4096];

	if (!nop_path(path, sizeof(path), dir, rel)) {
		nop_error_set(err, NOP_EINTERNAL, ENAMETOOLONG, "path too long");
		return -1;
	}
	if (s->cfg.adopt && !strcmp(dir, s->dir)) { /* named from the tracing directory */
		char full[4200];

		snprintf(full, sizeof(full), "instances/%s/%s", s->instance, rel);
		return journaled_write(s, path, full, val, append, err);
	}
	if (strcmp(dir, s->tracing_dir))
		return nop_write_file(path, val, append, err);
	return journaled_write(s, path, rel, val, append, err);
}

/* A setting every buffer shares, through the registry (shared.c). */
static int take_shared(struct nop_session *s, const char *write_dir, const char *rel,
		       const char *val, bool list, struct nop_error *err)
{
	s->took_shared = true;
	return nop_shared_take(s->tracing_dir, write_dir, rel, val, list, err);
}

static char *read_trimmed(const char *dir, const char *rel);

/* Does an instance's option read as the top level's? Tracer options are
 * one set for every buffer (6.1: all of them; 6.12: function_graph's
 * funcgraph-*; docs/kernel-notes.md): what an instance writes, the top level
 * reads back. An option that reads otherwise is the instance's own; one
 * that reads the same may be shared, and is taken as such. */
static bool same_as_top(struct nop_session *s, const char *rel)
{
	char *mine = read_trimmed(s->dir, rel), *top = read_trimmed(s->tracing_dir, rel);
	bool same = mine && top && !strcmp(mine, top);

	free(mine);
	free(top);
	return same;
}

/* A core trace flag the kernel keeps per buffer (tr->trace_flags; the
 * set_event_pid machinery reads TRACE_ITER_EVENT_FORK of its own trace
 * array, an event's commit TRACE_ITER_USERSTACKTRACE): an instance's own,
 * whatever the top level reads. Taken as
 * shared, a second session joined the first's value and never wrote its
 * own instance: its command's children went unfollowed. */
static bool per_buffer_option(const char *rel)
{
	return !strcmp(rel, "options/event-fork") || !strcmp(rel, "options/userstacktrace");
}

/* A file of the session's buffer; an instance's option that may be shared
 * by every buffer is a shared setting (shared.c). */
static int sess_write(struct nop_session *s, const char *rel, const char *val, bool append,
		      struct nop_error *err)
{
	/* an adopted instance outlives the session: what it writes there is
	 * journaled as its own, for whoever puts it back later */
	if (s->instance[0] && !s->cfg.adopt && !strncmp(rel, "options/", 8) && !append && !per_buffer_option(rel) &&
	    same_as_top(s, rel))
		return take_shared(s, s->dir, rel, val, false, err);
	return write_in(s, s->dir, rel, val, append, err);
}

int nop_session_write(struct nop_session *s, const char *rel, const char *val, struct nop_error *err)
{
	return sess_write(s, rel, val, false, err);
}

/* Files that exist only at the top level and act on every buffer. */
static int top_write(struct nop_session *s, const char *rel, const char *val,
		     struct nop_error *err)
{
	return write_in(s, s->tracing_dir, rel, val, false, err);
}

/* Another user of the top level: a tracer, or filters, or pids set. */
static int apply_graph(struct nop_session *s, struct nop_error *err);
static int enable_event(struct nop_session *s, const struct nop_kevent *k, struct nop_error *err);
static int set_pids(struct nop_session *s, const pid_t *pids, size_t n, struct nop_error *err);

/* The session's file rel set to val, written (and journaled) only where it
 * holds something else: a setting left as the kernel has it is not
 * touched. Lists compare by their entries ("#### no functions ..." and
 * "no pid" read as empty). */
static char *read_trimmed(const char *dir, const char *rel)
{
	char path[4200], *v = nop_read_file(nop_path(path, sizeof(path), dir, rel), NULL, NULL);

	if (v)
		memmove(v, nop_trim(v), strlen(nop_trim(v)) + 1);
	return v;
}

static int set_in(struct nop_session *s, const char *dir, const char *rel, const char *val,
		  bool list, struct nop_error *err)
{
	char *v = read_trimmed(dir, rel);
	bool same = v && (list && !*val ? nop_list_empty(v) : !strcmp(v, val));

	free(v);
	if (same)
		return 0;
	return dir == s->dir ? sess_write(s, rel, val, false, err) : top_write(s, rel, val, err);
}

static int file_set(struct nop_session *s, const char *rel, const char *val, struct nop_error *err)
{
	return set_in(s, s->dir, rel, val, false, err);
}

static int list_set(struct nop_session *s, const char *rel, struct nop_error *err)
{
	return set_in(s, s->dir, rel, "", true, err);
}

/* Files every function_graph user shares: top-level files whose settings
 * the kernel keeps once for all buffers (instances have no
 * set_graph_function, yet the top level's applies to them). Where nopctl
 * owns them (its session is at the top level, or --force) they hold what
 * was asked, else the kernel's default, journaled; in an instance someone
 * else's value is left, being theirs, and said (nop_session_note). */
static int graph_shared(struct nop_session *s, struct nop_error *err)
{
	const struct nop_session_cfg *c = &s->cfg;
	bool own = !s->instance[0] || c->force;
	char depth[32], thresh[32];
	const struct { const char *file, *want, *effect; bool asked, list; } sh[] = {
		{ "max_graph_depth", depth, "deeper calls are not recorded", c->max_depth, false },
		{ "tracing_thresh", thresh, "shorter calls (us) are not recorded", c->thresh_us, false },
		{ "set_graph_notrace", "", "those functions' subtrees are not recorded", false, true },
		/* at the top level apply_graph writes the roots */
		{ s->instance[0] ? "set_graph_function" : NULL, "", "only those functions' trees are recorded",
		  false, true },
	};
	size_t off = 0;

	snprintf(depth, sizeof(depth), "%d", c->max_depth);
	snprintf(thresh, sizeof(thresh), "%llu", c->thresh_us);
	for (size_t i = 0; i < ARRAY_SIZE(sh); i++) {
		char *v;
		bool foreign;

		if (!sh[i].file || !nop_path_exists(s->tracing_dir, sh[i].file))
			continue;
		if (own || sh[i].asked) {
			if (!take_shared(s, s->tracing_dir, sh[i].file, sh[i].want, sh[i].list, err))
				continue;
			if (sh[i].asked || err->status != NOP_EBUSY)
				return -1;
			/* another nopctl's value, not one we asked to change: said */
		}
		v = read_trimmed(s->tracing_dir, sh[i].file);
		foreign = v && (sh[i].list ? !nop_list_empty(v) : strcmp(v, sh[i].want) != 0);
		if (foreign && sh[i].list)
			v[strcspn(v, "\n")] = 0; /* the first entry names it */
		if (foreign && off < sizeof(s->note))
			off += (size_t)snprintf(s->note + off, sizeof(s->note) - off,
						"%s%s is '%.40s' (another user's, shared by every"
						" instance): %s", off ? "; " : "", sh[i].file,
						v, sh[i].effect);
		free(v);
	}
	return 0;
}

/* At the top level nopctl is the only user (a free top level, or one taken
 * over with --force): whatever else is left there that filters or shapes a
 * capture goes back to the kernel's default for the session, journaled
 * and restored after. A foreign set_ftrace_notrace_pid, tracing_cpumask,
 * set_graph_notrace, max_graph_depth, tracing_thresh or option would
 * otherwise silently take calls out of what was asked. */
static int take_over_top(struct nop_session *s, struct nop_error *err)
{
	const struct nop_session_cfg *c = &s->cfg;
	char mask[4200];

	/* the function tracer's own files only for the function tracers (a
	 * kernel that refuses them still runs probe events) */
	if (c->tracer != NOP_TRACER_NONE && !c->exclude_self &&
	    nop_path_exists(s->dir, "set_ftrace_notrace_pid") && list_set(s, "set_ftrace_notrace_pid", err))
		return -1;
	if (!c->cpus) {
		nop_cpuset_mask(NULL, nop_ncpus(), mask, sizeof(mask));
		if (file_set(s, "tracing_cpumask", mask, err))
			return -1;
	}
	if (c->tracer == NOP_TRACER_FUNCTION && !c->stack &&
	    file_set(s, "options/func_stack_trace", "0", err))
		return -1;
	return 0;
}

/* Function commands ("schedule:traceoff:unlimited") stay in
 * set_ftrace_filter when it is emptied; at a top level taken over, a
 * foreign traceoff would stop the capture. Each is removed ("!func:cmd")
 * after the file's prior value is journaled; the restore writes them back. */
static int remove_triggers(struct nop_session *s, struct nop_error *err)
{
	char *v = s->instance[0] ? NULL : read_trimmed(s->dir, "set_ftrace_filter");
	int ret = 0;

	for (char *save, *l = v ? strtok_r(v, "\n", &save) : NULL; l && !ret;
	     l = strtok_r(NULL, "\n", &save)) {
		char *last = strrchr(l, ':'), cmd[600];

		if (!last || l[0] == '#')
			continue;
		if (!strcmp(last, ":unlimited") || !strncmp(last, ":count=", 7))
			*last = 0;
		snprintf(cmd, sizeof(cmd), "!%s", nop_trim(l));
		ret = sess_write(s, "set_ftrace_filter", cmd, true, err);
	}
	free(v);
	return ret;
}

/* Many function names for a filter file are written as their indices in
 * available_filter_functions (Linux 5.1 and later), which the kernel
 * looks up directly, where it matches each name against every function:
 * n names cost it n passes over ~50,000. The list (cached for the boot and
 * the loaded modules: its order is the kernel's) gives every index of a
 * name (one name can be several functions). 1: not done (too few names,
 * the list unreadable, or the kernel took no index), write the names. */
#define BY_INDEX_MIN 16
static int write_indices(struct nop_session *s, const char *file, const char **pats, size_t n,
			 const char *module, struct nop_error *err)
{
	struct nop_funcs f;
	const struct nop_funcs *all;
	struct nop_strmap *want;
	char buf[4096];
	size_t len = 0, names = 0;
	int ret = 0;
	bool wrote = false;

	for (size_t i = 0; i < n; i++)
		names += !nop_pattern_is_glob(pats[i]);
	if (names < BY_INDEX_MIN || !(want = nop_strmap_new(1)))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!nop_pattern_is_glob(pats[i]) && !nop_strmap_get(want, pats[i])) {
			nop_strmap_free(want);
			return 1;
		}
	if (s->cfg.funcs && s->cfg.funcs->modules == nop_modules_hash()) {
		all = s->cfg.funcs;
	} else if (nop_funcs_load(s->tracing_dir, &f, err)) {
		nop_strmap_free(want);
		return 1;
	} else {
		all = &f;
	}
	for (size_t i = 0; i <= all->n && ret == 0; i++) {
		const struct nop_func *fn = i < all->n ? &all->v[i] : NULL;

		if (fn && (!nop_strmap_find(want, fn->name) ||
			   (module && (!fn->module || strcmp(fn->module, module)))))
			continue;
		if (len && (!fn || len + 24 > sizeof(buf))) {
			buf[len] = 0;
			ret = sess_write(s, file, buf, true, err);
			/* a kernel that takes no index refuses the first */
			if (ret && !wrote && err->sys_errno == EINVAL)
				ret = 1;
			wrote = !ret;
			len = 0;
		}
		if (fn)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%zu", len ? " " : "", i + 1);
	}
	if (all == &f)
		nop_funcs_free(&f);
	nop_strmap_free(want);
	return ret;
}

/* Settings written with tracing off, tracer last: the tracer never runs
 * unfiltered, and a failed step leaves nothing the journal cannot undo. */
static int apply(struct nop_session *s, struct nop_error *err)
{
	const struct nop_session_cfg *c = &s->cfg;
	char buf[4200];

	s->self = getpid();
	if (nop_pidns_nested()) {
		if (c->npids && !(s->kpids = nop_zalloc(c->npids * sizeof(pid_t), err)))
			return -1;
		if (nop_kernel_pids(s, c->pids, c->npids, s->kpids, &s->self, err))
			return -1;
	}
	if (sess_write(s, "tracing_on", "0", false, err) || stop_asked(s, err))
		return -1;
	/* probe events alone: no function tracer file is touched (a kernel
	 * that refuses the function tracer still runs uprobes) */
	for (int pass = 0; pass < 2 && c->tracer != NOP_TRACER_NONE; pass++) {
		const char *file = pass ? "set_ftrace_notrace" : "set_ftrace_filter";
		const char **pats = pass ? c->notrace : c->filters;
		size_t n = pass ? c->nnotrace : c->nfilters;

		int by_index;

		if (sess_write(s, file, "", false, err) || (!pass && remove_triggers(s, err)))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (nop_pattern_check(pats[i], err))
				return -1; /* callers check first; this is the last line */
		if (stop_asked(s, err) ||
		    (by_index = write_indices(s, file, pats, n, pass ? NULL : c->module, err)) < 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			if (!by_index && !nop_pattern_is_glob(pats[i]))
				continue; /* written by its indices */
			snprintf(buf, sizeof(buf), c->module && !pass ? "%s:mod:%s" : "%s", pats[i],
				 c->module);
			if (sess_write(s, file, buf, true, err))
				return -1;
		}
	}
	if (set_pids(s, s->kpids ? s->kpids : c->pids, c->npids, err))
		return -1;
	for (int pass = 0; c->exclude_self && pid_files(s, pass, true); pass++) {
		/* our own calls too (libc:malloc system-wide) */
		const char *rel = pid_files(s, pass, true);

		snprintf(buf, sizeof(buf), "%d", (int)s->self);
		if (nop_path_exists(s->dir, rel) && sess_write(s, rel, buf, false, err))
			return -1;
	}
	/* only where tasks are followed: on 6.1 every instance shares it */
	if ((c->follow_fork || c->npids) && c->tracer != NOP_TRACER_NONE &&
	    file_set(s, "options/function-fork", c->follow_fork ? "1" : "0", err))
		return -1;
	/* events follow set_event_pid, and children through event-fork */
	if (has_events(s) && (c->follow_fork || c->npids) &&
	    file_set(s, "options/event-fork", c->follow_fork ? "1" : "0", err))
		return -1;
	if (!s->instance[0] && take_over_top(s, err))
		return -1;
	if (c->buffer_kb) {
		snprintf(buf, sizeof(buf), "%zu", c->buffer_kb);
		if (sess_write(s, "buffer_size_kb", buf, false, err))
			return -1;
	}
	if (c->cpus) {
		nop_cpuset_mask(c->cpus, nop_ncpus(), buf, sizeof(buf));
		if (sess_write(s, "tracing_cpumask", buf, false, err))
			return -1;
	}
	if (stop_asked(s, err) || (c->tracer == NOP_TRACER_GRAPH && apply_graph(s, err)) ||
	    stop_asked(s, err) || sess_write(s, "current_tracer", tracer_name(c->tracer), false, err) ||
	    stop_asked(s, err))
		return -1;
	if (has_probes(s)) {
		snprintf(buf, sizeof(buf), "events/%s/enable", s->group);
		if (sess_write(s, buf, "1", false, err))
			return -1;
	}
	/* tasks followed into forked children and across exec: the pipeline
	 * learns of each, its name and its user calls' new stacks (ucalls.c),
	 * from these; a name read later from /proc or saved_cmdlines would be
	 * the task's last, or gone with it */
	for (size_t i = 0; i < ARRAY_SIZE(nop_process_events) && follows(s); i++) {
		snprintf(buf, sizeof(buf), "events/%s/enable", nop_process_events[i]);
		if (nop_path_exists(s->dir, buf) && sess_write(s, buf, "1", false, err))
			return -1;
	}
	/* catch --before: who ran on the CPU meanwhile, in the catch's file;
	 * off-CPU time: the switches alone */
	for (size_t i = 0; i < NOP_NSWITCH_EVENTS && (c->context_switches || (c->off_cpu && i == 0)); i++) {
		snprintf(buf, sizeof(buf), "events/%s/enable", nop_switch_events[i]);
		if (nop_path_exists(s->dir, buf) && sess_write(s, buf, "1", false, err))
			return -1;
	}
	for (size_t i = 0; i < c->nevents; i++)
		if (enable_event(s, &c->events[i], err))
			return -1;
	if (c->tracer == NOP_TRACER_FUNCTION && c->stack &&
	    sess_write(s, "options/func_stack_trace", "1", false, err))
		return -1;
	/* a user stack after each event of the buffer: its probes' are the
	 * only events of a user-function run (an instance's own flag) */
	if (c->user_stacks && sess_write(s, "options/userstacktrace", "1", false, err))
		return -1;
	/* the buffer starts empty: nothing from before this session (the
	 * buffer's contents are data, not a setting: not journaled) */
	return nop_write_file(nop_path(buf, sizeof(buf), s->dir, "trace"), "", false, err);
}


/* A kernel event on in the session's buffer, its filter first (in its own
 * filter file: the event's alone). The parts were checked (names from
 * available_events, a filter of one printable line); the kernel parses
 * the filter and refuses it whole, its reason then in that file. */
static int enable_event(struct nop_session *s, const struct nop_kevent *k, struct nop_error *err)
{
	char en[300], fi[300];

	/* callers check first; this is the last line */
	if (k->filter && nop_event_filter_check(k->filter, err))
		return -1;
	if (!nop_event_name_ok(k->system) || !nop_event_name_ok(k->name)) {
		nop_error_set(err, NOP_EUSAGE, 0, "invalid event name %.64s:%.64s", k->system, k->name);
		return -1;
	}
	snprintf(en, sizeof(en), "events/%s/%s/enable", k->system, k->name);
	snprintf(fi, sizeof(fi), "events/%s/%s/filter", k->system, k->name);
	if (!s->instance[0]) {
		/* the top level's event on already: another user's. Shared as
		 * it is; a filter, theirs or ours, would change what one of
		 * the two records */
		char *on = read_trimmed(s->dir, en), *f;
		bool theirs = on && on[0] == '1';

		free(on);
		f = theirs ? read_trimmed(s->dir, fi) : NULL;
		if (theirs && (k->filter || (f && strncmp(f, "none", 4)))) {
			nop_error_set(err, NOP_EBUSY, EBUSY,
				      "%s:%s is on in the top-level buffer (another user's, filter '%.100s'): a filter there "
				      "would change what one of the two records", k->system, k->name,
				      f ? strtok(f, "\n") : "none");
			free(f);
			return -1;
		}
		free(f);
	}
	if (k->filter && sess_write(s, fi, k->filter, false, err)) {
		char why[300] = "", path[4400];

		if (err->sys_errno == EINVAL)
			nop_event_filter_error(nop_path(path, sizeof(path), s->dir, fi), why, sizeof(why));
		nop_error_set(err, NOP_EUSAGE, err->sys_errno,
			      "the kernel refused the filter '%.200s' of %s:%s%s%s%s; its fields are those of "
			      "%s/events/%s/%s/format", k->filter, k->system, k->name, *why ? " (" : "", why,
			      *why ? ")" : "", s->tracing_dir, k->system, k->name);
		return -1;
	}
	return sess_write(s, en, "1", false, err);
}

static int write_list(struct nop_session *s, const char *rel, const char **v, size_t n,
		      struct nop_error *err)
{
	if (sess_write(s, rel, "", false, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (sess_write(s, rel, v[i], true, err))
			return -1;
	return 0;
}

static int apply_graph(struct nop_session *s, struct nop_error *err)
{
	const struct nop_session_cfg *c = &s->cfg;
	static const struct { const char *file; size_t flag; const char *val; } opts[] = {
		{ "options/funcgraph-retval", offsetof(struct nop_session_cfg, retval), "1" },
		{ "options/sleep-time", offsetof(struct nop_session_cfg, no_sleep_time), "0" },
		{ "options/funcgraph-irqs", offsetof(struct nop_session_cfg, no_irqs), "0" },
	};
	if (c->nroots || nop_path_exists(s->dir, "set_graph_function")) {
		char roots[8192] = "";
		size_t off = 0;

		for (size_t i = 0; i < c->nroots; i++) {
			if (nop_pattern_check(c->roots[i], err))
				return -1;
			off += (size_t)snprintf(roots + off, sizeof(roots) - off, "%s%s", i ? "\n" : "",
						c->roots[i]);
			if (off >= sizeof(roots)) {
				nop_error_set(err, NOP_EUSAGE, 0, "too many graph roots");
				return -1;
			}
		}
		/* at the top level, the roots of every function_graph user */
		if (!s->instance[0] ? take_shared(s, s->dir, "set_graph_function", roots, true, err)
				    : write_list(s, "set_graph_function", c->roots, c->nroots, err))
			return -1;
	}
	if (graph_shared(s, err))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (!*(const bool *)((const char *)c + opts[i].flag)) {
			/* a leftover "0" would hide irqs or sleep from our capture */
			if (i > 0 && nop_path_exists(s->dir, opts[i].file) &&
			    file_set(s, opts[i].file, "1", err))
				return -1;
			continue;
		}
		if (!nop_path_exists(s->dir, opts[i].file)) {
			nop_error_set(err, NOP_EKERNEL, ENOENT,
				      "this kernel has no %s option%s", opts[i].file + 8,
				      i == 0 ? " (function return values need Linux 6.5 or later"
					       " built with CONFIG_FUNCTION_GRAPH_RETVAL)" : "");
			return -1;
		}
		if (sess_write(s, opts[i].file, opts[i].val, false, err))
			return -1;
	}
	return 0;
}

static int set_pids(struct nop_session *s, const pid_t *pids, size_t n, struct nop_error *err)
{
	if (!s->started) { /* the kernel follows the forks from here on */
		struct timespec ts;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		s->started = ((unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec) /
			     (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
	}
	char buf[32];

	for (int pass = 0; pid_files(s, pass, false); pass++) {
		const char *rel = pid_files(s, pass, false);

		if (sess_write(s, rel, "", false, err))
			return -1;
		for (size_t i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "%d", (int)pids[i]);
			if (sess_write(s, rel, buf, true, err))
				return -1;
		}
	}
	return 0;
}

static int open_instance(struct nop_session *s, struct nop_error *err)
{
	char path[4096];

	/* Enabling a tracer anywhere makes the kernel expand its buffers
	 * once; on 6.1 that leaves a still-unexpanded top-level buffer at its
	 * 7 KB placeholder for good ("7 (expanded: 1408)" reads back "7").
	 * The restore gives it the size the kernel promised. */
	if (journal_once(s, "buffer_size_kb", "expanded", err))
		return -1;

	if (s->cfg.adopt) { /* the kernel's: not ours to make or remove */
		snprintf(s->instance, sizeof(s->instance), "%s", s->cfg.adopt);
		snprintf(s->dir, sizeof(s->dir), "%s/instances/%s", s->tracing_dir, s->instance);
		if (access(s->dir, F_OK) == 0)
			return 0;
		nop_error_io(err, "open instance", s->dir, errno);
		s->instance[0] = 0;
		return -1;
	}
	nop_instance_name(s->instance, sizeof(s->instance), getpid());
	snprintf(path, sizeof(path), "%s/instances/%s", s->tracing_dir, s->instance);
	if (nop_journal_instance(s->journal, s->instance, err))
		return -1;
	if (mkdir(path, 0700) < 0) {
		nop_error_io(err, "create instance", path, errno);
		s->instance[0] = 0;
		return -1;
	}
	snprintf(s->dir, sizeof(s->dir), "%s", path);
	/* an open file of an instance holds it: the kernel refuses its rmdir
	 * (EBUSY) until the file is closed, so no reset (of any PID
	 * namespace, which cannot see our pid or journal) removes it while we
	 * live */
	s->hold_fd = open(nop_path(path, sizeof(path), s->dir, "tracing_on"), O_RDONLY | O_CLOEXEC);
	return 0;
}

/* Is the tracer offered inside instances? (6.1 offers function but not
 * function_graph there; a tracer it does not offer is refused with EINVAL.) */
static bool instance_offers(const char *inst_dir, const char *tracer)
{
	char path[4096], *v;
	struct nop_error e;
	bool ok = false;

	v = nop_read_file(nop_path(path, sizeof(path), inst_dir, "available_tracers"), NULL, &e);
	if (!v)
		return false;
	for (char *save, *t = strtok_r(v, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
		ok |= !strcmp(t, tracer);
	free(v);
	return ok;
}

/* Someone's data at the top level that this session would erase: the
 * buffer's unread entries (a tracer switched there clears them), and,
 * where it places probes there, the snapshot's (catch's gate swaps and
 * clears it; 6.12 emptied it after 'graph --retval' at the top level,
 * not after a plain graph). nopctl leaves the top level empty when it is
 * done, so what is there is another's: -1 and err, or 0. */
static int unread_kept(struct nop_session *s, const char *why_top, struct nop_error *err)
{
	struct nop_cpu_stats st;
	unsigned long long n;
	char path[4200], *on;
	struct nop_error e;

	/* per_cpu stats' "entries:": what each CPU holds unread (reading it
	 * changes nothing; opening trace would pause tracing) */
	nop_buffer_counts(s->tracing_dir, NULL, &st);
	if ((n = st.entries)) {
		on = nop_read_file(nop_path(path, sizeof(path), s->tracing_dir, "events/enable"), NULL, &e);
		nop_error_set(err, NOP_EBUSY, 0,
			      "the top-level buffer holds %llu %s nobody has read (trace_marker lines or"
			      " events%s), and %s; switching its tracer would erase them: read them"
			      " (%s/trace) or clear them (write to it)", n, n == 1 ? "entry" : "entries",
			      on && nop_trim(on)[0] != '0' ? ": events are enabled there" : "", why_top,
			      s->tracing_dir);
		free(on);
		err->remedy = NOP_REMEDY_TAKE_OVER;
		return -1;
	}
	if ((s->cfg.gate || has_probes(s)) && (n = nop_top_level_snapshot(s->tracing_dir))) {
		nop_error_set(err, NOP_EBUSY, 0,
			      "the top-level snapshot holds %llu %s someone took, and %s; this run's probes"
			      " there would erase them: read them (%s/snapshot) or free it (write 0 to it)",
			      n, n == 1 ? "entry" : "entries", why_top, s->tracing_dir);
		err->remedy = NOP_REMEDY_TAKE_OVER;
		return -1;
	}
	return 0;
}

/* why: what makes this session need the top level, for the message of
 * a refusal */
static int claim_top_level(struct nop_session *s, const char *why_top, struct nop_error *err)
{
	char why[160], comm[64];
	char lockpath[4200];
	pid_t reader;
	int fd, busy;

	snprintf(lockpath, sizeof(lockpath), "%s/top-level.lock", nop_journal_dir());
	fd = open(lockpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		if (e == EWOULDBLOCK) {
			nop_error_set(err, NOP_EBUSY, e,
				      "another nopctl (pid %d) is using the top-level tracer (lock %s);"
				      " 'nopctl status' shows what it traces", nop_top_level_holder(),
				      lockpath);
		} else {
			nop_error_io(err, "lock", lockpath, e);
		}
		return -1;
	}
	/* held until close: the lock dies with the process, even on kill -9;
	 * it holds our pid, for the message of whoever is refused */
	s->lock_fd = fd;
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", (int)getpid());
	busy = nop_top_level_user(s->tracing_dir, why, sizeof(why));
	/* a reader of the top level's buffer would lose what it has not read
	 * yet: a tracer change is refused while trace_pipe is held (EBUSY),
	 * and a restore switching tracing_on clears the buffer. --force
	 * does not take that over. */
	if ((reader = nop_top_level_reader(s->tracing_dir, comm, sizeof(comm)))) {
		nop_error_set(err, NOP_EBUSY, EBUSY,
			      "%s (pid %d) reads the top-level buffer%s%s%s, and %s; nopctl leaves it"
			      " alone (what it has not read yet would be lost)",
			      comm, (int)reader, busy ? " (" : "", busy ? why : "", busy ? ")" : "", why_top);
		return -1;
	}
	if (busy && !s->cfg.force) {
		nop_error_set(err, NOP_EBUSY, 0,
			      "the top-level tracer is in use by someone else (%s), and %s;"
			      " nopctl leaves it alone", why, why_top);
		err->remedy = NOP_REMEDY_TAKE_OVER;
		return -1;
	}
	if (!s->cfg.force && unread_kept(s, why_top, err))
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s", s->tracing_dir);
	return 0;
}

int nop_session_open(struct nop_session **sp, const struct nop_session_cfg *cfg,
		     struct nop_error *err)
{
	struct nop_session *s = nop_zalloc(sizeof(*s), err);
	struct nop_error e2;
	char why_top[200] = "";

	if (!s)
		return -1;
	if (cfg->top_level)
		snprintf(why_top, sizeof(why_top), "the top level was asked for");
	s->cfg = *cfg;
	s->lock_fd = s->hold_fd = -1;
	s->tracing_dir = cfg->tracing_dir;
	if (nop_journal_open(&s->journal, s->tracing_dir, err)) {
		free(s);
		return -1;
	}
	if (!cfg->top_level) {
		if (open_instance(s, err))
			goto fail;
		/* 6.12 runs function_graph in an instance, but its instances
		 * have no set_graph_function: graph roots need the top level */
		if (!instance_offers(s->dir, tracer_name(cfg->tracer)))
			snprintf(why_top, sizeof(why_top), "this kernel cannot run %s in an instance",
				 tracer_name(cfg->tracer));
		else if (cfg->nroots && !nop_path_exists(s->dir, "set_graph_function"))
			snprintf(why_top, sizeof(why_top), "graph roots need set_graph_function, which"
				 " this kernel's instances lack (a graph without roots, of a process or"
				 " of a command, runs in an instance)");
		if (why_top[0] && cfg->adopt) {
			nop_error_set(err, NOP_EKERNEL, 0, "instance %s cannot be used: %s", cfg->adopt, why_top);
			goto fail;
		}
		if (why_top[0]) {
			close(s->hold_fd);
			s->hold_fd = -1;
			if (nop_instance_remove(s->tracing_dir, s->instance, err))
				goto fail;
			s->instance[0] = 0;
		}
	}
	if (!s->instance[0] && claim_top_level(s, why_top, err))
		goto fail;
	if (has_probes(s)) {
		nop_probe_group(s->group, sizeof(s->group), getpid());
		if (stop_asked(s, err) || nop_probes_create(s->journal, s->tracing_dir, s->group, cfg->uprobes,
								 cfg->stop, cfg->stop_ctx, err))
			goto fail;
	}
	if (stop_asked(s, err) || apply(s, err))
		goto fail;
	/* catch's gate: the top level's snapshot, triggers on probes of the
	 * top level's events (graph roots are traced there) */
	if (cfg->gate && (s->instance[0] || stop_asked(s, err) ||
			  nop_gate_create(s->journal, s->tracing_dir, cfg->gate, err))) {
		if (s->instance[0]) {
			nop_error_set(err, NOP_EINTERNAL, EINVAL, "catch's gate needs the top level");
			err->remedy = NOP_REMEDY_NO_GATE;
		}
		goto fail;
	}
	*sp = s;
	return 0;
fail:
	nop_session_close(s, NULL, 0, &e2);
	return -1;
}

int nop_session_start(struct nop_session *s, struct nop_error *err)
{
	return sess_write(s, "tracing_on", "1", false, err);
}

int nop_session_stop(struct nop_session *s, struct nop_error *err)
{
	return sess_write(s, "tracing_on", "0", false, err);
}

bool nop_session_gate_fired(struct nop_session *s)
{
	return s->cfg.gate && nop_gate_fired(s->tracing_dir, s->cfg.gate);
}

int nop_session_gate_rearm(struct nop_session *s, struct nop_error *err)
{
	return s->cfg.gate ? nop_gate_rearm(s->tracing_dir, s->cfg.gate, err) : 0;
}

/* the buffer's contents swapped into the snapshot: data, not a setting */
int nop_session_snapshot(struct nop_session *s, struct nop_error *err)
{
	char path[4200];

	return nop_write_file(nop_path(path, sizeof(path), s->dir, "snapshot"), "1", false, err);
}

void nop_session_gate_counts(struct nop_session *s, unsigned long long *roots, unsigned long long *hits)
{
	*roots = *hits = 0;
	if (s->cfg.gate)
		nop_gate_counts(s->tracing_dir, s->cfg.gate, roots, hits);
}

/* The session's settings left in place: its journal kept as name (a
 * name no pid's journal has, which no cleanup replays) for whoever puts
 * them back (nop_journal_replay), the session freed. 0, or -1 with err
 * (the session then closed: everything restored). */
int nop_session_keep(struct nop_session *s, const char *name, struct nop_error *err)
{
	struct nop_error e2;

	if (nop_journal_keep(s->journal, name, err)) {
		nop_session_close(s, NULL, 0, &e2);
		return -1;
	}
	s->journal = NULL;
	return nop_session_close(s, NULL, 0, err);
}

int nop_session_close(struct nop_session *s, char *left, size_t leftlen, struct nop_error *err)
{
	struct nop_replay rep = { 0 };
	int ret;

	if (left && leftlen)
		left[0] = 0;
	if (!s)
		return 0;
	if (s->hold_fd >= 0)
		close(s->hold_fd); /* else the instance cannot be removed */
	ret = nop_journal_finish(s->journal, &rep, err);
	if (s->took_shared && nop_shared_release(s->tracing_dir, getpid(), &rep, ret ? NULL : err))
		ret = -1;
	if (left && leftlen)
		snprintf(left, leftlen, "%s", rep.left);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	for (size_t i = 0; i < s->njournaled; i++)
		free(s->journaled[i]);
	free(s->journaled);
	free(s->pids);
	free(s->kpids);
	free(s);
	return ret;
}

const char *nop_session_note(const struct nop_session *s)
{
	return s->note[0] ? s->note : NULL;
}

/* Is pid one of the tasks the session traces: in set_ftrace_pid, where the
 * kernel also adds the children it follows (function-fork)? Read again
 * only for a pid not in the last reading: a new child (tasks.c). */
int nop_session_traces(struct nop_session *s, int pid)
{
	/* nested, /proc cannot tell a gone child from another task: the
	 * kernel's own choice of tasks stands */
	if (s->kpids || nop_pid_listed(s->pids, pid))
		return 1;
	/* the tasks asked for: the kernel drops any task that exits from
	 * the list (function-fork), these too */
	for (size_t i = 0; i < s->cfg.npids; i++)
		if (s->cfg.pids[i] == pid)
			return 1;
	free(s->pids);
	s->pids = read_trimmed(s->dir, pid_files(s, 0, false));
	return nop_pid_traced(s->pids, pid, s->started);
}

bool nop_session_tasks_alive(struct nop_session *s)
{
	char *list;
	bool alive = false;

	/* nested, the kernel's list names tasks /proc does not: the ones
	 * asked for, by the pids nopctl knows them by */
	if (s->kpids) {
		for (size_t i = 0; i < s->cfg.npids; i++)
			alive |= nop_task_runs(s->cfg.pids[i]);
		return alive;
	}
	list = read_trimmed(s->dir, pid_files(s, 0, false));
	alive = !list || nop_pids_run(list); /* unreadable: not a reason to stop */
	free(list);
	return alive;
}

const char *nop_session_dir(const struct nop_session *s)
{
	return s->dir;
}

const char *nop_session_instance(const struct nop_session *s)
{
	return s->instance[0] ? s->instance : NULL;
}

/* arm.c - the black box armed: a session in the persistent instance
 * whose settings stay when nopctl exits (the one case where tracing is
 * left on by design), its journal kept for disarm and reset; and
 * disarmed: that journal replayed, the buffer emptied. */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blackbox/blackbox.h"

/* A trace_marker line of the buffer: data, not a setting */
static int mark(const struct nop_bbox *b, const char *line, struct nop_error *err)
{
	char path[4300];

	return nop_write_file(nop_path(path, sizeof(path), b->dir, "trace_marker"), line, false, err);
}

/* Every task's name now, into the buffer itself ("nopctl-tasks PID=NAME
 * ..." lines, NOP_TASKS_MARKER): after a reset the previous boot's
 * saved_cmdlines are gone, and the tasks already running when the box
 * was armed may never fork, exec or rename again */
static int mark_tasks(const struct nop_bbox *b, struct nop_error *err)
{
	char line[1024], path[300];
	size_t len = 0;
	DIR *p = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	while (p && !ret && (de = readdir(p))) {
		DIR *t;
		struct dirent *te;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", de->d_name);
		if (!(t = opendir(path)))
			continue;
		while (!ret && (te = readdir(t))) {
			char *comm;

			if (te->d_name[0] < '1' || te->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", de->d_name, te->d_name);
			if (!(comm = nop_read_file(path, NULL, NULL)))
				continue;
			nop_trim(comm);
			for (char *c = comm; *c; c++)
				if (*c == ' ' || *c == '=' || (unsigned char)*c < 32)
					*c = '_';
			if (len && len + strlen(te->d_name) + strlen(comm) + 2 >= sizeof(line) - 1) {
				ret = mark(b, line, err);
				len = 0;
			}
			if (!len)
				len = (size_t)snprintf(line, sizeof(line), "%s", NOP_TASKS_MARKER);
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %s=%s", te->d_name, comm);
			free(comm);
		}
		closedir(t);
	}
	if (p)
		closedir(p);
	return !ret && len ? mark(b, line, err) : ret;
}

/* who armed it, when, with what: the info file status shows */
static int write_info(const struct nop_bbox *b, const struct nop_bbox_arm *a, const struct nop_bbox_sizing *sz,
		      struct nop_error *err)
{
	char path[4300], when[64], text[1200];
	struct passwd *pw = getpwuid(getuid());
	time_t now = time(NULL);
	int n;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
	n = snprintf(text, sizeof(text), "%s (uid %d), pid %d, at %s: %s", pw ? pw->pw_name : "?", (int)getuid(),
		     (int)getpid(), when, a->what ? a->what : "");
	if (sz && sz->seconds > 0 && n > 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - (size_t)n, "; about %.0f s of history at %.0f KB/s", sz->seconds,
			 (double)sz->bytes / 1024.0 / ((double)sz->ms / 1000.0));
	nop_bbox_file(path, sizeof(path), b->name, ".info");
	if ((n = nop_output_create(path, true, 0600, true)) < 0 || nop_write_all(n, text, strlen(text)) < 0) {
		nop_error_io(err, "write", path, errno);
		if (n >= 0)
			close(n);
		return -1;
	}
	close(n);
	return 0;
}

int nop_bbox_arm(const char *tracing_dir, struct nop_bbox *b, const struct nop_bbox_arm *a,
		 struct nop_bbox_sizing *sz, struct nop_error *err)
{
	struct nop_session_cfg c = {
		.tracing_dir = tracing_dir, .tracer = a->tracer, .filters = a->filters, .nfilters = a->nfilters,
		.notrace = a->notrace, .nnotrace = a->nnotrace, .module = a->module, .pids = a->pids,
		.npids = a->npids, .funcs = a->funcs, .adopt = b->name,
		/* names: the tasks it follows and every one that runs (the
		 * switches), which the previous boot's reader has no other
		 * source of */
		.follow_fork = true, .off_cpu = true,
	};
	struct nop_session *s = NULL;
	struct nop_cpu_stats st;
	char jname[128], line[1200];

	memset(sz, 0, sizeof(*sz));
	if (b->armed) {
		nop_error_set(err, NOP_EBUSY, 0, "the black box (instance %s) is armed already: %s; disarm it first",
			      b->name, b->armed_by[0] ? b->armed_by : "by an earlier nopctl");
		return -1;
	}
	if (b->last_boot && b->entries && !b->saved[0] && !a->force) {
		nop_error_set(err, NOP_EBUSY, 0, "instance %s holds %llu events of the previous boot that nobody has"
			      " read; arming it erases them", b->name, b->entries);
		err->remedy = NOP_REMEDY_LAST_BOOT;
		return -1;
	}
	if (strcmp(b->tracer, "nop") && !a->force) {
		nop_error_set(err, NOP_EBUSY, 0, "instance %s is in use by someone else (its tracer is %s)", b->name,
			      b->tracer);
		err->remedy = NOP_REMEDY_TAKE_OVER;
		return -1;
	}
	if (nop_session_open(&s, &c, err) || nop_session_start(s, err))
		goto fail;
	snprintf(line, sizeof(line), "nopctl-blackbox armed by pid %d: %s", (int)getpid(), a->what ? a->what : "");
	if (mark(b, line, err) || mark_tasks(b, err))
		goto fail;
	if (a->measure_ms) {
		struct timespec ts = { a->measure_ms / 1000, (long)(a->measure_ms % 1000) * 1000000L };
		struct nop_cpu_stats st0;

		nop_buffer_counts(b->dir, NULL, &st0); /* after the markers: only what tracing writes */
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		nop_buffer_counts(b->dir, NULL, &st);
		sz->events = st.entries + st.overrun - st0.entries - st0.overrun;
		/* a buffer that wrapped meanwhile holds less than was written:
		 * its events' bytes scaled by those written to those held */
		sz->bytes = st.bytes > st0.bytes ? st.bytes - st0.bytes : 0;
		if (st.overrun > st0.overrun && st.entries)
			sz->bytes = (unsigned long long)((double)st.bytes * (double)sz->events / (double)st.entries);
		sz->ms = a->measure_ms;
		sz->size_bytes = b->size_kb * 1024;
		if (sz->bytes)
			sz->seconds = (double)sz->size_bytes / ((double)sz->bytes * 1000.0 / (double)a->measure_ms);
	}
	if (write_info(b, a, sz, err))
		goto fail;
	snprintf(jname, sizeof(jname), "blackbox-%s", b->name);
	if (nop_session_keep(s, jname, err)) {
		nop_bbox_file(line, sizeof(line), b->name, ".info");
		unlink(line);
		return -1;
	}
	b->armed = true;
	return 0;
fail:
	nop_session_close(s, NULL, 0, &(struct nop_error){ 0 });
	return -1;
}

int nop_bbox_disarm(const char *tracing_dir, struct nop_bbox *b, char *left, size_t leftlen, struct nop_error *err)
{
	struct nop_replay rep = { 0 };
	char path[4300], *tracer;
	int ret;

	if (left && leftlen)
		left[0] = 0;
	nop_bbox_file(path, sizeof(path), b->name, ".journal");
	if (access(path, F_OK))
		return 1;
	if ((ret = nop_journal_replay_unheld(path, tracing_dir, &rep, err)) == 1) {
		nop_error_set(err, NOP_EBUSY, 0, "the black box (instance %s) is being disarmed by another nopctl now",
			      b->name);
		return -1;
	}
	if (ret == 2) { /* not trusted, left in place: nothing was put back */
		nop_error_set(err, NOP_EINTERNAL, 0, "the black box (instance %s) was not disarmed: %s", b->name,
			      rep.left);
		return -1;
	}
	if (left && leftlen)
		snprintf(left, leftlen, "%s", rep.left);
	/* what it recorded this boot would read, after the next reboot, as
	 * that boot's last events: emptied, where it is nop again */
	tracer = nop_read_file(nop_path(path, sizeof(path), b->dir, "current_tracer"), NULL, NULL);
	if (tracer && !strcmp(nop_trim(tracer), "nop"))
		nop_write_file(nop_path(path, sizeof(path), b->dir, "trace"), "", false, NULL);
	free(tracer);
	nop_bbox_file(path, sizeof(path), b->name, ".info");
	unlink(path);
	b->armed = false;
	b->armed_by[0] = 0;
	return ret < 0 ? -1 : 0;
}

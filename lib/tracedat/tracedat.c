/* tracedat.c - writing trace-cmd's trace.dat (version 6, documented in
 * trace-cmd.dat.v6(5)), so that trace-cmd report and KernelShark open what
 * nopctl records. libtracecmd only reads this format; writing it is this
 * file. Pages go to unlinked per-CPU files beside the output while the
 * capture runs; the header is written at the end, when the task names are
 * known, followed by each CPU's pages at page-aligned offsets. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the one file that reaches an area above its own: it decodes its pages
 * once, after the capture, to keep the kernel symbols they name */
#include "events/events.h"

struct nop_dat {
	int fd;
	char path[4096];
	char tracing_dir[4096];
	char kallsyms[4096];
	int page_size;
	int ncpus;
	int *tmp;		  /* per CPU, -1 until its first page */
	unsigned long long *size; /* bytes per CPU */
	char **pend;		  /* per CPU: pages not yet written, BATCH at most */
	size_t *npend;
	struct nop_addrset syms; /* what the events name: their symbols are kept */
	bool syms_failed;	 /* out of memory for them: all of kallsyms */
	char group[64];		 /* probe events' system ("": none) */
	const struct nop_uprobes *uprobes;
	bool follows;		 /* the session follows tasks: their process events */
	bool switches;		 /* sched_switch and sched_wakeup were recorded */
	char (*events)[200];	 /* kernel events recorded beside the calls: "system/event" */
	size_t nevents;
};

static int note(void *ctx, const struct nop_event *ev)
{
	struct nop_dat *w = ctx;
	int ret = 0;

	if (ev->type == NOP_EV_LOST || ev->type == NOP_EV_KEVENT)
		return 0;
	ret |= nop_addrset_add(&w->syms, ev->ip);
	ret |= nop_addrset_add(&w->syms, ev->parent_ip);
	for (int i = 0; i < ev->nstack; i++)
		ret |= nop_addrset_add(&w->syms, ev->stack[i]);
	return ret ? -ENOMEM : 0;
}

static int flush_cpu(struct nop_dat *w, int cpu);

int nop_dat_each_page(struct nop_dat *w, int (*fn)(void *ctx, int cpu, void *page), void *ctx)
{
	size_t ps = (size_t)w->page_size, chunk = ps * 64;
	char *buf = malloc(chunk);
	int ret = 0;

	if (!buf)
		return -1;
	for (int c = 0; c < w->ncpus && !ret; c++) {
		ssize_t n;

		if (flush_cpu(w, c)) {
			ret = -1;
			break;
		}
		if (w->tmp[c] < 0)
			continue;
		if (lseek(w->tmp[c], 0, SEEK_SET) < 0) {
			ret = -1;
			break;
		}
		while (!ret && (n = read(w->tmp[c], buf, chunk)) > 0)
			for (size_t off = 0; !ret && off + ps <= (size_t)n; off += ps)
				ret = fn(ctx, c, buf + off);
		if (!ret && n < 0)
			ret = -1;
	}
	free(buf);
	return ret;
}

struct syms_pass {
	struct nop_dat *w;
	struct nop_decoder *d;
};

static int note_page(void *ctx, int cpu, void *page)
{
	struct syms_pass *s = ctx;

	return nop_decode_page(s->d, cpu, page, note, s->w) == -ENOMEM ? -ENOMEM : 0;
}

/* What the recorded pages name, read back once tracing is over (while
 * recording, pages are only saved: decoding them then cost the capture
 * its speed). Any failure: all of kallsyms is kept. */
static void note_syms(struct nop_dat *w)
{
	struct nop_error err;
	struct syms_pass s = { w, nop_decoder_new(w->tracing_dir, &err) };

	w->syms_failed = !s.d || nop_dat_each_page(w, note_page, &s) != 0;
	nop_decoder_free(s.d);
}


static const char *const ftrace_events[] = { "function", "kernel_stack", "funcgraph_entry",
					     "funcgraph_exit" };

static int tmp_beside(const char *path)
{
	char dir[4096], tmpl[4200];
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	snprintf(tmpl, sizeof(tmpl), "%s/.nopctl-XXXXXX", dirname(dir));
	fd = mkstemp(tmpl);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

/* Pages are written BATCH at a time: one write per page would be as many
 * system calls as the reads, each taking CPU the traced program wants */
#define BATCH 16

static int flush_cpu(struct nop_dat *w, int cpu)
{
	size_t n = w->npend[cpu];

	w->npend[cpu] = 0;
	if (!n)
		return 0;
	if (w->tmp[cpu] < 0 && (w->tmp[cpu] = tmp_beside(w->path)) < 0)
		return -1;
	return nop_write_all(w->tmp[cpu], w->pend[cpu], n);
}

int nop_dat_open(struct nop_dat **wp, const char *path, bool overwrite, const char *tracing_dir,
		 const char *kallsyms, int page_size, struct nop_error *err)
{
	struct nop_dat *w = calloc(1, sizeof(*w));
	int ncpus = nop_ncpus();

	if (w)
		w->fd = -1;
	if (!w || !(w->tmp = calloc((size_t)ncpus, sizeof(int))) ||
	    !(w->size = calloc((size_t)ncpus, sizeof(*w->size))) ||
	    !(w->pend = calloc((size_t)ncpus, sizeof(*w->pend))) ||
	    !(w->npend = calloc((size_t)ncpus, sizeof(*w->npend)))) {
		nop_dat_free(w, true);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	w->ncpus = ncpus;
	for (int i = 0; i < ncpus; i++)
		w->tmp[i] = -1;
	w->page_size = page_size;
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(w->tracing_dir, sizeof(w->tracing_dir), "%s", tracing_dir);
	snprintf(w->kallsyms, sizeof(w->kallsyms), "%s", kallsyms ? kallsyms : "/proc/kallsyms");
	/* 0600: the file holds root's /proc/kallsyms (the KASLR layout), as the
	 * symbol cache does. O_NONBLOCK and regular files only: a FIFO or
	 * device there would hang or be written raw */
	w->fd = nop_output_create(path, overwrite, 0600, true);
	if (w->fd < 0) {
		int e = errno;

		nop_error_set(err, NOP_EUSAGE, e,
			      e == EEXIST ? "output file %s exists"
			      : e == EINVAL || e == ENXIO ? "output file %s is not a regular file"
			      : e == ELOOP ? "output file %s is a symbolic link; nopctl does not follow it"
					   : "cannot create output file %s", path);
		if (e == EEXIST)
			err->remedy = NOP_REMEDY_OVERWRITE;
		nop_dat_free(w, true);
		return -1;
	}
	*wp = w;
	return 0;
}

int nop_dat_page(struct nop_dat *w, int cpu, const void *page, size_t len)
{
	size_t ps = (size_t)w->page_size;

	if (cpu < 0 || cpu >= w->ncpus || len > ps)
		return -1;
	if (!w->pend[cpu] && !(w->pend[cpu] = malloc(ps * BATCH)))
		return -1;
	/* every page whole: trace-cmd reads the data page by page */
	memcpy(w->pend[cpu] + w->npend[cpu], page, len);
	memset(w->pend[cpu] + w->npend[cpu] + len, 0, ps - len);
	w->npend[cpu] += ps;
	w->size[cpu] += ps;
	return w->npend[cpu] == ps * BATCH ? flush_cpu(w, cpu) : 0;
}

struct out {
	int fd;
	unsigned long long off;
	int err;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (nop_write_all(o->fd, p, n) < 0)
		o->err = errno;
	o->off += n;
}

static void put32(struct out *o, unsigned int v) { put(o, &v, 4); }

/* NOP_DAT_OPT_BINARIES: each user probe event and the binary it probes */
static void put_binaries(struct out *o, const struct nop_uprobes *u)
{
	size_t len = 0;
	unsigned short id = NOP_DAT_OPT_BINARIES;

	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			put(o, &id, 2);
			put32(o, (unsigned int)len + 1);
		}
		for (size_t i = 0; i < u->n; i++) {
			const struct nop_uprobe *p = &u->v[i];

			if (p->kind != NOP_PROBE_USER || !p->path[0])
				continue;
			if (!pass) {
				len += strlen(p->event) + strlen(p->path) + 2;
				continue;
			}
			put(o, p->event, strlen(p->event));
			put(o, "\t", 1);
			put(o, p->path, strlen(p->path));
			put(o, "\n", 1);
		}
	}
	put(o, "", 1);
}
static void put64(struct out *o, unsigned long long v) { put(o, &v, 8); }

/* a file's contents after a size of 4 or 8 bytes; missing: empty */
static void put_file(struct out *o, const char *path, int sizelen)
{
	size_t len = 0;
	char *v = nop_read_file(path, &len, NULL);

	if (sizelen == 4)
		put32(o, (unsigned int)len);
	else
		put64(o, len);
	put(o, v ? v : "", len);
	free(v);
}

/* kallsyms: the symbols the events need, or all of them */
static void put_kallsyms(struct out *o, struct nop_dat *w)
{
	size_t len = 0, sublen = 0;
	char *v = nop_read_file(w->kallsyms, &len, NULL), *sub = NULL;

	if (v && !w->syms_failed && (sub = nop_kallsyms_subset(v, len, &w->syms, &sublen)))
		len = sublen;
	put32(o, v ? (unsigned int)len : 0);
	put(o, sub ? sub : v ? v : "", v ? len : 0);
	free(sub);
	free(v);
}

int nop_dat_finish(struct nop_dat *w, struct nop_error *err)
{
	struct out o = { .fd = w->fd };
	char path[4200];
	unsigned int nevents = 0;
	unsigned long long off;
	int ncpus = 0;

	for (int c = 0; c < w->ncpus; c++) {
		if (flush_cpu(w, c) && !o.err)
			o.err = errno ? errno : EIO;
		if (w->size[c])
			ncpus = c + 1;
	}
	note_syms(w);
	put(&o, "\x17\x08\x44tracing", 10);
	put(&o, "6", 2);
	put(&o, (char[]){ __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, (char)sizeof(long) }, 2);
	put32(&o, (unsigned int)w->page_size);
	put(&o, "header_page", 12);
	put_file(&o, nop_path(path, sizeof(path), w->tracing_dir, "events/header_page"), 8);
	put(&o, "header_event", 13);
	put_file(&o, nop_path(path, sizeof(path), w->tracing_dir, "events/header_event"), 8);
	for (size_t i = 0; i < ARRAY_SIZE(ftrace_events); i++) {
		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", w->tracing_dir, ftrace_events[i]);
		nevents += access(path, R_OK) == 0;
	}
	put32(&o, nevents);
	for (size_t i = 0; i < ARRAY_SIZE(ftrace_events); i++) {
		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", w->tracing_dir, ftrace_events[i]);
		if (access(path, R_OK) == 0)
			put_file(&o, path, 8);
	}
	/* user functions' probe events: their own system, their formats; where
	 * tasks are followed, the events that tell a fork, an exec or a
	 * rename (the session enables them then), each in its system */
	bool probes = w->group[0] && w->uprobes && w->uprobes->n;
	unsigned int nproc = 0;
	/* the process events where tasks are followed, the context switches
	 * where they were recorded (catch --before), the kernel events asked
	 * for: each once */
	const char **evs = calloc(NOP_NPROCESS_EVENTS + NOP_NSWITCH_EVENTS + w->nevents, sizeof(*evs));
	size_t nevs = 0;

	if (!evs) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	for (size_t i = 0; w->follows && i < NOP_NPROCESS_EVENTS; i++)
		evs[nevs++] = nop_process_events[i];
	for (size_t i = 0; w->switches && i < NOP_NSWITCH_EVENTS; i++)
		evs[nevs++] = nop_switch_events[i];
	for (size_t i = 0; i < w->nevents; i++) {
		size_t k = 0;

		while (k < nevs && strcmp(evs[k], w->events[i]))
			k++;
		if (k == nevs)
			evs[nevs++] = w->events[i];
	}
	for (size_t i = 0; i < nevs; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/format", w->tracing_dir, evs[i]);
		nproc += access(path, R_OK) == 0;
	}
	put32(&o, (probes ? 1 : 0) + nproc);
	for (size_t i = 0; i < nevs; i++) {
		const char *ev = evs[i], *slash = strchr(ev, '/');

		snprintf(path, sizeof(path), "%s/events/%s/format", w->tracing_dir, ev);
		if (access(path, R_OK))
			continue;
		put(&o, ev, (size_t)(slash - ev));
		put(&o, "", 1);
		put32(&o, 1);
		put_file(&o, path, 8);
	}
	free(evs);
	if (probes) {
		put(&o, w->group, strlen(w->group) + 1);
		put32(&o, (unsigned int)w->uprobes->n);
		for (size_t i = 0; i < w->uprobes->n; i++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", w->tracing_dir, w->group,
				 w->uprobes->v[i].event);
			put_file(&o, path, 8);
		}
	}
	put_kallsyms(&o, w);
	put_file(&o, nop_path(path, sizeof(path), w->tracing_dir, "printk_formats"), 4);
	put_file(&o, nop_path(path, sizeof(path), w->tracing_dir, "saved_cmdlines"), 8);
	put32(&o, (unsigned int)ncpus);
	/* an options section, with no option in it: trace-cmd convert (3.1.6,
	 * 3.3.1 and 3.4, tried in the guest) refuses a version 6 file without
	 * one ("error writing") */
	put(&o, "options  ", 10);
	if (probes)
		put_binaries(&o, w->uprobes);
	put(&o, (char[2]){ 0, 0 }, 2);
	put(&o, "flyrecord", 10);
	off = o.off + 16ULL * (unsigned long long)ncpus;
	off = (off + (unsigned long long)w->page_size - 1) / (unsigned long long)w->page_size *
	      (unsigned long long)w->page_size;
	for (int c = 0; c < ncpus; c++) {
		put64(&o, w->size[c] ? off : 0);
		put64(&o, w->size[c]);
		off += w->size[c];
	}
	for (int c = 0; c < ncpus && !o.err; c++) {
		static char buf[1 << 16];
		ssize_t n;

		if (!w->size[c])
			continue;
		while (o.off % (unsigned long long)w->page_size)
			put(&o, "", 1);
		if (lseek(w->tmp[c], 0, SEEK_SET) < 0) {
			o.err = errno;
			break;
		}
		while ((n = read(w->tmp[c], buf, sizeof(buf))) > 0)
			put(&o, buf, (size_t)n);
		if (n < 0)
			o.err = errno;
	}
	if (!o.err && fsync(w->fd) < 0 && errno != EINVAL)
		o.err = errno;
	if (o.err) {
		nop_error_io(err, "write", w->path, o.err);
		return -1;
	}
	return 0;
}

void nop_dat_follows(struct nop_dat *w)
{
	w->follows = true;
}

void nop_dat_switches(struct nop_dat *w)
{
	w->switches = true;
}

int nop_dat_events(struct nop_dat *w, const struct nop_kevent *k, size_t n)
{
	if (!n)
		return 0;
	if (!(w->events = calloc(n, sizeof(*w->events))))
		return -1;
	for (size_t i = 0; i < n; i++)
		snprintf(w->events[w->nevents++], sizeof(*w->events), "%s/%s", k[i].system, k[i].name);
	return 0;
}

void nop_dat_probes(struct nop_dat *w, const char *group, const struct nop_uprobes *u)
{
	snprintf(w->group, sizeof(w->group), "%s", group);
	w->uprobes = u;
}

void nop_dat_free(struct nop_dat *w, bool keep)
{
	if (!w)
		return;
	for (int c = 0; c < w->ncpus && w->tmp; c++) {
		if (w->tmp[c] >= 0)
			close(w->tmp[c]);
		if (w->pend)
			free(w->pend[c]);
	}
	if (w->fd >= 0)
		close(w->fd);
	if (!keep)
		unlink(w->path);
	free(w->tmp);
	free(w->size);
	free(w->pend);
	free(w->npend);
	free(w->events);
	nop_addrset_free(&w->syms);
	free(w);
}

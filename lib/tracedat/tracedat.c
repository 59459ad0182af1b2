/* tracedat.c - writing trace-cmd's trace.dat (version 7 with zstd chunks,
 * as trace-cmd 3 records by default, trace-cmd.dat.v7(5); or version 6,
 * uncompressed, trace-cmd.dat.v6(5)), so that trace-cmd report and
 * KernelShark open what nopctl records. libtracecmd only reads this
 * format; writing it is this file. Pages go to unlinked per-CPU files
 * beside the output while the capture runs (version 7 with a size bound:
 * compressed on compress.c's thread as they come; else when the file is
 * written); the metadata is written at the end, when the task names are
 * known, with each CPU's pages (files bounded in size or time:
 * tracedat_bound.c). The file is
 * written without a name (O_TMPFILE, or a hidden .NAME.nopctl-part-XXXXXX.TAG
 * where the file system has none) and linked under its name only once
 * whole and synced: a file under its final name is always whole, whatever
 * ends the run (kill -9, a full disk). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <libgen.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tracedat/writer.h"

struct nop_addrset *nop_dat_syms(struct nop_dat *w)
{
	return &w->syms;
}

void nop_dat_noted(struct nop_dat *w)
{
	w->syms_noted = true;
}

struct each_chunk {
	int (*fn)(void *ctx, int cpu, void *page);
	void *ctx;
	int cpu;
	size_t ps;
};

static int chunk_pages(void *ctx, const char *raw, size_t len)
{
	struct each_chunk *e = ctx;
	int ret = 0;

	for (size_t off = 0; !ret && off + e->ps <= len; off += e->ps)
		ret = e->fn(e->ctx, e->cpu, (void *)(raw + off));
	return ret;
}

int nop_dat_each_page(struct nop_dat *w, int (*fn)(void *ctx, int cpu, void *page), void *ctx)
{
	size_t ps = (size_t)w->page_size, chunk = ps * 64;
	char *buf = malloc(chunk);
	int ret = 0;

	if (!buf)
		return -1;
	for (int c = 0; c < w->ncpus && !ret; c++) {
		ssize_t n;

		if (dat_flush_cpu(w, c)) {
			ret = -1;
			break;
		}
		if (w->tmp[c] < 0)
			continue;
		if (nop_zq_drain(w->zq)) {
			ret = -1;
			break;
		}
		if (w->chunked) {
			struct each_chunk e = { fn, ctx, c, ps };

			ret = nop_zchunks_each(w->tmp[c], chunk_pages, &e);
			continue;
		}
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

static const char *const ftrace_events[] = { "function", "kernel_stack", "funcgraph_entry",
					     "funcgraph_exit", "print" };

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


int dat_flush_cpu(struct nop_dat *w, int cpu)
{
	size_t n = w->npend[cpu];

	w->npend[cpu] = 0;
	if (!n)
		return 0;
	if (w->tmp[cpu] < 0 && (w->tmp[cpu] = tmp_beside(w->path)) < 0)
		return -1;
	if (!w->zq && !(w->zq = nop_zq_new(w->chunked)))
		return -1;
	char *batch = w->pend[cpu];

	w->pend[cpu] = NULL; /* the writer thread's now */
	return nop_zq_push(w->zq, w->tmp[cpu], &w->dc[cpu].z, batch, n);
}

/* path's name free for a new file: absent, or (overwrite) a regular
 * file to replace; never a link, a FIFO, a device, a directory. 0, or -1
 * with errno (EEXIST, ELOOP, EINVAL) */
static int name_free(const char *path, bool overwrite)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	errno = !overwrite ? EEXIST : S_ISLNK(st.st_mode) ? ELOOP : !S_ISREG(st.st_mode) ? EINVAL : 0;
	return errno ? -1 : 0;
}

#define PART ".nopctl-part"

/* path's temporary name, DIR/.NAME.nopctl-part[-XXXXXX].TAG (TAG: this
 * nopctl's pid, and its PID namespace where nested): hidden, and known
 * as this nopctl's when it is left (remove_stale_parts) */
static void part_name(char *buf, size_t len, const char *path, bool unique)
{
	char dir[4096], base[4096], tag[64];

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	nop_owner_tag(tag, sizeof(tag), getpid());
	snprintf(buf, len, "%s/.%s%s%s.%s", dirname(dir), basename(base), PART, unique ? "-XXXXXX" : "", tag);
}

/* Temporary names a nopctl killed between naming and renaming left in
 * path's directory: removed when that nopctl (of this PID namespace) is
 * gone and they are regular files of this user */
static void remove_stale_parts(const char *path)
{
	char dir[4096], tag[64];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", path);
	if (!(d = opendir(dirname(dir))))
		return;
	while ((de = readdir(d))) {
		const char *p = strstr(de->d_name, PART), *t = strrchr(de->d_name, '.');
		long pid = t ? strtol(t + 1, NULL, 10) : 0;

		if (de->d_name[0] != '.' || !p || t < p || pid <= 0)
			continue;
		nop_owner_tag(tag, sizeof(tag), (pid_t)pid);
		if (strcmp(t + 1, tag) || kill((pid_t)pid, 0) == 0 || errno != ESRCH ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* a file with no name yet in path's directory (part: "" then), or under
 * its part_name where O_TMPFILE is not offered; 0600: it holds root's
 * /proc/kallsyms (the KASLR layout), as the symbol cache does */
int dat_open_unnamed(const char *path, char *part, size_t len)
{
	char dir[4096], tag[64];
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	part[0] = 0;
	fd = open(dirname(dir), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	part_name(part, len, path, true);
	nop_owner_tag(tag, sizeof(tag), getpid());
	if ((fd = mkstemps(part, (int)strlen(tag) + 1)) < 0)
		part[0] = 0;
	return fd;
}

/* the whole file w->fd linked as path (never following a link there, never
 * replacing anything but a regular file, and that only with overwrite):
 * 0, or -1 with errno */
static int link_as(struct nop_dat *w, const char *path)
{
	char proc[64], tmp[4200];

	if (name_free(path, w->overwrite))
		return -1;
	if (w->part[0]) { /* a name already: link (fails on anything there) or rename over a file */
		if (w->overwrite ? rename(w->part, path) : link(w->part, path))
			return -1;
		if (!w->overwrite)
			unlink(w->part);
		w->part[0] = 0;
		return 0;
	}
	/* overwrite: linked beside, then renamed over the file there */
	part_name(tmp, sizeof(tmp), path, false);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd);
	if (linkat(w->fd, "", AT_FDCWD, w->overwrite ? tmp : path, AT_EMPTY_PATH) &&
	    (errno == EEXIST || linkat(AT_FDCWD, proc, AT_FDCWD, w->overwrite ? tmp : path, AT_SYMLINK_FOLLOW)))
		return -1;
	if (w->overwrite && rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* why path could not be taken, e: name_free's or the system's errno */
static void name_error(struct nop_error *err, int e, const char *path)
{
	nop_error_set(err, NOP_EUSAGE, e,
		      e == EEXIST ? "output file %s exists"
		      : e == EINVAL || e == ENXIO ? "output file %s is not a regular file"
		      : e == ELOOP ? "output file %s is a symbolic link; nopctl does not follow it"
				   : "cannot create output file %s", path);
	if (e == EEXIST)
		err->remedy = NOP_REMEDY_OVERWRITE;
}

static int publish_name(struct nop_dat *w, struct nop_error *err);

/* the kept files rotated away when w was begun, removed as w takes their
 * place (not before: a run killed meanwhile keeps them) */
void dat_drop_rotated(struct nop_dat *w)
{
	for (size_t i = 0; i < w->ndrop; i++)
		unlink(w->drop[i]);
	w->ndrop = 0;
}

/* a job's file is linked under the writers' lock: the reader, removing
 * the oldest file, either finds it linked (and unlinks it) or marks it
 * discarded (never linked): never more files than kept */
static int publish(struct nop_dat *w, struct nop_error *err)
{
	int ret;

	if (!w->q || !w->cut_end)
		return publish_name(w, err);
	/* the lock at the reader's priority: held by a thread that runs
	 * only when nothing else would, it kept the reader waiting */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &(struct sched_param){ 0 });
	pthread_mutex_lock(&w->q->mu);
	dat_drop_rotated(w);
	ret = w->discard ? 0 : publish_name(w, err);
	pthread_mutex_unlock(&w->q->mu);
	return ret;
}

/* Numbered files: a name refused (something put there meanwhile) is
 * skipped for the next number, up to 16 in a row; a name refused ends one
 * file, never the run. 0, or -1 with err */
static int publish_name(struct nop_dat *w, struct nop_error *err)
{
	char dir[4096];
	int dfd;

	for (int tries = 0;; tries++) {
		if (w->numbered)
			dat_file_path(w, w->seq, w->path, sizeof(w->path));
		if (!link_as(w, w->path))
			break;
		if (!w->numbered || tries == 15 || (errno != EEXIST && errno != ELOOP && errno != EINVAL)) {
			name_error(err, errno, w->path);
			return -1;
		}
		w->skipped++;
		w->skipped_errno = errno;
		snprintf(w->skipped_name, sizeof(w->skipped_name), "%s", w->path);
		w->seq++;
	}
	w->published = true;
	/* the name itself on disk: a crash after this leaves the file */
	snprintf(dir, sizeof(dir), "%s", w->path);
	if ((dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
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
	    !(w->dc = calloc((size_t)ncpus, sizeof(*w->dc))) ||
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
	w->overwrite = overwrite;
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(w->tracing_dir, sizeof(w->tracing_dir), "%s", tracing_dir);
	snprintf(w->kallsyms, sizeof(w->kallsyms), "%s", kallsyms ? kallsyms : "/proc/kallsyms");
	remove_stale_parts(path);
	/* the name checked now (it is taken only when the file is whole) */
	if (name_free(path, overwrite) || (w->fd = dat_open_unnamed(path, w->part, sizeof(w->part))) < 0) {
		name_error(err, errno, path);
		nop_dat_free(w, true);
		return -1;
	}
	*wp = w;
	return 0;
}

/* what is written goes through buf, OUT_BUF bytes a write: a header is a
 * few hundred small fields, each a system call otherwise */
#define OUT_BUF 65536

struct out {
	int fd;
	unsigned long long off;
	int err;
	char *buf; /* NULL: written at once */
	size_t len;
	bool mem; /* kept in buf (grown), not written */
	size_t cap;
};

static void out_flush(struct out *o)
{
	if (o->mem)
		return;
	if (!o->err && o->len && nop_write_all(o->fd, o->buf, o->len) < 0)
		o->err = errno;
	o->len = 0;
}

/* fd -1: nothing written, only counted (a header's size) */
static void put(struct out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	o->off += n;
	if (o->mem) {
		if (nop_grow((void **)&o->buf, &o->cap, o->len + n, 1)) {
			o->err = ENOMEM;
			return;
		}
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return;
	}
	if (o->fd < 0)
		return;
	if (o->buf && o->len + n <= OUT_BUF) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return;
	}
	out_flush(o);
	if (!o->err && nop_write_all(o->fd, p, n) < 0)
		o->err = errno;
}

/* n bytes of fd from its start, after what o holds: copied in the
 * kernel where it can (no pass through this process), else read and
 * written */
static void put_fd(struct out *o, int fd, unsigned long long n)
{
	static _Thread_local char buf[1 << 16]; /* per thread: files are written beside the capture */
	loff_t in = 0;
	ssize_t k = 0;

	out_flush(o);
	while (!o->err && (unsigned long long)in < n &&
	       (k = copy_file_range(fd, &in, o->fd, NULL, (size_t)(n - (unsigned long long)in), 0)) > 0)
		o->off += (unsigned long long)k;
	if (o->err || (unsigned long long)in >= n)
		return;
	if (k < 0 && errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
		o->err = errno;
		return;
	}
	while (!o->err && (unsigned long long)in < n && (k = pread(fd, buf, sizeof(buf), in)) > 0) {
		put(o, buf, (size_t)k);
		in += k;
	}
	if (k < 0)
		o->err = errno;
	else if ((unsigned long long)in < n)
		o->err = EIO; /* the saved pages are shorter than counted */
}

static void put32(struct out *o, unsigned int v) { put(o, &v, 4); }

/* zeros up to the next multiple of align (a failed write ends it: put
 * then counts nothing) */
static void put_align(struct out *o, unsigned long long align)
{
	static const char zeros[512];

	while (!o->err && o->off % align) {
		unsigned long long pad = align - o->off % align;

		put(o, zeros, pad < sizeof(zeros) ? (size_t)pad : sizeof(zeros));
	}
}

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
	size_t full = w->ks.len, len, sublen = 0;
	char *v = w->ks.text ? w->ks.text : nop_read_file(w->kallsyms, &full, NULL), *sub = NULL;

	if (v && w->numbered && !w->ks.text) { /* kept, indexed once, for every file */
		w->ks.text = v;
		w->ks.len = full;
		w->ks.idx = nop_ksyms_index(v, full);
	}
	len = full;
	if (v && !w->syms_failed &&
	    (sub = w->ks.idx ? nop_ksyms_subset(w->ks.idx, &w->syms, &sublen) : nop_kallsyms_subset(v, full, &w->syms, &sublen)))
		len = sublen;
	put32(o, v ? (unsigned int)len : 0);
	put(o, sub ? sub : v ? v : "", v ? len : 0);
	free(sub);
	if (v != w->ks.text)
		free(v);
}

void nop_dat_lend_ksyms(struct nop_dat *w, const struct nop_kallsyms_kept *k)
{
	if (!w->ks.text && k->text && k->idx) {
		w->ks = *k;
		w->ksyms_lent = true;
	}
}

/* numbered, no job running: a module loaded or removed since kallsyms
 * was read has its functions' names in it only if it is read again; the
 * next file's writer (a job, or finish) reads it, job_wait keeps it */
void dat_fresh_symbols(struct nop_dat *w)
{
	unsigned long long h;

	if (!w->ks.text || w->ksyms_lent || strcmp(w->kallsyms, "/proc/kallsyms"))
		return;
	h = nop_modules_hash();
	if (h == w->ks.mods)
		return;
	nop_kallsyms_kept_free(&w->ks);
	w->ks.mods = h;
}

/* the process events where tasks are followed, the context switches
 * where they were recorded (catch --before), the kernel events asked
 * for: each once, in the system of each. -1: out of memory */
static int put_event_formats(struct out *o, struct nop_dat *w)
{
	char path[4200];
	bool probes = w->group[0] && w->uprobes && w->uprobes->n;
	unsigned int nproc = 0;
	const char **evs = calloc(NOP_NPROCESS_EVENTS + NOP_NSWITCH_EVENTS + w->nevents, sizeof(*evs));
	size_t nevs = 0;

	if (!evs)
		return -1;
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
	put32(o, (probes ? 1 : 0) + nproc);
	for (size_t i = 0; i < nevs; i++) {
		const char *ev = evs[i], *slash = strchr(ev, '/');

		snprintf(path, sizeof(path), "%s/events/%s/format", w->tracing_dir, ev);
		if (access(path, R_OK))
			continue;
		put(o, ev, (size_t)(slash - ev));
		put(o, "", 1);
		put32(o, 1);
		put_file(o, path, 8);
	}
	free(evs);
	/* user functions' probe events: their own system, their formats */
	if (probes) {
		put(o, w->group, strlen(w->group) + 1);
		put32(o, (unsigned int)w->uprobes->n);
		for (size_t i = 0; i < w->uprobes->n; i++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", w->tracing_dir, w->group,
				 w->uprobes->v[i].event);
			put_file(o, path, 8);
		}
	}
	return 0;
}

/* The metadata both versions hold, one part each (version 7's section
 * ids; version 6 has them in this order without sections): -1 out of
 * memory */
enum { META_HEADERS = 16, META_FTRACE, META_EVENTS, META_KALLSYMS, META_PRINTK, META_CMDLINES };

static int put_meta(struct out *o, struct nop_dat *w, int id)
{
	char path[4200];
	unsigned int nftrace = 0;

	switch (id) {
	case META_HEADERS:
		put(o, "header_page", 12);
		put_file(o, nop_path(path, sizeof(path), w->tracing_dir, "events/header_page"), 8);
		put(o, "header_event", 13);
		put_file(o, nop_path(path, sizeof(path), w->tracing_dir, "events/header_event"), 8);
		return 0;
	case META_FTRACE:
		for (int pass = 0; pass < 2; pass++) {
			if (pass)
				put32(o, nftrace);
			for (size_t i = 0; i < ARRAY_SIZE(ftrace_events); i++) {
				snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", w->tracing_dir,
					 ftrace_events[i]);
				if (access(path, R_OK))
					continue;
				if (pass)
					put_file(o, path, 8);
				else
					nftrace++;
			}
		}
		return 0;
	case META_EVENTS:
		return put_event_formats(o, w);
	case META_KALLSYMS:
		put_kallsyms(o, w);
		return 0;
	case META_PRINTK:
		put_file(o, nop_path(path, sizeof(path), w->tracing_dir, "printk_formats"), 4);
		return 0;
	default:
		if (w->cmdlines) { /* the session's own (a previous boot's tasks) */
			put64(o, strlen(w->cmdlines));
			put(o, w->cmdlines, strlen(w->cmdlines));
			return 0;
		}
		put_file(o, nop_path(path, sizeof(path), w->tracing_dir, "saved_cmdlines"), 8);
		return 0;
	}
}

/* trace-cmd's UNAME option, as trace-cmd writes it: "sysname nodename
 * release machine"; the machine says how a reader pairs user calls
 * (nop_arch_ret_pops) */
static void put_uname(struct out *o)
{
	struct utsname u;
	unsigned short id = 5;
	char s[4 * sizeof(u.sysname)];
	int n;

	if (uname(&u))
		return;
	n = snprintf(s, sizeof(s), "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine);
	put(o, &id, 2);
	put32(o, (unsigned int)n + 1);
	put(o, s, (size_t)n + 1);
}

/* the options of both versions: the machine's name; nopctl's own, the
 * binaries user probes name; in a later file of a rotation, which begins
 * at a cut, or one rotated away or that stopped taking pages at its
 * size, which ends at one, the span every CPU's events cover */
static void put_own_options(struct out *o, struct nop_dat *w)
{
	put_uname(o);
	if (w->group[0] && w->uprobes && w->uprobes->n)
		put_binaries(o, w->uprobes);
	if ((w->numbered && w->seq > 1) || w->cut_end || w->full || w->excerpt) {
		unsigned short id = NOP_DAT_OPT_COMPLETE;
		unsigned long long from, to;

		if (w->excerpt) {
			from = w->excerpt_from;
			to = w->excerpt_to;
		} else {
			dat_complete_span(w, &from, &to);
			from = w->numbered && w->seq > 1 ? from : 0;
			to = w->cut_end || w->full ? to : 0;
		}
		put(o, &id, 2);
		put32(o, 16);
		put64(o, from);
		put64(o, to);
	}
}

static void put_magic(struct out *o, struct nop_dat *w, const char *version)
{
	put(o, "\x17\x08\x44tracing", 10);
	put(o, version, 2);
	put(o, (char[]){ __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, (char)sizeof(long) }, 2);
	put32(o, (unsigned int)w->page_size);
}

/* Version 6: everything before the pages (magic, formats, symbols, task
 * names, the CPUs' offsets, each CPU's pages at a page-aligned offset
 * after it); -1: out of memory */
static int header(struct out *o, struct nop_dat *w, int ncpus)
{
	unsigned long long off;

	put_magic(o, w, "6");
	for (int id = META_HEADERS; id <= META_CMDLINES; id++)
		if (put_meta(o, w, id))
			return -1;
	put32(o, (unsigned int)ncpus);
	/* an options section, with no option in it: trace-cmd convert (3.1.6,
	 * 3.3.1 and 3.4, tried in the guest) refuses a version 6 file without
	 * one ("error writing") */
	put(o, "options  ", 10);
	put_own_options(o, w);
	put(o, (char[2]){ 0, 0 }, 2);
	put(o, "flyrecord", 10);
	off = o->off + 16ULL * (unsigned long long)ncpus;
	off = (off + (unsigned long long)w->page_size - 1) / (unsigned long long)w->page_size *
	      (unsigned long long)w->page_size;
	for (int c = 0; c < ncpus; c++) {
		put64(o, w->size[c] ? off : 0);
		put64(o, w->size[c]);
		off += w->size[c];
	}
	return 0;
}

/* version 7's section descriptions: a STRINGS section, each named by
 * its offset in it */
static const char v7_strings[] = "strings\0headers\0ftrace events\0events format\0kallsyms\0"
				 "printk\0command lines\0buffer flyrecord \0options";

static unsigned int v7_desc(const char *name)
{
	for (size_t i = 0; i < sizeof(v7_strings); i += strlen(v7_strings + i) + 1)
		if (!strcmp(v7_strings + i, name))
			return (unsigned int)i;
	return ~0u;
}

static void put_section(struct out *o, unsigned short id, unsigned short flags, const char *desc,
			unsigned long long size)
{
	put(o, &id, 2);
	put(o, &flags, 2);
	put32(o, v7_desc(desc));
	put64(o, size);
}

/* the clock the pages' times were taken with, as trace_clock shows it
 * ("[local] global ..."): local where it cannot be read */
static void buffer_clock(const struct nop_dat *w, char *clock, size_t len)
{
	char path[4200], *v, *b, *e;

	snprintf(clock, len, "local");
	if (!(v = nop_read_file(nop_path(path, sizeof(path), w->tracing_dir, "trace_clock"), NULL, NULL)))
		return;
	if ((b = strchr(v, '[')) && (e = strchr(b, ']')))
		snprintf(clock, len, "%.*s", (int)(e - b - 1), b + 1);
	free(v);
}

/* Version 7: the magic and the compression's name; the sections (their
 * strings, the metadata each compressed, the CPUs' chunks); last the
 * options saying where each is, the file's first options offset then
 * set to theirs. -1: out of memory */
static int write_v7(struct out *o, struct nop_dat *w, int ncpus)
{
	static const char *const desc[] = { "headers", "ftrace events", "events format", "kallsyms",
					    "printk", "command lines" };
	const char *ver = nop_zstd_version();
	unsigned long long sec[6], optpos, bufsec, data, *cpuoff;
	unsigned long long ps = (unsigned long long)w->page_size;
	struct out m = { .fd = -1, .mem = true };
	char clock[64];

	if (!(cpuoff = calloc((size_t)ncpus + 1, sizeof(*cpuoff))))
		return -1;
	put_magic(o, w, "7");
	put(o, "zstd", 5);
	put(o, ver, strlen(ver) + 1);
	optpos = o->off;
	put64(o, 0);
	put_section(o, 15, 0, "strings", sizeof(v7_strings));
	put(o, v7_strings, sizeof(v7_strings));
	for (int id = META_HEADERS; id <= META_CMDLINES; id++) {
		size_t zl = 0;
		void *z = NULL;

		m.len = 0;
		m.off = 0;
		if (put_meta(&m, w, id) || m.err || !(z = nop_zcompress(m.buf, m.len, &zl))) {
			free(m.buf);
			free(cpuoff);
			return -1;
		}
		sec[id - META_HEADERS] = o->off;
		put_section(o, (unsigned short)id, 1, desc[id - META_HEADERS], 8 + zl);
		put32(o, (unsigned int)zl);
		put32(o, (unsigned int)m.len);
		put(o, z, zl);
		free(z);
	}
	/* the CPUs' chunks, the first page-aligned as trace-cmd puts them:
	 * each its count of chunks, then the chunks compress.c wrote */
	bufsec = o->off;
	data = (o->off + 16 + ps - 1) / ps * ps;
	unsigned long long size = data - (o->off + 16);

	for (int c = 0; c < ncpus; c++)
		if (w->size[c])
			size += 4 + w->dc[c].z.size;
	put_section(o, 3, 1, "buffer flyrecord ", size);
	put_align(o, ps);
	for (int c = 0; c < ncpus && !o->err; c++) {
		cpuoff[c] = o->off;
		if (!w->size[c])
			continue;
		put32(o, w->dc[c].z.chunks);
		put_fd(o, w->tmp[c], w->dc[c].z.size);
	}
	/* the options: where each section is, the CPUs, nopctl's own */
	m.len = 0;
	m.off = 0;
	for (int i = 0; i < 6; i++) {
		put(&m, &(unsigned short){ (unsigned short)(META_HEADERS + i) }, 2);
		put32(&m, 8);
		put64(&m, sec[i]);
	}
	put(&m, &(unsigned short){ 8 }, 2); /* CPUCOUNT */
	put32(&m, 4);
	put32(&m, (unsigned int)ncpus);
	put_own_options(&m, w);
	buffer_clock(w, clock, sizeof(clock));
	put(&m, &(unsigned short){ 3 }, 2); /* BUFFER: the top instance's */
	put32(&m, (unsigned int)(8 + 1 + strlen(clock) + 1 + 8 + 20 * (size_t)ncpus));
	put64(&m, bufsec);
	put(&m, "", 1);
	put(&m, clock, strlen(clock) + 1);
	put32(&m, (unsigned int)w->page_size);
	put32(&m, (unsigned int)ncpus);
	for (int c = 0; c < ncpus; c++) {
		put32(&m, (unsigned int)c);
		put64(&m, cpuoff[c]);
		put64(&m, w->size[c] ? 4 + w->dc[c].z.size : 0);
	}
	put(&m, &(unsigned short){ 0 }, 2); /* DONE: no options section after this one */
	put32(&m, 8);
	put64(&m, 0);
	free(cpuoff);
	if (m.err) {
		free(m.buf);
		return -1;
	}
	unsigned long long opts = o->off;

	put_section(o, 0, 0, "options", m.len);
	put(o, m.buf, m.len);
	free(m.buf);
	out_flush(o);
	if (!o->err && o->fd >= 0 && pwrite(o->fd, &opts, 8, (off_t)optpos) != 8)
		o->err = errno ? errno : EIO;
	return 0;
}

/* version 7 without a size bound: each CPU's saved pages compressed into
 * chunks beside them, now that the capture is over (a job's file: on its
 * writer's thread). 0, or -1 with errno */
static int compress_saved(struct nop_dat *w)
{
	for (int c = 0; c < w->ncpus; c++) {
		int fd, e;

		if (w->tmp[c] < 0 || !w->size[c])
			continue;
		if ((fd = tmp_beside(w->path)) < 0)
			return -1;
		if (nop_zfile(w->tmp[c], fd, &w->dc[c].z, (size_t)w->page_size * BATCH)) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		close(w->tmp[c]);
		w->tmp[c] = fd;
	}
	/* chunked stays as it was: for a job's file the reader reads it
	 * meanwhile (its disk check), and the file's size is not its own */
	return 0;
}

int nop_dat_finish(struct nop_dat *w, struct nop_error *err)
{
	struct out o = { .fd = w->fd };
	int ncpus = 0;

	if (dat_job_wait(w, err))
		return -1;
	o.buf = malloc(OUT_BUF); /* none: written at once */
	if (w->numbered && !w->cut_end) /* the last file, not a job's */
		dat_fresh_symbols(w);
	for (int c = 0; c < w->ncpus; c++) {
		if (dat_flush_cpu(w, c) && !o.err)
			o.err = errno ? errno : EIO;
		if (w->size[c])
			ncpus = c + 1;
	}
	if (nop_zq_drain(w->zq) && !o.err)
		o.err = errno ? errno : EIO;
	w->syms_failed = !w->syms_noted || w->syms.failed;
	if (!w->v6 && !w->chunked && compress_saved(w) && !o.err)
		o.err = errno ? errno : EIO;
	if (w->v6 ? header(&o, w, ncpus) : write_v7(&o, w, ncpus)) {
		free(o.buf);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	for (int c = 0; c < ncpus && !o.err && w->v6; c++) {
		if (!w->size[c])
			continue;
		put_align(&o, (unsigned long long)w->page_size);
		put_fd(&o, w->tmp[c], w->size[c]);
	}
	out_flush(&o);
	free(o.buf);
	if (!o.err && fsync(w->fd) < 0 && errno != EINVAL)
		o.err = errno;
	if (o.err) {
		nop_error_io(err, "write", w->path, o.err);
		return -1;
	}
	return publish(w, err);
}

int nop_dat_describe(struct nop_dat *w, const struct nop_dat_desc *d)
{
	w->v6 = d->uncompressed;
	w->follows = d->follows;
	w->switches = d->switches;
	if (d->cmdlines && !(w->cmdlines = strdup(d->cmdlines)))
		return -1;
	if (d->probes && d->probes->n) {
		snprintf(w->group, sizeof(w->group), "%s", d->group);
		w->uprobes = d->probes;
	}
	if (!d->nevents)
		return 0;
	if (!(w->events = calloc(d->nevents, sizeof(*w->events))))
		return -1;
	for (size_t i = 0; i < d->nevents; i++)
		snprintf(w->events[w->nevents++], sizeof(*w->events), "%s/%s", d->events[i].system, d->events[i].name);
	return 0;
}

void dat_release(struct nop_dat *w)
{
	for (int c = 0; c < w->ncpus && w->tmp; c++) {
		if (w->tmp[c] >= 0)
			close(w->tmp[c]);
		if (w->pend)
			free(w->pend[c]);
	}
	if (w->fd >= 0)
		close(w->fd);
	if (w->part[0])
		unlink(w->part); /* never whole */
	free(w->tmp);
	free(w->size);
	free(w->dc);
	free(w->pend);
	free(w->npend);
	free(w->drop);
	nop_addrset_free(&w->syms);
}

void nop_dat_free(struct nop_dat *w, bool keep)
{
	struct nop_error e;

	if (!w)
		return;
	dat_job_wait(w, &e);
	nop_zq_free(w->zq); /* before the files it writes to are closed */
	if (!keep && w->published)
		unlink(w->path);
	dat_release(w); /* its files rotated away when the run failed: kept */
	free(w->events);
	free(w->cmdlines);
	free(w->files);
	free(w->cov);
	if (w->q) {
		pthread_mutex_destroy(&w->q->mu);
		pthread_cond_destroy(&w->q->cv);
		free(w->q->lastev);
		free(w->q);
	}
	if (!w->ksyms_lent)
		nop_kallsyms_kept_free(&w->ks);
	free(w);
}

/* what a header takes beyond the symbols (those are reserved apart):
 * counted by writing one with no symbols to nothing, every CPU's offset
 * and a page of alignment in */
int dat_header_size(struct nop_dat *w, unsigned long long *n)
{
	/* version 7: written to memory, its metadata compressed (the task
	 * names, a page of alignment and each CPU's count of chunks beside) */
	struct out o = { .fd = -1, .mem = !w->v6 };
	struct nop_addrset none = { 0 }, keep = w->syms;
	bool failed = w->syms_failed;
	int ret;

	w->syms = none;
	w->syms_failed = false;
	ret = w->v6 ? header(&o, w, w->ncpus) : write_v7(&o, w, w->ncpus);
	free(o.buf);
	w->syms = keep;
	w->syms_failed = failed;
	if (ret || o.err)
		return -1;
	*n = o.off + (unsigned long long)w->page_size + (w->v6 ? 0 : 4096 + 4ULL * (unsigned long long)w->ncpus);
	return 0;
}

void nop_dat_excerpt(struct nop_dat *w, unsigned long long from, unsigned long long to)
{
	w->excerpt = true;
	w->excerpt_from = from;
	w->excerpt_to = to;
}

int nop_dat_page(struct nop_dat *w, int cpu, const void *page, size_t len)
{
	size_t ps = (size_t)w->page_size;

	if (cpu < 0 || cpu >= w->ncpus || len > ps)
		return -1;
	/* a page that would take the file past its size: a new file, or
	 * (not numbered) the page and every later one left out */
	if (w->max_size && dat_data_size(w) + ps + w->reserve > w->max_size) {
		if (!w->numbered || w->full) {
			if (!w->full)
				w->span_cap = dat_span_cap(w);
			w->full = true;
			return 0;
		}
		if (nop_dat_next(w, &w->err)) {
			w->full = true; /* no file to write to: the capture ends */
			errno = w->err.sys_errno ? w->err.sys_errno : EIO;
			return -1;
		}
	}
	if (!w->pend[cpu] && !(w->pend[cpu] = malloc(ps * BATCH)))
		return -1;
	/* every page whole: trace-cmd reads the data page by page */
	memcpy(w->pend[cpu] + w->npend[cpu], page, len);
	memset(w->pend[cpu] + w->npend[cpu] + len, 0, ps - len);
	if (len >= 8) { /* a page's header begins with its first event's time */
		unsigned long long ts;

		memcpy(&ts, page, sizeof(ts));
		if (!w->size[cpu])
			w->dc[cpu].first_ts = ts;
		w->dc[cpu].last_ts = ts;
		dat_covered(w, cpu, ts);
	}
	w->npend[cpu] += ps;
	w->size[cpu] += ps;
	if (w->npend[cpu] < ps * BATCH || !dat_flush_cpu(w, cpu))
		return 0;
	/* this file cannot be whole: its pages go, and those of the files
	 * whose writer has not begun, for the space they took is the files'
	 * being written (a full disk) */
	int e = errno;

	nop_zq_drain(w->zq); /* nothing writes to the files closed below */
	dat_abandon_waiting(w);
	for (int c = 0; c < w->ncpus; c++) {
		if (w->tmp[c] >= 0)
			close(w->tmp[c]);
		w->tmp[c] = -1;
		w->size[c] = 0;
		w->dc[c] = (struct dat_cpu){ 0 };
		w->npend[c] = 0;
	}
	errno = e;
	return -1;
}

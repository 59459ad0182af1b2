/* tracedat_bound.c - recordings bounded in size or time (record
 * --max-size, --rotate, --split): the next file begun where one is full,
 * the finished one handed to a thread of its own that counts its events,
 * waits for its compressed pages and writes it (tracedat.c's
 * nop_dat_finish) while the capture reads on; the newest files kept. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "tracedat/writer.h"

/* the bytes of pages the file holds so far; version 7: compressed as
 * written, and the pages waiting for the compressor as much as the
 * chunks so far say they can take (nop_zq_bound): the reader never waits
 * for the compressor to know a file's size */
unsigned long long dat_data_size(const struct nop_dat *w)
{
	unsigned long long n = 0, raw = 0;

	for (int c = 0; c < w->ncpus && !w->chunked; c++)
		n += w->size[c];
	for (int c = 0; c < w->ncpus && w->chunked; c++) {
		/* queued read first: a chunk is counted written before it is
		 * unqueued, so it is counted once or twice, never missed */
		raw += __atomic_load_n(&w->dc[c].z.queued, __ATOMIC_ACQUIRE) + w->npend[c];
		n += __atomic_load_n(&w->dc[c].z.size, __ATOMIC_ACQUIRE);
	}
	return w->chunked ? n + nop_zq_bound(w->zq, raw) : n;
}

void dat_file_path(const struct nop_dat *w, unsigned long long seq, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%llu", w->base, seq);
}

int nop_dat_bound(struct nop_dat *w, const char *base, unsigned long long max_size, bool numbered,
		  unsigned keep, bool overwrite, struct nop_error *err)
{
	unsigned long long fixed;

	snprintf(w->base, sizeof(w->base), "%s", base);
	w->max_size = max_size;
	w->numbered = numbered;
	w->keep = keep;
	w->overwrite = overwrite;
	w->seq = 1;
	w->ks.mods = nop_modules_hash(); /* before kallsyms: a module loaded between is in it */
	if ((max_size || numbered) && dat_header_size(w, &fixed)) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	if (!max_size)
		return 0;
	if (!(w->cov = calloc((size_t)w->ncpus, sizeof(*w->cov)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	w->chunked = !w->v6;
	/* the symbols the events name: a sixteenth of a file until a file
	 * says what they take (compressed: a sixty-fourth) */
	w->ksyms_reserve = max_size / (w->v6 ? 16 : 64);
	w->reserve = fixed + w->ksyms_reserve;
	if (w->reserve + 64ULL * (unsigned long long)w->page_size > max_size) {
		nop_error_set(err, NOP_EUSAGE, 0,
			      "a file of %llu bytes holds too few pages after its header (%llu bytes): give a"
			      " size of at least %llu", max_size, w->reserve,
			      (w->reserve + 64ULL * (unsigned long long)w->page_size) * 2);
		return -1;
	}
	return 0;
}

void nop_dat_counts_add(struct nop_dat_counts *to, const struct nop_dat_counts *c)
{
	to->nfunc += c->nfunc;
	to->nexit += c->nexit;
	to->nkev += c->nkev;
	if (__builtin_add_overflow(to->lost, c->lost, &to->lost))
		to->lost = ~0ULL;
	if (c->first_ts && (!to->first_ts || c->first_ts < to->first_ts))
		to->first_ts = c->first_ts;
	if (c->last_ts > to->last_ts)
		to->last_ts = c->last_ts;
}

void nop_dat_walk_with(struct nop_dat *w, nop_dat_walk_fn fn, void *ctx)
{
	w->walk = w->numbered ? fn : NULL;
	w->walk_ctx = ctx;
}

void nop_dat_wait(struct nop_dat *w)
{
	struct nop_error e; /* a writer's failure stays its file's, said at nop_dat_counted */

	dat_job_wait(w, &e);
}

int nop_dat_counted(struct nop_dat *w, struct nop_dat_counts *c, struct nop_error *err)
{
	int ret = dat_job_wait(w, err);

	*c = w->counted;
	w->counted = (struct nop_dat_counts){ 0 };
	return ret;
}

bool nop_dat_full(const struct nop_dat *w)
{
	return w->full;
}

unsigned long long nop_dat_skipped(const struct nop_dat *w, const char **name, int *why)
{
	*name = w->skipped_name;
	*why = w->skipped_errno;
	return w->skipped;
}

const struct nop_error *nop_dat_error(const struct nop_dat *w)
{
	return &w->err;
}

bool nop_dat_file(struct nop_dat *w, size_t i, char *buf, size_t len, unsigned long long *size,
		  unsigned long long *removed)
{
	struct stat st;
	struct nop_error e;

	if (!i) /* a file a job writes is listed once it is linked, or not at all */
		dat_job_wait(w, &e);

	*removed = w->removed;
	if (i < w->nfiles) {
		dat_file_path(w, w->files[i].seq, buf, len);
		*size = w->files[i].size;
		return true;
	}
	if (i > w->nfiles || (i == w->nfiles && !w->published))
		return false;
	snprintf(buf, len, "%s", w->path);
	*size = fstat(w->fd, &st) == 0 ? (unsigned long long)st.st_size : 0;
	return true;
}

/* a page counted into its file's figures, its last event's time into
 * its CPU's */
static int walk_page(void *ctx, int cpu, void *page)
{
	struct nop_dat *j = ctx;
	struct nop_dat_counts one = { 0 };
	int ret = j->walk(j->walk_ctx, cpu, page, &one, &j->syms);

	nop_dat_counts_add(&j->counted, &one);
	if (cpu >= 0 && cpu < j->ncpus && one.last_ts > j->dc[cpu].ev_last)
		j->dc[cpu].ev_last = one.last_ts;
	return ret;
}

/* the cap on a file's complete span at its cut: a CPU with no page in it
 * may still give events from before the cut (read but not yet handed on,
 * or not yet read), to the next file; its events are whole up to the time
 * it was last known to be (cov). 0: no cap */
unsigned long long dat_span_cap(const struct nop_dat *w)
{
	unsigned long long cap = 0;

	for (int c = 0; w->cov && c < w->ncpus; c++)
		if (!w->size[c] && w->cov[c] && (!cap || w->cov[c] < cap))
			cap = w->cov[c];
	return cap;
}

/* A file of a rotation: its CPUs' pages were cut as each was read, not at
 * one time. from: the latest of the CPUs' first pages' times, and of
 * their last events in the files before (a CPU with no page here may have
 * given the file before events later than this one's first); to: the
 * earliest of their last pages' (a page's header begins with the time of
 * its first event), and the cap taken at the cut (a CPU with no page here
 * may give the next file events from before its end): between them every
 * CPU's events are in the file */
void dat_complete_span(const struct nop_dat *w, unsigned long long *from, unsigned long long *to)
{
	*from = 0;
	*to = ~0ULL;
	for (int c = 0; c < w->ncpus; c++) {
		if (w->q && w->q->lastev && w->q->lastev[c] > *from)
			*from = w->q->lastev[c];
		if (!w->size[c])
			continue;
		if (w->dc[c].first_ts > *from)
			*from = w->dc[c].first_ts;
		if (w->dc[c].last_ts < *to)
			*to = w->dc[c].last_ts;
	}
	if (w->span_cap && w->span_cap < *to)
		*to = w->span_cap;
	if (*to == ~0ULL)
		*to = 0;
}

/* a page of cpu whose first event is at ts handed on: cpu's events up to
 * ts are in the files */
void dat_covered(struct nop_dat *w, int cpu, unsigned long long ts)
{
	if (!w->cov)
		return;
	if (ts > w->cov[cpu])
		w->cov[cpu] = ts;
	if (ts > w->hmax)
		w->hmax = ts;
}

/* read empty after every page handed on so far was read: its events up
 * to the latest page time handed on are in the files (1: a time before
 * any) */
void nop_dat_cpu_empty(void *ctx, int cpu)
{
	struct nop_dat *w = ctx;
	unsigned long long t = w->hmax ? w->hmax : 1;

	if (w->cov && cpu >= 0 && cpu < w->ncpus && t > w->cov[cpu])
		w->cov[cpu] = t;
}

/* a job's thread set to yield to every other (SCHED_IDLE), unless it is
 * urgent: SCHED_IDLE runs only on a CPU nothing else wants, so on a box
 * kept busy by others a file left idle would never be written */
static void job_yield(struct nop_dat *j, pthread_t th)
{
	pthread_mutex_lock(&j->q->mu);
	if (!j->urgent)
		pthread_setschedparam(th, SCHED_IDLE, &(struct sched_param){ 0 });
	pthread_mutex_unlock(&j->q->mu);
}

/* the jobs not yet done made urgent: at the reader's priority (SCHED_OTHER) */
static void jobs_urge(struct nop_dat *w)
{
	pthread_mutex_lock(&w->q->mu);
	for (size_t i = 0; i < w->njobs; i++) {
		struct nop_dat *j = w->jobs[i];

		if (j->job_threaded && !j->job_done && !j->urgent) {
			j->urgent = true;
			pthread_setschedparam(j->job_th, SCHED_OTHER, &(struct sched_param){ 0 });
		}
	}
	pthread_mutex_unlock(&w->q->mu);
}

/* A finished file is written on a thread of its own (its events counted,
 * its symbols noted, its header and pages assembled, synced) while the
 * capture reads on: done in the reader's turn, or waited for by it, that
 * work let the buffers overflow. Files are written one at a time, in
 * order (their turn); the reader waits only when NJOBS are behind. The
 * job owns the file's descriptor, temporary files and symbols; it shares
 * what does not change (formats' sources, kallsyms and its index, the
 * walk's context: one job at a time). */
static void *job_main(void *arg)
{
	struct nop_dat *j = arg;
	struct dat_jobs *q = j->q;
	struct stat st;
	bool discard, abandoned;

	pthread_mutex_lock(&q->mu);
	while (q->turn != j->ticket)
		pthread_cond_wait(&q->cv, &q->mu);
	abandoned = j->abandoned; /* the run failed before its turn: its pages are gone */
	/* a name an earlier file skipped to is taken: the next free one */
	if (q->last_seq >= j->seq)
		j->seq = q->last_seq + 1;
	pthread_mutex_unlock(&q->mu);
	j->counted = (struct nop_dat_counts){ 0 };
	/* the wait at the reader's priority: an idle thread woken with the
	 * queue's lock held, then preempted, would keep the compressor and
	 * the reader waiting on it */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &(struct sched_param){ 0 });
	if (!abandoned && nop_zq_wait(j->zwait, j->zmark)) {
		nop_error_io(&j->err, "write", "a recording's temporary file", errno);
		j->job_ret = -1;
	}
	job_yield(j, pthread_self());
	if (!abandoned && !j->job_ret && j->walk) {
		if (nop_dat_each_page(j, walk_page, j)) {
			nop_error_set(&j->err, NOP_EINTERNAL, errno, "cannot count the pages of %s", j->path);
			j->job_ret = -1;
		} else {
			nop_dat_noted(j);
		}
	}
	pthread_mutex_lock(&q->mu);
	discard = j->discard; /* rotated away before it was written: counted only */
	pthread_mutex_unlock(&q->mu);
	if (!j->job_ret && !discard && !abandoned)
		j->job_ret = nop_dat_finish(j, &j->err);
	/* its CPUs' last events: where the next files' complete spans begin
	 * (after its own was written; one job at a time, in turn) */
	for (int c = 0; c < j->ncpus; c++)
		if (j->dc[c].ev_last > q->lastev[c])
			q->lastev[c] = j->dc[c].ev_last;
	j->job_size = fstat(j->fd, &st) == 0 ? (unsigned long long)st.st_size : 0;
	if (discard && !abandoned) /* a newer file took their place */
		dat_drop_rotated(j);
	/* its files closed here: the last close of a file not linked frees
	 * its pages, work the reader is not to do */
	for (int c = 0; c < j->ncpus; c++)
		if (j->tmp[c] >= 0) {
			close(j->tmp[c]);
			j->tmp[c] = -1;
		}
	close(j->fd);
	j->fd = -1;
	if (j->part[0])
		unlink(j->part);
	j->part[0] = 0;
	/* its end at the reader's priority: the reader joins it */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &(struct sched_param){ 0 });
	pthread_mutex_lock(&q->mu);
	if (j->published && j->seq > q->last_seq)
		q->last_seq = j->seq;
	j->job_done = true;
	q->turn++;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* the job's owned parts released (the shared ones are w's) */
static void job_free(struct nop_dat *j)
{
	dat_release(j);
	free(j);
}

/* a job finished: its counts, its file's number and size, the next
 * files' symbol reserve from what it took; 0, or -1 with err */
static int job_reaped(struct nop_dat *w, struct nop_dat *j, struct nop_error *err)
{
	int ret = j->job_ret;

	if (j->ks.text != w->ks.text) { /* read again (fresh_symbols): the next files' */
		if (!w->ks.text)
			w->ks = j->ks;
		else
			nop_kallsyms_kept_free(&j->ks);
	}
	if (ret)
		*err = j->err;
	nop_dat_counts_add(&w->counted, &j->counted);
	/* its number: the next free one from where it began; failed or
	 * discarded, it was never under a name */
	for (size_t i = 0; i < w->nfiles; i++)
		if (w->files[i].pending && w->files[i].seq == j->seq0) {
			if (ret || !j->published) {
				memmove(w->files + i, w->files + i + 1, (--w->nfiles - i) * sizeof(*w->files));
			} else {
				w->files[i].seq = j->seq;
				w->files[i].size = j->job_size;
				w->files[i].pending = false;
			}
			break;
		}
	if (j->seq >= w->seq) {
		w->seq = j->seq + 1;
		dat_file_path(w, w->seq, w->path, sizeof(w->path));
	}
	if (j->skipped) {
		w->skipped += j->skipped;
		w->skipped_errno = j->skipped_errno;
		snprintf(w->skipped_name, sizeof(w->skipped_name), "%s", j->skipped_name);
	}
	/* the symbols it took: the next files' reserve, and some */
	if (!ret && j->published && w->max_size && j->job_size > dat_data_size(j)) {
		unsigned long long fixed = w->reserve - w->ksyms_reserve, took = j->job_size - dat_data_size(j);
		unsigned long long syms = took > fixed ? took - fixed : 0;

		if (syms + syms / 4 > w->ksyms_reserve)
			w->ksyms_reserve = syms + syms / 4;
		w->reserve = fixed + w->ksyms_reserve;
	}
	job_free(j);
	return ret;
}

/* the jobs that finished, oldest first, taken in; waiting while more than
 * leave are left. 0, or -1 with err (the first failure) */
static int job_reap(struct nop_dat *w, size_t leave, struct nop_error *err)
{
	int ret = 0;

	while (w->njobs) {
		struct nop_dat *j = w->jobs[0];

		if (w->njobs > leave) /* waited for: no longer behind everything */
			jobs_urge(w);
		pthread_mutex_lock(&w->q->mu);
		while (!j->job_done && w->njobs > leave)
			pthread_cond_wait(&w->q->cv, &w->q->mu);
		bool done = j->job_done;

		pthread_mutex_unlock(&w->q->mu);
		if (!done)
			break;
		if (j->job_threaded)
			pthread_join(j->job_th, NULL);
		memmove(w->jobs, w->jobs + 1, --w->njobs * sizeof(*w->jobs));
		if (job_reaped(w, j, ret ? &(struct nop_error){ 0 } : err))
			ret = -1;
	}
	return ret;
}

/* every file handed to a job written (or failed) */
int dat_job_wait(struct nop_dat *w, struct nop_error *err)
{
	return w->q ? job_reap(w, 0, err) : 0;
}

/* the oldest kept file, removed: unlinked, or its job's file never linked */
static void remove_oldest(struct nop_dat *w)
{
	char path[4200];
	struct dat_file *f = &w->files[0];
	struct nop_dat *j = NULL;

	for (size_t i = 0; f->pending && i < w->njobs; i++)
		if (w->jobs[i]->seq0 == f->seq)
			j = w->jobs[i];
	if (j) {
		pthread_mutex_lock(&w->q->mu);
		if (j->published)
			unlink(j->path);
		else
			j->discard = true;
		pthread_mutex_unlock(&w->q->mu);
	} else {
		dat_file_path(w, f->seq, path, sizeof(path));
		if (nop_grow((void **)&w->drop, &w->capdrop, w->ndrop + 1, sizeof(*w->drop)))
			unlink(path); /* no memory: here */
		else
			snprintf(w->drop[w->ndrop++], sizeof(*w->drop), "%s", path);
	}
	memmove(w->files, w->files + 1, --w->nfiles * sizeof(*w->files));
	w->removed++;
}

/* the disk cannot hold the files behind, this one and the next as
 * well: the writers are waited for, as a full disk would fail them all */
static bool disk_short(struct nop_dat *w)
{
	struct statvfs v;
	unsigned long long need = dat_data_size(w) * 2 + (w->max_size > dat_data_size(w) ? w->max_size : dat_data_size(w));

	for (size_t i = 0; i < w->njobs; i++)
		need += dat_data_size(w->jobs[i]);
	return fstatvfs(w->fd, &v) == 0 && (unsigned long long)v.f_bavail * v.f_frsize < need;
}

int nop_dat_next(struct nop_dat *w, struct nop_error *err)
{
	struct nop_dat *j;
	char path[4200], part[4200];
	int fd;

	if (!w->numbered)
		return 0;
	if (!w->q) {
		if (!(w->q = calloc(1, sizeof(*w->q))) ||
		    !(w->q->lastev = calloc((size_t)w->ncpus, sizeof(*w->q->lastev)))) {
			free(w->q);
			w->q = NULL;
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		pthread_mutex_init(&w->q->mu, NULL);
		pthread_cond_init(&w->q->cv, NULL);
	}
	/* a disk short of room: the writers are waited for, and this file is
	 * written here, before the reader writes the next one's pages (a
	 * writer behind, sharing the disk with them, failed) */
	bool short_room = disk_short(w);

	/* the files before are a file behind now: written before this one
	 * is full, whatever else keeps the CPUs busy */
	if (w->njobs)
		jobs_urge(w);
	if (job_reap(w, short_room ? 0 : NJOBS - 1, err))
		return -1;
	if (!w->njobs) /* no job shares kallsyms now */
		dat_fresh_symbols(w);
	for (int c = 0; c < w->ncpus; c++)
		if (dat_flush_cpu(w, c)) {
			nop_error_io(err, "write", "a recording's temporary file", errno);
			return -1;
		}
	if (nop_grow((void **)&w->files, &w->capfiles, w->nfiles + 1, sizeof(*w->files))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	w->files[w->nfiles++] = (struct dat_file){ w->seq, dat_data_size(w), true };
	/* the oldest go before the next is made: with it, keep files (2 or
	 * more: the one written now stays) */
	while (w->keep && w->nfiles + 1 > w->keep)
		remove_oldest(w);
	dat_file_path(w, w->seq + 1, path, sizeof(path));
	if ((fd = dat_open_unnamed(path, part, sizeof(part))) < 0) {
		nop_error_io(err, "create", path, errno);
		return -1;
	}
	/* the file so far to a job; w begins the next with nothing */
	if (!(j = malloc(sizeof(*j)))) {
		close(fd);
		if (part[0])
			unlink(part);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	w->span_cap = dat_span_cap(w);
	*j = *w;
	w->span_cap = 0;
	j->cov = NULL; /* the writer's */
	j->cut_end = true;
	j->seq0 = j->seq;
	j->skipped = 0;
	j->files = NULL;
	j->capfiles = 0;
	j->njobs = 0;
	j->job_done = j->discard = j->abandoned = j->published = j->urgent = false;
	j->job_ret = 0;
	j->pend = calloc((size_t)w->ncpus, sizeof(*j->pend));
	j->npend = calloc((size_t)w->ncpus, sizeof(*j->npend));
	j->zq = NULL; /* w's: its next chunks are the next file's */
	j->zwait = w->zq;
	j->zmark = nop_zq_mark(w->zq);
	w->tmp = malloc((size_t)w->ncpus * sizeof(*w->tmp));
	w->size = calloc((size_t)w->ncpus, sizeof(*w->size));
	w->dc = calloc((size_t)w->ncpus, sizeof(*w->dc));
	if (!j->pend || !j->npend || !w->tmp || !w->size || !w->dc) {
		free(w->tmp);
		free(w->size);
		free(w->dc);
		w->tmp = j->tmp;
		w->size = j->size;
		w->dc = j->dc;
		free(j->pend);
		free(j->npend);
		free(j);
		close(fd);
		if (part[0])
			unlink(part);
		w->nfiles--;
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	for (int c = 0; c < w->ncpus; c++)
		w->tmp[c] = -1;
	w->syms = (struct nop_addrset){ 0 };
	w->syms_noted = w->syms_failed = false;
	w->fd = fd;
	snprintf(w->part, sizeof(w->part), "%s", part);
	w->seq++;
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->drop = NULL; /* the job's now */
	w->ndrop = w->capdrop = 0;
	j->ticket = w->q->next++;
	w->jobs[w->njobs++] = j;
	j->job_threaded = !short_room && pthread_create(&j->job_th, NULL, job_main, j) == 0;
	if (!j->job_threaded) {
		job_main(j); /* no thread: written here, after those before it */
		return dat_job_wait(w, err);
	}
	/* the CPU the reader wants is the reader's: a file is written while
	 * nothing else would run (the reader waits for one only when NJOBS
	 * are behind) */
	job_yield(j, j->job_th);
	return 0;
}

/* the jobs not yet begun give up their pages (the run fails) */
void dat_abandon_waiting(struct nop_dat *w)
{
	if (!w->q)
		return;
	pthread_mutex_lock(&w->q->mu);
	for (size_t i = 0; i < w->njobs; i++) {
		struct nop_dat *j = w->jobs[i];

		if (j->ticket <= w->q->turn)
			continue;
		j->abandoned = true;
		for (int c = 0; c < j->ncpus; c++) {
			if (j->tmp[c] >= 0)
				close(j->tmp[c]);
			j->tmp[c] = -1;
		}
	}
	pthread_mutex_unlock(&w->q->mu);
}


/* lastboot.c - the previous boot's events, read from the persistent
 * instance (the kernel hands each page over once: trace_pipe_raw, read
 * without blocking until it has nothing more) into a trace.dat that
 * nopctl and trace-cmd read: its symbols the previous boot's (this
 * boot's kallsyms moved back by the KASLR delta last_boot_info gives),
 * its task names from the buffer itself (the markers written when the
 * box was armed, process events, context switches). Kept in
 * nop_journal_dir() until the next boot, so it can be read again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blackbox/blackbox.h"

struct tname {
	unsigned long long ts;
	char comm[16];
};

/* a name a record gives: the latest of each task's kept */
static void on_name(void *ctx, int pid, const char *comm, unsigned long long ts)
{
	char key[16];
	struct tname *t;

	if (pid <= 0 || !comm[0])
		return;
	snprintf(key, sizeof(key), "%d", pid);
	if ((t = nop_strmap_get(ctx, key)) && (!t->comm[0] || ts >= t->ts)) {
		t->ts = ts;
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	}
}

static int ignore(void *ctx, const struct nop_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

/* a module's address now (/proc/modules), 0 if it is not loaded */
static unsigned long long module_now(const char *mods, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = mods; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *a;

		if (strncmp(l, name, n) || l[n] != ' ')
			continue;
		/* "NAME SIZE REFS DEPS STATE ADDR" */
		if ((a = strstr(l, " 0x")))
			return strtoull(a + 1, NULL, 16);
	}
	return 0;
}

/* kallsyms as the previous boot had it: the kernel's symbols moved by
 * the delta, a module's by where it was then (where the kernel lists it,
 * 6.15 and later); a module of that boot not loaded now cannot be named
 * (*unnamed). Written to path, 0600. 0, or -1 with err */
static int old_kallsyms(const char *path, const struct bbox_boot *bt, size_t *unnamed, struct nop_error *err)
{
	size_t len;
	char *text = nop_read_file("/proc/kallsyms", &len, err), *mods = nop_read_file("/proc/modules", NULL, NULL);
	FILE *out;
	int fd;

	*unnamed = 0;
	if (!text) {
		free(mods);
		return -1;
	}
	for (size_t i = 0; i < bt->nmods; i++)
		*unnamed += !module_now(mods, bt->mods[i].name);
	/* 6.12 says nothing of the previous boot's modules */
	if (!bt->nmods && mods && mods[0])
		*unnamed = (size_t)-1;
	if ((fd = nop_output_create(path, true, 0600, true)) < 0 || !(out = fdopen(fd, "w"))) {
		nop_error_io(err, "create", path, errno);
		if (fd >= 0)
			close(fd);
		free(text);
		free(mods);
		return -1;
	}
	for (char *save, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a = strtoull(l, NULL, 16), shift = (unsigned long long)bt->delta;
		const char *rest = strchr(l, ' '), *mod = strchr(l, '[');

		if (!rest || !a)
			continue;
		if (mod) { /* "ADDR T NAME\t[MODULE]" */
			char name[64];
			size_t k = 0;
			unsigned long long now;

			snprintf(name, sizeof(name), "%s", mod + 1);
			name[strcspn(name, "]")] = 0;
			while (k < bt->nmods && strcmp(bt->mods[k].name, name))
				k++;
			if (k == bt->nmods || !(now = module_now(mods, name)))
				continue;
			shift = now - bt->mods[k].prev;
		}
		fprintf(out, "%016llx%s\n", a - shift, rest);
	}
	free(text);
	free(mods);
	if (fclose(out)) {
		nop_error_io(err, "write", path, errno);
		return -1;
	}
	return 0;
}

/* every page of one CPU's buffer, appended to *pages (*n of them) */
static int read_cpu(const char *dir, int cpu, size_t ps, char **pages, size_t *n, size_t *cap, int **cpus,
		    size_t *ccap, struct nop_error *err)
{
	char path[4300];
	int fd;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, cpu);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == ENODEV ? 0 : (nop_error_io(err, "open", path, errno), -1);
	for (;;) {
		ssize_t r;

		if (nop_grow((void **)pages, cap, (*n + 1) * ps, 1) || nop_grow((void **)cpus, ccap, *n + 1, sizeof(int))) {
			close(fd);
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		memset(*pages + *n * ps, 0, ps);
		if ((r = read(fd, *pages + *n * ps, ps)) <= 0) {
			int e = errno;

			close(fd);
			if (r == 0 || e == EAGAIN)
				return 0;
			nop_error_io(err, "read", path, e);
			return -1;
		}
		(*cpus)[(*n)++] = cpu;
	}
}

/* the names as a trace.dat keeps them: "PID NAME\n" */
static char *cmdlines(const struct nop_strmap *m)
{
	size_t cap = 0, len = 0, n = nop_strmap_size(m);
	char *out = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *pid;
		const struct tname *t = nop_strmap_at(m, i, &pid);

		if (nop_grow((void **)&out, &cap, len + 48, 1)) {
			free(out);
			return NULL;
		}
		len += (size_t)snprintf(out + len, cap - len, "%s %s\n", pid, t->comm);
	}
	return out ? out : strdup("");
}

int nop_bbox_save(const char *tracing_dir, struct nop_bbox *b, size_t *unnamed, struct nop_error *err)
{
	char cache[4300], ksyms[4300], *pages = NULL, *names = NULL;
	size_t n = 0, cap = 0, ccap = 0, ps, lost_mods = 0;
	struct nop_strmap *m = NULL;
	struct nop_decoder *d = NULL;
	struct nop_dat *w = NULL;
	struct bbox_boot bt;
	int *cpus = NULL, ret = -1;

	if (unnamed)
		*unnamed = 0;
	if (b->saved[0])
		return 0;
	if (!b->last_boot || !b->entries) {
		nop_error_set(err, NOP_EUSAGE, 0, "instance %s holds no events of the previous boot: %s", b->name,
			      !b->last_boot ? (b->armed ? "it was armed in this boot, and arming erased them"
							: "tracing began there in this boot, which erased them")
					    : "nothing was armed there before the reboot, or the machine was"
					      " powered off (a cold boot clears the memory)");
		return -1;
	}
	if (bbox_boot_read(b->dir, &bt)) {
		nop_error_set(err, NOP_EKERNEL, 0, "instance %s: %s/last_boot_info does not describe a previous boot",
			      b->name, b->dir);
		return -1;
	}
	nop_bbox_file(cache, sizeof(cache), b->name, ".last-boot.dat");
	nop_bbox_file(ksyms, sizeof(ksyms), b->name, ".kallsyms");
	if (nop_journal_dir_make(err) < 0 || old_kallsyms(ksyms, &bt, &lost_mods, err) ||
	    !(m = nop_strmap_new(sizeof(struct tname))) || !(d = nop_decoder_new(tracing_dir, err)) ||
	    nop_decoder_names(d, tracing_dir, on_name, m, err))
		goto out;
	ps = (size_t)nop_decoder_page_size(d);
	/* the file made before the kernel hands the pages over (once) */
	if (nop_dat_open(&w, cache, true, tracing_dir, ksyms, (int)ps, err))
		goto out;
	for (int cpu = 0; cpu < nop_ncpus(); cpu++)
		if (read_cpu(b->dir, cpu, ps, &pages, &n, &cap, &cpus, &ccap, err))
			goto out;
	for (size_t i = 0; i < n; i++)
		nop_decode_page(d, cpus[i], pages + i * ps, ignore, NULL);
	nop_decode_flush(d, ignore, NULL);
	if (!(names = cmdlines(m))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		goto out;
	}
	struct nop_dat_desc desc = { .follows = true, .switches = true, .cmdlines = names };

	if (nop_dat_describe(w, &desc)) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (nop_dat_page(w, cpus[i], pages + i * ps, ps)) {
			nop_error_io(err, "write", cache, errno);
			goto out;
		}
	if (nop_dat_finish(w, err))
		goto out;
	snprintf(b->saved, sizeof(b->saved), "%s", cache);
	if (unnamed)
		*unnamed = lost_mods;
	ret = 0;
out:
	nop_dat_free(w, ret == 0);
	unlink(ksyms);
	bbox_boot_free(&bt);
	nop_decoder_free(d);
	nop_strmap_free(m);
	free(pages);
	free(cpus);
	free(names);
	return ret;
}

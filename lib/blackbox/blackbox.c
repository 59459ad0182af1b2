/* blackbox.c - the persistent instance found, and what it holds judged:
 * the previous boot's events (nothing traced there yet this boot), or
 * this boot's. A boot-mapped instance is the one with last_boot_info
 * (6.12 and later, trace_instance=NAME@RESERVE on the command line). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "blackbox/blackbox.h"

void nop_bbox_file(char *buf, size_t len, const char *name, const char *suffix)
{
	snprintf(buf, len, "%s/blackbox-%s%s", nop_journal_dir(), name, suffix);
}

static int by_addr(const void *a, const void *b)
{
	const struct bbox_mod *x = a, *y = b;

	return x->prev < y->prev ? -1 : x->prev > y->prev;
}

/* this boot's _text, from kallsyms (0: unreadable, or hidden by kptr_restrict) */
static unsigned long long text_now(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a, found = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, "_text")) {
			found = a;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

int bbox_boot_read(const char *inst_dir, struct bbox_boot *bt)
{
	char path[4300], *v, *save;
	size_t cap = 0;
	int ret = -1;

	memset(bt, 0, sizeof(*bt));
	if (!(v = nop_read_file(nop_path(path, sizeof(path), inst_dir, "last_boot_info"), NULL, NULL)))
		return -1;
	for (char *l = strtok_r(v, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *end, *name;
		unsigned long long a;
		long long d;

		if (sscanf(l, "text delta: %lld", &d) == 1) { /* 6.12: this boot's minus the previous one's */
			bt->known = true;
			bt->delta = d;
			ret = 0;
			continue;
		}
		/* 6.15 and later: "ADDR\t[kernel]", "ADDR\tMODULE" */
		a = strtoull(l, &end, 16);
		if (end == l || (*end != '\t' && *end != ' '))
			continue;
		name = nop_trim(end);
		if (!strcmp(name, "[kernel]")) {
			unsigned long long now = text_now();

			bt->known = now != 0;
			bt->delta = (long long)(now - a);
			ret = 0;
		} else if (name[0] && name[0] != '[' && strlen(name) < sizeof(bt->mods[0].name) &&
			   !nop_grow((void **)&bt->mods, &cap, bt->nmods + 1, sizeof(*bt->mods))) {
			bt->mods[bt->nmods].prev = a;
			snprintf(bt->mods[bt->nmods++].name, sizeof(bt->mods[0].name), "%s", name);
		}
	}
	free(v);
	if (ret)
		bbox_boot_free(bt);
	else if (bt->nmods)
		qsort(bt->mods, bt->nmods, sizeof(*bt->mods), by_addr);
	return ret;
}

void bbox_boot_free(struct bbox_boot *bt)
{
	free(bt->mods);
	bt->mods = NULL;
	bt->nmods = 0;
}

static unsigned long long read_u64(const char *dir, const char *rel)
{
	char path[4300], *v = nop_read_file(nop_path(path, sizeof(path), dir, rel), NULL, NULL);
	unsigned long long n = v ? strtoull(v, NULL, 10) : 0;

	free(v);
	return n;
}

/* Linux's version as major * 100 + minor (6.12: 612) */
static int kernel_version(void)
{
	struct utsname u;
	int a = 0, b = 0;

	return uname(&u) == 0 && sscanf(u.release, "%d.%d", &a, &b) == 2 ? a * 100 + b : 0;
}

/* no persistent instance: why, and what the command line needs */
static int none(struct nop_error *err)
{
	struct utsname u;
	int v = kernel_version();

	uname(&u);
	if (v && v < 612) {
		nop_error_set(err, NOP_EKERNEL, 0, "Linux %s keeps no trace buffer across a reboot (persistent"
			      " ring buffers came in 6.12); the black box needs a 6.12 or later kernel", u.release);
		return 1;
	}
	nop_error_set(err, NOP_EKERNEL, 0, "this boot has no persistent trace instance: add"
		      " 'reserve_mem=32M:4096:nopctl trace_instance=nopctl@nopctl' to the kernel command line"
		      " (Debian: GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub) and reboot;"
		      " the memory is kept across warm reboots, panics and watchdog resets, not power cycles;"
		      " reserve_mem's region can move when the randomized kernel lands on it (a box lost), a"
		      " fixed one cannot: memmap=32M$ADDR trace_instance=nopctl@ADDR:32M, ADDR in RAM (x86)");
	return 1;
}

int nop_bbox_find(const char *tracing_dir, struct nop_bbox *b, struct nop_error *err)
{
	char path[4300], *v;
	struct dirent *de;
	DIR *d;

	memset(b, 0, sizeof(*b));
	if (!(d = opendir(nop_path(path, sizeof(path), tracing_dir, "instances"))))
		return none(err);
	while ((de = readdir(d))) {
		char dir[4300];

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(b->name))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", path, de->d_name);
		if (!nop_path_exists(dir, "last_boot_info"))
			continue;
		if (b->name[0] && strcmp(de->d_name, b->name) > 0) {
			b->others++;
			continue;
		}
		b->others += b->name[0] != 0;
		snprintf(b->name, sizeof(b->name), "%s", de->d_name);
	}
	closedir(d);
	if (!b->name[0])
		return none(err);
	snprintf(b->dir, sizeof(b->dir), "%s/instances/%s", tracing_dir, b->name);
	b->size_kb = read_u64(b->dir, "buffer_total_size_kb");
	if ((v = nop_read_file(nop_path(path, sizeof(path), b->dir, "current_tracer"), NULL, NULL)))
		snprintf(b->tracer, sizeof(b->tracer), "%s", nop_trim(v));
	free(v);
	struct nop_cpu_stats st;

	nop_buffer_counts(b->dir, NULL, &st);
	b->entries = st.entries;
	nop_bbox_file(path, sizeof(path), b->name, ".journal");
	b->armed = access(path, F_OK) == 0;
	nop_bbox_file(path, sizeof(path), b->name, ".info");
	if (b->armed && (v = nop_read_file(path, NULL, NULL))) {
		snprintf(b->armed_by, sizeof(b->armed_by), "%s", nop_trim(v));
		free(v);
	}
	nop_bbox_file(path, sizeof(path), b->name, ".last-boot.dat");
	if (access(path, F_OK) == 0)
		snprintf(b->saved, sizeof(b->saved), "%s", path);
	/* the previous boot's, until tracing starts there: the kernel shows
	 * its information (6.15 and later say "# Current" after) and nobody
	 * set a tracer or enabled an event there */
	struct bbox_boot bt;

	if (!b->armed && !strcmp(b->tracer, "nop") && bbox_boot_read(b->dir, &bt) == 0) {
		v = nop_read_file(nop_path(path, sizeof(path), b->dir, "events/enable"), NULL, NULL);
		b->last_boot = v && nop_trim(v)[0] == '0';
		free(v);
		bbox_boot_free(&bt);
	}
	return 0;
}

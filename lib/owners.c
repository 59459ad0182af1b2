/* owners.c - what belongs to which nopctl: instances named nopctl-<pid>
 * and journals named <pid>.journal, the liveness of their owner, and the
 * walks over both. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Owner pid of "<prefix><pid><suffix>"; 0 if not of that form. */
static pid_t owner_of(const char *name, const char *prefix, const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix), nl = strlen(name);
	char *end;
	long v;

	if (nl <= pl + sl || strncmp(name, prefix, pl) || strcmp(name + nl - sl, suffix))
		return 0;
	v = strtol(name + pl, &end, 10);
	if (end != name + nl - sl || v <= 0)
		return 0;
	return (pid_t)v;
}

pid_t nop_instance_owner(const char *name)
{
	return owner_of(name, "nopctl-", "");
}

void nop_instance_name(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "nopctl-%d", (int)pid);
}

bool nop_owner_alive(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return strncmp(comm, "nopctl", 6) == 0;
}

/* The next entry of base (opened at the first call) other than . and ..;
 * false at the end, with the directory closed. */
static bool walk(struct nop_walk *w, const char *base, const char *prefix, const char *suffix,
		 bool only_owned)
{
	struct dirent *de;

	if (!w->dir) {
		snprintf(w->base, sizeof(w->base), "%s", base);
		if (!(w->dir = opendir(w->base)))
			return false;
	}
	while ((de = readdir(w->dir))) {
		if (de->d_name[0] == '.')
			continue;
		w->owner = owner_of(de->d_name, prefix, suffix);
		if (only_owned && !w->owner)
			continue;
		snprintf(w->name, sizeof(w->name), "%s", de->d_name);
		snprintf(w->path, sizeof(w->path), "%s/%s", w->base, de->d_name);
		return true;
	}
	nop_walk_end(w);
	return false;
}

bool nop_walk_instances(struct nop_walk *w, const char *tracing_dir)
{
	char base[4200];

	return walk(w, nop_path(base, sizeof(base), tracing_dir, "instances") ? base : "", "nopctl-", "",
		    false);
}

bool nop_walk_journals(struct nop_walk *w, const char *journal_dir)
{
	return walk(w, journal_dir, "", ".journal", true);
}

void nop_walk_end(struct nop_walk *w)
{
	if (w->dir)
		closedir(w->dir);
	w->dir = NULL;
}

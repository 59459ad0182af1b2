/* owners.c - what belongs to which nopctl: instances named nopctl-<pid>
 * and journals named <pid>.journal, and the walks over both (whether an
 * owner still runs: nop_owner_alive, journal.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "session/session.h"

bool nop_lock_held(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd); /* drops our shared lock, if we got it */
	return held;
}

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

const char *nop_pidns_link = "/proc/self/ns/pid";

/* tracefs is one for the whole machine, but pids and /run/nopctl are per
 * container: an instance named for pid 1234 of another PID namespace is
 * not ours to judge. Outside the first namespace an instance's name says
 * which one ("nopctl-1234-ns4026532301"); only names of our own namespace
 * have an owner here. */
static const char *ns_suffix(void)
{
	static char suffix[40];
	static const char *read_from;
	char link[64] = "";
	unsigned long long ino;
	ssize_t n;

	if (read_from == nop_pidns_link)
		return suffix;
	read_from = nop_pidns_link;
	suffix[0] = 0;
	n = readlink(nop_pidns_link, link, sizeof(link) - 1);
	if (n > 0)
		link[n] = 0;
	/* the first PID namespace's inode is PROC_PID_INIT_INO */
	if (n > 0 && sscanf(link, "pid:[%llu]", &ino) == 1 && ino != 0xEFFFFFFCull)
		snprintf(suffix, sizeof(suffix), "-ns%llu", ino);
	return suffix;
}

bool nop_pidns_nested(void)
{
	return ns_suffix()[0] != 0;
}

void nop_owner_tag(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "%d%s", (int)pid, ns_suffix());
}

/* "<pid>" or "<pid>-ns<inode>" at the start of name: where it ends, or
 * NULL */
static const char *tag_end_sep(const char *name, char sep, pid_t *pid)
{
	char *end;
	long v = strtol(name, &end, 10);

	if (end == name || v <= 0 || name[0] == '-' || name[0] == '+')
		return NULL;
	*pid = (pid_t)v;
	if (end[0] == sep && end[1] == 'n' && end[2] == 's' && end[3] >= '0' && end[3] <= '9')
		for (end += 3; *end >= '0' && *end <= '9';)
			end++;
	return end;
}

static const char *tag_end(const char *name, pid_t *pid)
{
	return tag_end_sep(name, '-', pid);
}

const char *nop_instance_of_group(const char *group, char *buf, size_t len)
{
	pid_t pid;
	const char *end = !strncmp(group, "nopctl_", 7) ? tag_end_sep(group + 7, '_', &pid) : NULL;

	if (!end || *end || !strstr(group + 7, "_ns"))
		return NULL;
	snprintf(buf, len, "instances/nopctl-%s", group + 7);
	for (char *c = buf + 17; *c; c++)
		if (*c == '_')
			*c = '-';
	return buf;
}

bool nop_instance_of_any_ns(const char *name)
{
	pid_t pid;
	const char *end = !strncmp(name, "nopctl-", 7) ? tag_end(name + 7, &pid) : NULL;

	return end && !*end;
}

pid_t nop_instance_owner(const char *name)
{
	return owner_of(name, "nopctl-", ns_suffix());
}

/* probe groups: the kernel takes [A-Za-z0-9_] only, so '_' where an
 * instance name has '-' */
pid_t nop_probe_group_owner(const char *name)
{
	char suffix[48];

	snprintf(suffix, sizeof(suffix), "%s", ns_suffix());
	if (suffix[0])
		suffix[0] = '_';
	return owner_of(name, "nopctl_", suffix);
}

void nop_probe_group(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "nopctl_%d%s", (int)pid, ns_suffix());
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
}

void nop_instance_name(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "nopctl-%d%s", (int)pid, ns_suffix());
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

	return walk(w, nop_path(base, sizeof(base), tracing_dir, "instances") ? base : "", "nopctl-",
		    ns_suffix(), false);
}

/* journals of every PID namespace that shares the directory: whether
 * one is alive is its lock's to say, whoever looks */
bool nop_walk_journals(struct nop_walk *w, const char *journal_dir)
{
	while (walk(w, journal_dir, "", "", false)) {
		const char *end = tag_end(w->name, &w->owner);

		if (end && !strcmp(end, ".journal")) {
			snprintf(w->tag, sizeof(w->tag), "%.*s", (int)(end - w->name), w->name);
			return true;
		}
	}
	return false;
}

void nop_walk_end(struct nop_walk *w)
{
	if (w->dir)
		closedir(w->dir);
	w->dir = NULL;
}

/* doctor_users.c - who else is tracing: the top level, other instances,
 * nopctl sessions that died, and events lost in any buffer right now. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "doctor.h"

/* append ", text" to a list buffer */
static void add(char *list, size_t len, const char *text)
{
	size_t off = strlen(list);

	snprintf(list + off, len - off, "%s%s", off ? ", " : "", text);
}

static bool lock_held(void)
{
	char path[4200];
	int fd, held = 0;

	snprintf(path, sizeof(path), "%s/top-level.lock", nop_journal_dir());
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		held = 1;
	close(fd); /* drops our shared lock, if we got it */
	return held;
}

void doc_check_users(struct doc *d)
{
	char why[200], path[4200], stale[1024] = "", others[1024] = "", buf[300];
	int live = 0;
	struct dirent *de;
	DIR *dir;

	if (lock_held())
		doc_say(d, "top_level", NULL, NOP_CHECK_WARN,
			"wait for it, or see 'nopctl status'",
			"another nopctl (pid %d) holds the top level (%s/top-level.lock)",
			nop_top_level_holder(), nop_journal_dir());
	else if (nop_top_level_user(d->tdir, why, sizeof(why)))
		doc_say(d, "top_level", NULL, NOP_CHECK_WARN,
			"nopctl leaves it alone: trace runs in an instance; --top-level, and graph where"
			" the kernel runs it only at the top level, refuse with exit 4 unless --force",
			"in use by someone else: %s", why);
	else
		doc_say(d, "top_level", NULL, NOP_CHECK_OK, NULL,
			"free: current_tracer is nop and no filter or pid is set");

	if ((dir = opendir(nop_path(path, sizeof(path), d->tdir, "instances")))) {
		while ((de = readdir(dir))) {
			char rel[600], *tracer;
			struct nop_error e;
			int pid;

			if (de->d_name[0] == '.')
				continue;
			if (sscanf(de->d_name, "nopctl-%d", &pid) == 1) {
				if (!nop_owner_alive(pid)) {
					snprintf(buf, sizeof(buf), "instance %s (pid %d is gone)", de->d_name, pid);
					add(stale, sizeof(stale), buf);
				}
				continue;
			}
			snprintf(rel, sizeof(rel), "instances/%s/current_tracer", de->d_name);
			tracer = doc_read(d, rel, &e);
			snprintf(buf, sizeof(buf), "%s (tracer %s)", de->d_name, tracer ? tracer : "?");
			add(others, sizeof(others), buf);
			free(tracer);
		}
		closedir(dir);
	}
	if ((dir = opendir(nop_journal_dir()))) {
		while ((de = readdir(dir))) {
			int pid = atoi(de->d_name);

			if (pid <= 0 || !strstr(de->d_name, ".journal"))
				continue;
			if (nop_owner_alive(pid)) {
				live++; /* every session, instance or top level, has one */
			} else {
				snprintf(buf, sizeof(buf), "journal %s/%s (pid %d is gone)", nop_journal_dir(),
					 de->d_name, pid);
				add(stale, sizeof(stale), buf);
			}
		}
		closedir(dir);
	}
	if (*others)
		doc_say(d, "instances.others", NULL, NOP_CHECK_OK, NULL,
			"instances of other tools (nopctl does not touch them): %s", others);
	doc_say(d, "sessions", NULL, NOP_CHECK_OK, NULL, "%d nopctl session(s) running", live);
	if (*stale)
		doc_say(d, "stale", NULL, NOP_CHECK_WARN,
			"run 'nopctl reset' (the next nopctl run also cleans up)",
			"left by nopctl processes that died: %s", stale);
	else
		doc_say(d, "stale", NULL, NOP_CHECK_OK, NULL, "no instance or journal of a dead nopctl");
}

/* one buffer's overrun and dropped events, appended to list */
static void buffer_lost(const char *dir, const char *name, char *list, size_t len)
{
	unsigned long long overrun, dropped;
	char buf[300];

	nop_buffer_lost(dir, NULL, &overrun, &dropped);
	if (!overrun && !dropped)
		return;
	snprintf(buf, sizeof(buf), "%s: %llu overrun, %llu dropped", name, overrun, dropped);
	add(list, len, buf);
}

void doc_check_lost(struct doc *d)
{
	char lost[1024] = "", path[4200], idir[4600];
	struct dirent *de;
	DIR *dir;

	buffer_lost(d->tdir, "top level", lost, sizeof(lost));
	if ((dir = opendir(nop_path(path, sizeof(path), d->tdir, "instances")))) {
		while ((de = readdir(dir)))
			if (de->d_name[0] != '.') {
				snprintf(idir, sizeof(idir), "%s/%s", path, de->d_name);
				buffer_lost(idir, de->d_name, lost, sizeof(lost));
			}
		closedir(dir);
	}
	if (*lost)
		doc_say(d, "lost", NULL, NOP_CHECK_WARN,
			"a bigger buffer (-b KB), fewer functions, a pid filter (-p), or a faster reader",
			"events lost in buffers right now: %s", lost);
	else
		doc_say(d, "lost", NULL, NOP_CHECK_OK, NULL, "no events lost in any buffer right now");
}

/* shared.c - top-level settings every buffer shares (max_graph_depth,
 * tracing_thresh, set_graph_notrace, set_graph_function; on kernels that
 * keep one set of tracer options, options/...): one value at a time.
 *
 * Sessions in instances run side by side, but these files act on all of
 * them. A per-session journal would restore them out of order (A sets 3,
 * B sets 5, A's exit puts back 0 under B, B's puts back A's 3 for good).
 * So they have one registry, /run/nopctl/shared, changed under an flock
 * of shared.lock and written (fsync'd, renamed) before the file is:
 *	setting <rel> <hex prior> <hex value> <hex read back | ?>
 *	user <tag> <rel>           (its journal's: "<pid>", nested "<pid>-ns<inode>")
 * The first user writes down the value before it and sets the file;
 * later users asking for the same value join; a different value is
 * refused while a user lives (EBUSY, naming it). When the last user is
 * gone (its exit, or the next nopctl after a kill -9: a user is alive
 * while its journal is locked) the prior value is put back, if the file
 * still holds what nopctl wrote. Empty fields are "-".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "session/session.h"

#define MAX_SETTINGS 32
#define MAX_USERS 64

struct setting {
	char rel[128];
	char *prior, *want, *holds; /* holds NULL: being written */
	char users[MAX_USERS][48]; /* journal tags (owners.c) */
	int nusers;
};

struct registry {
	struct setting v[MAX_SETTINGS];
	int n;
	char path[4200];
};

static char *hex_of(const char *s)
{
	return *s ? nop_hex(s) : strdup("-");
}

static char *of_hex(const char *h)
{
	char *s = strdup(!strcmp(h, "-") ? "" : h);

	if (s && nop_unhex(s) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

static void registry_free(struct registry *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->v[i].prior);
		free(r->v[i].want);
		free(r->v[i].holds);
	}
	r->n = 0;
}

static struct setting *find(struct registry *r, const char *rel)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].rel, rel))
			return &r->v[i];
	return NULL;
}

/* Lines that do not parse are dropped: the registry is only ever
 * replaced whole (rename), so a damaged one was not written by nopctl. */
static void load(struct registry *r)
{
	char *text = nop_read_file(r->path, NULL, NULL);

	r->n = 0;
	for (char *save, *l = text ? strtok_r(text, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		char a[128], b[4096], c[4096], d[4096], tag[48];
		struct setting *s;

		if (sscanf(l, "setting %127s %4095s %4095s %4095s", a, b, c, d) == 4 && r->n < MAX_SETTINGS &&
		    !strstr(a, "..") && a[0] != '/' && !find(r, a)) {
			s = &r->v[r->n];
			memset(s, 0, sizeof(*s));
			snprintf(s->rel, sizeof(s->rel), "%s", a);
			s->prior = of_hex(b);
			s->want = of_hex(c);
			s->holds = strcmp(d, "?") ? of_hex(d) : NULL;
			if (s->prior && s->want)
				r->n++;
			else
				free(s->prior), free(s->want), free(s->holds);
		} else if (sscanf(l, "user %47s %127s", tag, a) == 2 && (s = find(r, a)) &&
			   s->nusers < MAX_USERS && atoi(tag) > 0 && !strchr(tag, '/')) {
			snprintf(s->users[s->nusers++], sizeof(tag), "%s", tag);
		}
	}
	free(text);
}

static int save(struct registry *r, struct nop_error *err)
{
	char tmp[4300];
	FILE *f;
	bool ok = true;

	if (r->n == 0) {
		if (unlink(r->path) < 0 && errno != ENOENT) {
			nop_error_io(err, "remove", r->path, errno);
			return -1;
		}
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.new", r->path);
	if (!(f = fopen(tmp, "we"))) {
		nop_error_io(err, "create", tmp, errno);
		return -1;
	}
	fprintf(f, "nopctl-shared 1\n");
	for (int i = 0; i < r->n && ok; i++) {
		struct setting *s = &r->v[i];
		char *p = hex_of(s->prior), *w = hex_of(s->want), *h = s->holds ? hex_of(s->holds) : NULL;

		ok = p && w && (h || !s->holds);
		if (ok)
			fprintf(f, "setting %s %s %s %s\n", s->rel, p, w, h ? h : "?");
		for (int u = 0; u < s->nusers && ok; u++)
			fprintf(f, "user %s %s\n", s->users[u], s->rel);
		free(p), free(w), free(h);
	}
	ok = ok && fflush(f) == 0 && fdatasync(fileno(f)) == 0;
	if (fclose(f) != 0 || !ok || rename(tmp, r->path) < 0) {
		nop_error_io(err, "write", r->path, ok ? errno : EIO);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static char *read_rel(const char *dir, const char *rel)
{
	char path[4300];

	return nop_read_file(nop_path(path, sizeof(path), dir, rel), NULL, NULL);
}

/* Settings whose users are all gone: put back, if still nopctl's. */
static void prune(struct registry *r, const char *tracing_dir, pid_t leaving,
		  struct nop_replay *rep)
{
	for (int i = 0; i < r->n;) {
		struct setting *s = &r->v[i];
		int live = 0;
		char gone[48] = "";

		if (leaving)
			nop_owner_tag(gone, sizeof(gone), leaving);
		for (int u = 0; u < s->nusers; u++)
			if (strcmp(s->users[u], gone) && nop_tag_alive(s->users[u]))
				memmove(s->users[live++], s->users[u], sizeof(s->users[u]));
		s->nusers = live;
		if (live) {
			i++;
			continue;
		}
		char *now = read_rel(tracing_dir, s->rel);
		struct nop_error e2;

		if (s->holds && (!now || strcmp(now, s->holds)))
			nop_replay_left(rep, s->rel, "changed since nopctl set it: left as it is");
		else if (nop_restore_file(tracing_dir, s->rel, s->prior, &e2) < 0)
			nop_replay_left(rep, s->rel, e2.msg);
		free(now);
		free(s->prior), free(s->want), free(s->holds);
		memmove(s, s + 1, (size_t)(r->n - i - 1) * sizeof(*s));
		r->n--;
	}
}

static int lock_registry(struct registry *r, struct nop_error *err)
{
	char lock[4200];
	int fd;

	if (nop_journal_dir_make(err) < 0)
		return -1;
	snprintf(r->path, sizeof(r->path), "%s/shared", nop_journal_dir());
	snprintf(lock, sizeof(lock), "%s/shared.lock", nop_journal_dir());
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		nop_error_io(err, "lock", lock, errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	load(r);
	return fd;
}

static void unlock_registry(struct registry *r, int fd)
{
	registry_free(r);
	close(fd);
}

/* Does the file's text hold the value (a list: no entry for "")? */
static bool holds_value(const char *now, const char *want, bool list)
{
	char *v;
	bool same;

	if (list && !*want)
		return nop_list_empty(now);
	if (!(v = strdup(now ? now : "")))
		return false;
	same = !strcmp(nop_trim(v), want);
	free(v);
	return same;
}

static int write_value(const char *dir, const char *rel, const char *want, bool list,
		       struct nop_error *err)
{
	char path[4300], *copy;
	int ret;

	if (!nop_path(path, sizeof(path), dir, rel)) {
		nop_error_set(err, NOP_EINTERNAL, ENAMETOOLONG, "path too long");
		return -1;
	}
	if (!list)
		return nop_write_file(path, want, false, err);
	if (nop_write_file(path, "", false, err) || !(copy = strdup(want)))
		return -1;
	ret = 0;
	for (char *save, *l = strtok_r(copy, "\n", &save); l && !ret; l = strtok_r(NULL, "\n", &save))
		ret = nop_write_file(path, l, true, err);
	free(copy);
	return ret;
}

int nop_shared_take(const char *tracing_dir, const char *write_dir, const char *rel,
		    const char *want, bool list, struct nop_error *err)
{
	struct registry r;
	struct nop_replay rep = { 0 };
	struct setting *s;
	char *now;
	int fd = lock_registry(&r, err), ret = 0;

	if (fd < 0)
		return -1;
	prune(&r, tracing_dir, 0, &rep);
	if ((s = find(&r, rel))) {
		if (strcmp(s->want, want)) {
			nop_error_set(err, NOP_EBUSY, 0,
				      "%s is '%.60s' for nopctl %s, and every tracing buffer shares it;"
				      " ask for the same value or wait for it to finish", rel, s->want,
				      s->users[0]);
			ret = -1;
		} else if (s->nusers < MAX_USERS) {
			nop_owner_tag(s->users[s->nusers++], sizeof(s->users[0]), getpid());
			ret = save(&r, err);
		}
		unlock_registry(&r, fd);
		return ret;
	}
	if (r.n >= MAX_SETTINGS || !(now = read_rel(tracing_dir, rel))) {
		nop_error_set(err, NOP_EINTERNAL, 0, "cannot take shared setting %s", rel);
		unlock_registry(&r, fd);
		return -1;
	}
	s = &r.v[r.n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	s->prior = now;
	s->want = strdup(want);
	nop_owner_tag(s->users[s->nusers++], sizeof(s->users[0]), getpid());
	if (holds_value(now, want, list))
		s->holds = strdup(now);
	if (!s->want || save(&r, err) < 0) {
		unlock_registry(&r, fd);
		return -1;
	}
	if (!s->holds) {
		ret = write_value(write_dir, rel, want, list, err);
		s->holds = read_rel(tracing_dir, rel);
		if (save(&r, ret ? NULL : err) < 0)
			ret = -1;
	}
	unlock_registry(&r, fd);
	return ret;
}

int nop_shared_release(const char *tracing_dir, pid_t pid, struct nop_replay *rep,
		       struct nop_error *err)
{
	struct registry r;
	int fd, ret;

	if (nop_journal_dir_check(err) < 0)
		return 0; /* nothing was ever shared */
	if ((fd = lock_registry(&r, err)) < 0)
		return -1;
	prune(&r, tracing_dir, pid, rep);
	ret = save(&r, err);
	unlock_registry(&r, fd);
	return ret;
}

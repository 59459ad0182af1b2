/* restore.c - putting a tracefs file back to the value it was read at. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/session.h"

const char *nop_buffer_rel(const char *rel)
{
	const char *slash;

	if (strncmp(rel, "instances/", 10) || !(slash = strchr(rel + 10, '/')))
		return rel;
	return slash + 1;
}

static bool is_list_file(const char *rel)
{
	rel = nop_buffer_rel(rel);
	static const char *const lists[] = {
		"set_ftrace_filter", "set_ftrace_notrace", "set_graph_function",
		"set_graph_notrace", "set_ftrace_pid",	   "set_ftrace_notrace_pid",
		"set_event_pid",     "set_event_notrace_pid",
	};

	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		if (!strcmp(rel, lists[i]))
			return true;
	return false;
}

/* A buffer that was never expanded reads "7 (expanded: 1408)": a 7 KB
 * placeholder and the size the kernel will give it at its first tracer.
 * 6.12 and 6.19 keep that promise at the top level while an instance
 * traces; 6.1 drops it at the first tracer use anywhere (the top level then
 * reads a bare "7" for good). A write while the promise stands would
 * allocate the buffer on every CPU. */
static bool buffer_still_promised(const char *path)
{
	char *now = nop_read_file(path, NULL, NULL);
	bool promised = now && strstr(now, "expanded: ");

	free(now);
	return promised;
}

/* A list entry as read back, in the form it is written in: a module's
 * function reads "func [mod]" and is written "func:mod:mod" (set_graph_*:
 * "func"); a function
 * command (trigger) reads "func:cmd[:args]:unlimited" or ":count=N" and is
 * written "func:cmd[:args]" or "func:cmd[:args]:N". */
const char *nop_list_writable(const char *rel, const char *l, char *buf, size_t len)
{
	const char *mod = strstr(l, " ["), *last = strrchr(l, ':');

	if (mod && l[strlen(l) - 1] == ']') {
		/* set_graph_* take no ":mod:": the name alone */
		if (strcmp(rel, "set_ftrace_filter") && strcmp(rel, "set_ftrace_notrace"))
			snprintf(buf, len, "%.*s", (int)(mod - l), l);
		else
			snprintf(buf, len, "%.*s:mod:%.*s", (int)(mod - l), l,
				 (int)(strlen(mod) - 3), mod + 2);
		return buf;
	}
	if (last && !strcmp(last, ":unlimited")) {
		snprintf(buf, len, "%.*s", (int)(last - l), l);
		return buf;
	}
	if (last && !strncmp(last, ":count=", 7)) {
		snprintf(buf, len, "%.*s:%s", (int)(last - l), l, last + 7);
		return buf;
	}
	return l;
}

/* Lists read back one entry per line, "#..." comments and "no pid" meaning
 * empty; everything else reads back as the value it is written as, except
 * buffer_size_kb ("7 (expanded: 1408)": written back only where the kernel
 * dropped its promise), trace_clock ("[local] global"), an event's filter
 * (its first line; "none" written "0") and enable ("0*" written "0"). */
int nop_restore_file(const char *tracing_dir, const char *rel, const char *prior,
		     struct nop_error *err)
{
	char path[4096], *val = strdup(prior), *v;
	const char *file = nop_buffer_rel(rel); /* what the file is, in any buffer */
	int ret = 0;

	if (!val || !nop_path(path, sizeof(path), tracing_dir, rel)) {
		free(val);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	if (is_list_file(rel)) {
		ret = nop_write_file(path, "", false, err);
		for (char *save, *l = strtok_r(val, "\n", &save); l && ret == 0;
		     l = strtok_r(NULL, "\n", &save)) {
			char entry[600];

			l = nop_trim(l);
			if (!nop_list_entry(l))
				continue;
			ret = nop_write_file(path, nop_list_writable(file, l, entry, sizeof(entry)), true, err);
		}
		free(val);
		return ret;
	}
	v = nop_trim(val);
	if (!strcmp(v, "X") && strstr(file, "buffer_size_kb")) {
		/* per-CPU sizes that differ: journaled one CPU at a time */
		free(val);
		return 0;
	}
	if (!strcmp(file, "buffer_size_kb")) {
		char *exp = strstr(v, "expanded: ");

		if (exp && buffer_still_promised(path)) {
			free(val);
			return 0;
		}
		if (exp) {
			v = exp + 10;
			v[strcspn(v, ")")] = 0;
		}
	} else if (strlen(rel) > 7 && !strcmp(rel + strlen(rel) - 7, "/filter")) {
		v[strcspn(v, "\n")] = 0; /* after it, the error of a failed write */
		if (!strcmp(v, "none"))
			v = "0";
	} else if (strlen(rel) > 7 && !strcmp(rel + strlen(rel) - 7, "/enable")) {
		/* "0*": a trigger holds the event in soft mode; the mark is the
		 * trigger's, not part of the value (the kernel refuses it) */
		v[strcspn(v, "*")] = 0;
	} else if (!strcmp(file, "trace_clock")) {
		char *open = strchr(v, '[');

		if (open) {
			v = open + 1;
			v[strcspn(v, "]")] = 0;
		}
	}
	ret = nop_write_file(path, v, false, err);
	free(val);
	return ret;
}

static int remove_instance(const char *tracing_dir, const char *name, int tries_busy,
			   struct nop_error *err)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/instances/%s", tracing_dir, name);
	for (int tries = 0; rmdir(path) < 0; tries++) {
		if (errno == ENOENT)
			return 0;
		if (errno == EBUSY && !tries_busy)
			return 1;
		if (errno != EBUSY || tries >= tries_busy) {
			nop_error_io(err, "remove instance", path, errno);
			return -1;
		}
		usleep(20000); /* a reader that is closing still holds it */
	}
	return 0;
}

int nop_instance_remove(const char *tracing_dir, const char *name, struct nop_error *err)
{
	return remove_instance(tracing_dir, name, 50, err);
}

/* an instance someone holds open (a session of another PID namespace) is
 * refused by the kernel at once: 1, left */
int nop_instance_remove_unheld(const char *tracing_dir, const char *name, struct nop_error *err)
{
	return remove_instance(tracing_dir, name, 0, err);
}

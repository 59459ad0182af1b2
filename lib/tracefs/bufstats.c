/* bufstats.c - a ring buffer's per-CPU counters (per_cpu/cpuN/stats):
 * what status, doctor and the end of a run report as overrun and dropped;
 * and a buffer's settings as status shows them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs/tracefs.h"

int nop_cpu_stats_read(const char *buffer_dir, int cpu, struct nop_cpu_stats *st,
		       struct nop_error *err)
{
	char path[4096], *text;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", buffer_dir, cpu);
	memset(st, 0, sizeof(*st));
	text = nop_read_file(path, NULL, err);
	if (!text)
		return -1;
	for (char *save, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		sscanf(l, "entries: %llu", &st->entries);
		sscanf(l, "overrun: %llu", &st->overrun);
		sscanf(l, "commit overrun: %llu", &st->commit_overrun);
		sscanf(l, "bytes: %llu", &st->bytes);
		sscanf(l, "dropped events: %llu", &st->dropped);
		sscanf(l, "read events: %llu", &st->read);
	}
	free(text);
	return 0;
}

long long nop_cpu_buffer_kb(const char *buffer_dir, int cpu)
{
	char path[4096], *v, *x;
	struct nop_error e;
	long long kb;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/buffer_size_kb", buffer_dir, cpu);
	if (!(v = nop_read_file(path, NULL, &e)))
		return -1;
	kb = strtoll((x = strstr(v, "expanded:")) ? x + 9 : v, NULL, 10);
	free(v);
	return kb > 0 ? kb : -1;
}

int nop_buffer_fill(const char *buffer_dir, const struct nop_cpuset *cpus)
{
	struct nop_cpu_stats cs;
	struct nop_error e;
	int most = -1;

	for (int cpu = 0; cpu < nop_ncpus(); cpu++) {
		long long kb;

		if (cpus && !nop_cpuset_has(cpus, cpu))
			continue;
		if ((kb = nop_cpu_buffer_kb(buffer_dir, cpu)) > 0 &&
		    nop_cpu_stats_read(buffer_dir, cpu, &cs, &e) == 0) {
			int pct = (int)(cs.bytes * 100 / (kb * 1024));

			if (pct > most)
				most = pct;
		}
	}
	return most;
}

void nop_buffer_counts(const char *buffer_dir, const struct nop_cpuset *cpus,
		       struct nop_cpu_stats *sum)
{
	struct nop_cpu_stats cs;
	struct nop_error e;

	memset(sum, 0, sizeof(*sum));
	for (int cpu = 0; cpu < nop_ncpus(); cpu++) {
		if (cpus && !nop_cpuset_has(cpus, cpu))
			continue;
		if (nop_cpu_stats_read(buffer_dir, cpu, &cs, &e) == 0) {
			sum->entries += cs.entries;
			sum->overrun += cs.overrun;
			sum->commit_overrun += cs.commit_overrun;
			sum->dropped += cs.dropped;
			sum->read += cs.read;
			sum->bytes += cs.bytes;
		}
	}
}

/* set_graph_function: the roots of a graph (the top level's only, where
 * instances lack it) */
const char *const nop_list_files[NOP_LISTS] = { "set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_pid",
						"set_graph_function" };

/* a list file's entries (comments and "no pid" left out) joined by
 * spaces into *out, how many into *n */
static int list_entries(const char *dir, const char *rel, char **out, size_t *n)
{
	char path[4200], *v, *o;
	struct nop_error e;

	*n = 0;
	if (!(v = nop_read_file(nop_path(path, sizeof(path), dir, rel), NULL, &e)) && !(v = strdup("")))
		return -1;
	if (!(*out = o = calloc(1, strlen(v) + 1))) {
		free(v);
		return -1;
	}
	for (char *save, *l = strtok_r(v, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		l = nop_trim(l);
		if (!nop_list_entry(l))
			continue;
		if ((*n)++)
			strcat(o, " ");
		strcat(o, l);
	}
	free(v);
	return 0;
}

int nop_buffer_state_read(const char *dir, struct nop_buffer_state *s)
{
	char path[4200], *v;
	struct nop_error e;

	memset(s, 0, sizeof(*s));
	if ((v = nop_read_file(nop_path(path, sizeof(path), dir, "current_tracer"), NULL, &e))) {
		snprintf(s->tracer, sizeof(s->tracer), "%s", nop_trim(v));
		free(v);
	}
	if ((v = nop_read_file(nop_path(path, sizeof(path), dir, "tracing_on"), NULL, &e))) {
		s->on = strtoull(v, NULL, 10) != 0;
		free(v);
	}
	for (int i = 0; i < NOP_LISTS; i++) {
		if (access(nop_path(path, sizeof(path), dir, nop_list_files[i]), F_OK))
			continue; /* a file this buffer does not have */
		s->has[i] = true;
		if (list_entries(dir, nop_list_files[i], &s->list[i], &s->nlist[i])) {
			nop_buffer_state_free(s);
			return -1;
		}
	}
	nop_buffer_counts(dir, NULL, &s->counts);
	return 0;
}

void nop_buffer_state_free(struct nop_buffer_state *s)
{
	for (int i = 0; i < NOP_LISTS; i++) {
		free(s->list[i]);
		s->list[i] = NULL;
	}
}

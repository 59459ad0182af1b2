/* resolver.c - addresses to symbol names and pids to task names. Live:
 * the text symbols of /proc/kallsyms in one sorted array over one string
 * arena (~4 MB for 150,000 lines, where libtraceevent's list took several
 * times that); a trace.dat's: through its libtraceevent handle. A
 * direct-mapped cache sits in front of both. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include <traceevent/event-parse.h>

#include "events/events.h"

#define SYM_CACHE 4096 /* power of two */
#define COMM_SLOTS 4096

struct sym_slot {
	unsigned long long addr, off;
	const char *name;
};

struct comm_slot {
	int pid; /* 0: empty */
	char comm[17];
};

struct ksym {
	unsigned long long addr;
	unsigned name; /* offset in the arena */
	unsigned pad;  /* 0: the array is written to the boot cache as it is */
};

struct nop_resolver {
	struct ksym *ksyms;
	size_t nksyms;
	char *arena;
	void *map; /* ksyms and arena from the boot cache (funcs_cache.c) */
	size_t maplen;
	char kallsyms[256]; /* read at the first lookup (nop_resolver_defer_kallsyms) */
	bool recorded; /* nop_resolver_from_dat: names from the file, no /proc */
	char tracing_dir[4096];
	struct sym_slot syms[SYM_CACHE];
	struct comm_slot comms[COMM_SLOTS];
	size_t ncomms;
	time_t cmdlines_loaded;
	const struct nop_uprobes *uprobes; /* user functions' keys to names */
};

struct nop_resolver *nop_resolver_new(const char *tracing_dir, struct nop_error *err)
{
	struct nop_resolver *r = nop_zalloc(sizeof(*r), err);

	if (!r)
		return NULL;
	snprintf(r->tracing_dir, sizeof(r->tracing_dir), "%s", tracing_dir ? tracing_dir : "");
	return r;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the boot cache of /proc/kallsyms' text symbols: this header, the sorted
 * array, the arena of names */
struct ksym_cache {
	char magic[8];
	unsigned long long n, alen;
};
static const char ksym_magic[8] = "nopksym1";

static void drop_symbols(struct nop_resolver *r)
{
	if (r->map) {
		munmap(r->map, r->maplen);
	} else {
		free(r->ksyms);
		free(r->arena);
	}
	r->map = NULL;
	r->ksyms = NULL;
	r->arena = NULL;
	r->nksyms = 0;
	memset(r->syms, 0, sizeof(r->syms));
}

static bool map_cached(struct nop_resolver *r)
{
	size_t len = 0;
	const struct ksym_cache *h = nop_boot_cache_map("ksyms", &len);
	const struct ksym *k;
	const char *arena;

	if (!h)
		return false;
	k = (const struct ksym *)(h + 1);
	arena = (const char *)(k + h->n);
	/* whole and consistent, or not used */
	if (len < sizeof(*h) || memcmp(h->magic, ksym_magic, 8) || h->n > len / sizeof(*k) ||
	    len != sizeof(*h) + h->n * sizeof(*k) + h->alen || !h->alen || arena[h->alen - 1]) {
		munmap((void *)h, len);
		return false;
	}
	for (size_t i = 0; i < h->n; i++)
		if (k[i].name >= h->alen || (i && k[i].addr < k[i - 1].addr)) {
			munmap((void *)h, len);
			return false;
		}
	r->map = (void *)h;
	r->maplen = len;
	r->ksyms = (struct ksym *)k;
	r->arena = (char *)arena;
	r->nksyms = h->n;
	return true;
}

static void write_cache(const struct nop_resolver *r, size_t alen)
{
	struct ksym_cache h = { .n = r->nksyms, .alen = alen };
	struct iovec v[] = { { &h, sizeof(h) },
			     { r->ksyms, r->nksyms * sizeof(*r->ksyms) },
			     { r->arena, alen } };

	memcpy(h.magic, ksym_magic, 8);
	/* addresses hidden (kptr_restrict, lockdown: all 0) are not kept: they
	 * would outlive a change of the setting */
	if (alen && r->nksyms && r->ksyms[r->nksyms - 1].addr)
		nop_boot_cache_write("ksyms", v, 3);
}

/* kallsyms' lines, text symbols kept: parsed by hand (nop_kallsyms_line;
 * sscanf was most of the cost: 150,000 lines at every start of a report
 * and at the first named address of a run) */
static int parse_kallsyms(struct nop_resolver *r, const char *p, const char *end, size_t *alenp)
{
	size_t cap = 0, acap = 0, alen = 0;

	while (p < end) {
		struct nop_kline l;

		/* text only: the addresses events carry are code */
		if (nop_kallsyms_skip_other(&p, end) || !nop_kallsyms_line(&p, end, &l) ||
		    !nop_ksym_is_text(l.type) || !l.nlen || l.nlen > 511)
			continue;
		if ((r->nksyms == cap && nop_grow((void **)&r->ksyms, &cap, r->nksyms + 1, sizeof(*r->ksyms))) ||
		    (alen + l.nlen + 1 > acap && nop_grow((void **)&r->arena, &acap, alen + l.nlen + 1, 1)))
			return -1;
		memcpy(r->arena + alen, l.name, l.nlen);
		r->arena[alen + l.nlen] = 0;
		r->ksyms[r->nksyms++] = (struct ksym){ .addr = l.addr, .name = (unsigned)alen };
		alen += l.nlen + 1;
	}
	for (size_t i = 1; i < r->nksyms; i++)
		if (r->ksyms[i].addr < r->ksyms[i - 1].addr) { /* sort only what is not */
			qsort(r->ksyms, r->nksyms, sizeof(*r->ksyms), by_addr);
			break;
		}
	*alenp = alen;
	return 0;
}

int nop_resolver_load_kallsyms(struct nop_resolver *r, const char *path, struct nop_error *err)
{
	bool live = !strcmp(path, "/proc/kallsyms");
	size_t len = 0, alen = 0;
	char *text;

	drop_symbols(r);
	if (live && map_cached(r))
		return 0;
	if (!(text = nop_read_file(path, &len, err)))
		return -1;
	if (parse_kallsyms(r, text, text + len, &alen)) {
		free(text);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	free(text);
	if (live)
		write_cache(r, alen);
	return 0;
}

static void comm_put(struct nop_resolver *r, int pid, const char *comm);

/* "pid comm" lines (saved_cmdlines) into the task-name table */
static void put_cmdlines(struct nop_resolver *r, char *text)
{
	for (char *save, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' ');
		int pid = atoi(l);

		if (sp && pid > 0)
			comm_put(r, pid, sp + 1);
	}
}

struct nop_resolver *nop_resolver_from_dat(const struct nop_dat_in *in, struct nop_error *err)
{
	struct nop_resolver *r = nop_resolver_new(NULL, err);
	size_t alen;
	char *names;

	if (!r)
		return NULL;
	r->recorded = true;
	if ((in->kallsyms.p && parse_kallsyms(r, in->kallsyms.p, in->kallsyms.p + in->kallsyms.len, &alen)) ||
	    !(names = strdup(in->cmdlines.p ? in->cmdlines.p : ""))) {
		nop_resolver_free(r);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	put_cmdlines(r, names);
	free(names);
	return r;
}

void nop_resolver_defer_kallsyms(struct nop_resolver *r, const char *path)
{
	snprintf(r->kallsyms, sizeof(r->kallsyms), "%s", path);
}

/* the last symbol at or below addr */
static const char *ksym_find(struct nop_resolver *r, unsigned long long addr,
			     unsigned long long *start)
{
	size_t lo = 0, hi;

	if (r->kallsyms[0]) {
		struct nop_error e;

		/* once: a failure leaves addresses unnamed */
		nop_resolver_load_kallsyms(r, r->kallsyms, &e);
		r->kallsyms[0] = 0;
	}
	hi = r->nksyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* past the last symbol, or far from the one below (a trampoline
	 * ftrace allocated in module space): no name, as the kernel prints it */
	if (!lo || lo == r->nksyms || addr - r->ksyms[lo - 1].addr >= (1ULL << 20))
		return NULL;
	*start = r->ksyms[lo - 1].addr;
	return r->arena + r->ksyms[lo - 1].name;
}

const char *nop_resolve_sym(struct nop_resolver *r, unsigned long long addr,
			    unsigned long long *off)
{
	struct sym_slot *s = &r->syms[(addr >> NOP_KFUNC_ALIGN_SHIFT ^ addr >> 16) & (SYM_CACHE - 1)];
	unsigned long long start = 0;
	const char *name = NULL;

	if (s->name && s->addr == addr) {
		if (off)
			*off = s->off;
		return s->name;
	}
	if ((addr & NOP_UKEY_MASK) == NOP_UKEY) {
		int i = nop_uprobe_find(r->uprobes, addr);

		if (off)
			*off = 0;
		return i < 0 ? NULL : r->uprobes->v[i].shown;
	}
	if (!(name = ksym_find(r, addr, &start)))
		return NULL;
	s->addr = addr;
	s->name = name;
	s->off = addr - start;
	if (off)
		*off = s->off;
	return name;
}

void nop_resolver_set_probes(struct nop_resolver *r, const struct nop_uprobes *u)
{
	r->uprobes = u;
}

const struct nop_uprobes *nop_resolver_probes(const struct nop_resolver *r)
{
	return r ? r->uprobes : NULL;
}

const struct nop_uprobe *nop_resolve_uprobe(struct nop_resolver *r, unsigned long long addr)
{
	int i = (addr & NOP_UKEY_MASK) == NOP_UKEY ? nop_uprobe_find(r->uprobes, addr) : -1;

	return i < 0 ? NULL : &r->uprobes->v[i];
}

const char *nop_resolve_binary(struct nop_resolver *r, unsigned long long addr)
{
	const struct nop_uprobe *p = nop_resolve_uprobe(r, addr);

	return p && p->bin[0] ? p->bin : NULL; /* a recording by an older nopctl names none */
}

static struct comm_slot *comm_slot(struct nop_resolver *r, int pid)
{
	unsigned h = (unsigned)pid * 2654435761u;

	for (unsigned i = 0; i < COMM_SLOTS; i++) {
		struct comm_slot *c = &r->comms[(h + i) & (COMM_SLOTS - 1)];

		if (c->pid == pid || c->pid == 0)
			return c;
	}
	return NULL;
}

static void comm_put(struct nop_resolver *r, int pid, const char *comm)
{
	struct comm_slot *c = comm_slot(r, pid);

	if (!c && r->ncomms >= COMM_SLOTS * 3 / 4) {
		memset(r->comms, 0, sizeof(r->comms)); /* full: start over */
		r->ncomms = 0;
		c = comm_slot(r, pid);
	}
	if (!c)
		return;
	if (!c->pid) {
		if (r->ncomms >= COMM_SLOTS * 3 / 4) {
			memset(r->comms, 0, sizeof(r->comms));
			r->ncomms = 0;
			c = comm_slot(r, pid);
		}
		r->ncomms++;
	}
	c->pid = pid;
	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	c->comm[strcspn(c->comm, "\n")] = 0;
}

/* saved_cmdlines: "pid comm" lines the kernel keeps for traced tasks */
static void load_cmdlines(struct nop_resolver *r)
{
	char path[4200], *text;
	struct nop_error e;

	if (!r->tracing_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/saved_cmdlines", r->tracing_dir);
	text = nop_read_file(path, NULL, &e);
	if (!text)
		return;
	put_cmdlines(r, text);
	free(text);
}

void nop_resolver_set_comm(struct nop_resolver *r, int pid, const char *comm)
{
	comm_put(r, pid, comm);
}

const char *nop_resolve_comm(struct nop_resolver *r, int pid)
{
	struct comm_slot *c;
	char path[64], buf[32];
	FILE *f;

	if (pid == 0)
		return "<idle>";
	c = comm_slot(r, pid);
	if (c && c->pid == pid)
		return c->comm;
	if (r->recorded)
		return "<...>"; /* not in the file's task names */
	/* an event's pid is the first PID namespace's: a nested one's /proc
	 * would name another task (the kernel's saved names do not) */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (!nop_pidns_nested() && (f = fopen(path, "re"))) {
		if (fgets(buf, sizeof(buf), f)) {
			fclose(f);
			comm_put(r, pid, buf);
			goto found;
		}
		fclose(f);
	}
	if (time(NULL) != r->cmdlines_loaded) {
		r->cmdlines_loaded = time(NULL);
		load_cmdlines(r);
		goto found;
	}
	return "<...>";
found:
	c = comm_slot(r, pid);
	return c && c->pid == pid ? c->comm : "<...>";
}

void nop_resolver_free(struct nop_resolver *r)
{
	if (!r)
		return;
	drop_symbols(r);
	free(r);
}

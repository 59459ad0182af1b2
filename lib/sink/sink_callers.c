/* sink_callers.c - who calls it: each hit's kernel stack (the function
 * tracer's func_stack_trace) or a user function's user stack (its probe
 * event's, userstacktrace) counted per unique stack of callers, by
 * function name; at the end, per function its stacks, most hits first:
 * text, JSON ("callers" objects) or folded lines for a flame graph. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sink/sink.h"

struct callers {
	struct nop_strmap *stacks; /* "func\n" then the callers innermost first, ';' apart -> count */
	struct nop_strmap *funcs;  /* func -> hits */
	unsigned long long no_stack; /* hits that came without their stack */
	bool folded;
	/* per CPU, the function of a hit whose stack did not come with it:
	 * the kernel writes the stack right after its hit, but a hit that
	 * ends a page has it on the CPU's next page, a STACK of its own */
	char *pend[NOP_MAX_CPUS];
	/* a user function's hit waiting for its user stack: its probe and
	 * return address (the caller, which a stack unwound by frame
	 * pointers from a function's entry leaves out) */
	const struct nop_uprobe *upend[NOP_MAX_CPUS];
	unsigned long long uret[NOP_MAX_CPUS], uhit[NOP_MAX_CPUS];
	/* the probed binaries' functions, to name user addresses */
	struct nop_ubin *bins;
	size_t nbins;
	/* user functions' hits, and of them those whose stack held no frame
	 * past the caller (a binary without frame pointers) */
	unsigned long long uhits, ushort;
	/* user hits no user stack followed, by "func\ncaller" (counted
	 * so at the end if no user stack came at all: the kernel records
	 * none), and the user stacks that came */
	struct nop_strmap *conly;
	unsigned long long caller_only, ustacks;
};

static int callers_init(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err)
{
	struct callers *c;

	if (nop_sink_priv(s, sizeof(*c), err))
		return -1;
	c = s->priv;
	c->folded = cfg->stats.folded;
	if (!(c->stacks = nop_strmap_new(sizeof(unsigned long long))) ||
	    !(c->funcs = nop_strmap_new(sizeof(unsigned long long))) ||
	    !(c->conly = nop_strmap_new(sizeof(unsigned long long)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	return 0;
}

static const char *probe_name(const struct nop_uprobe *up)
{
	return up->shown ? up->shown : up->sym;
}

/* the probed binary's functions (loaded once); NULL if it cannot be read */
static const struct nop_ubin *bin_of(struct callers *c, const char *path)
{
	struct nop_ubin *b;
	struct nop_error e;

	for (size_t i = 0; i < c->nbins; i++)
		if (!strcmp(c->bins[i].path, path))
			return c->bins[i].n ? &c->bins[i] : NULL;
	if (!(b = realloc(c->bins, (c->nbins + 1) * sizeof(*b))))
		return NULL;
	c->bins = b;
	b = &c->bins[c->nbins++];
	if (nop_ubin_load(path, b, &e)) {
		memset(b, 0, sizeof(*b));
		snprintf(b->path, sizeof(b->path), "%s", path);
	}
	return b->n ? b : NULL;
}

/* A user address, named by the probed binary's functions: the probe's
 * own address (ip, the stack's first frame) is the probe's file offset in
 * it, and the binary's code is one mapping, so an address of its code is
 * at the same distance from it in the file; elsewhere (a library), the
 * address */
static void user_name(struct callers *c, const struct nop_uprobe *up, unsigned long long ip,
		      unsigned long long addr, char *buf, size_t len)
{
	const struct nop_ubin *b = bin_of(c, up->path);
	unsigned long long va = addr - ip + up->vaddr;
	size_t lo = 0, hi = b ? b->n : 0;

	while (lo < hi) { /* the last function at or below va */
		size_t mid = (lo + hi) / 2;

		if (b->v[mid].vaddr <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && b->v[lo - 1].alias)
		lo--;
	if (lo > 0 && va - b->v[lo - 1].vaddr < b->v[lo - 1].size)
		snprintf(buf, len, "%s", nop_usym_shown(&b->v[lo - 1]));
	else
		snprintf(buf, len, "0x%llx", addr);
}

/* a stack's next frame, ';' after the one before it; the key's length */
static size_t add_frame(char *key, size_t len, size_t off, const char *name)
{
	return off + (size_t)snprintf(key + off, len - off, "%s%s", key[off - 1] == '\n' ? "" : ";", name);
}

/* one more hit of the stack "func\ncaller;..." in m */
static int count_stack(struct nop_strmap *m, const char *key)
{
	unsigned long long *n = nop_strmap_get(m, key);

	if (!n)
		return -1;
	++*n;
	return 0;
}

/* a user hit's key: "func\n", its caller from its return address ret
 * (0: not known), then frames; each named from hit, the address the hit
 * ran at */
static void user_key(struct nop_sink *s, struct callers *c, const struct nop_uprobe *up, unsigned long long hit,
		     unsigned long long ret, const unsigned long long *frames, int nframes, char *key, size_t len)
{
	char name[NOP_NAME_MAX + 32];
	size_t off = (size_t)snprintf(key, len, "%s\n", probe_name(up));

	for (int k = ret ? -1 : 0; k < nframes && off < len - 1; k++) {
		user_name(c, up, hit, k < 0 ? ret : frames[k], name, sizeof(name));
		nop_sink_text_in(s, name, sizeof(name));
		off = add_frame(key, len, off, name);
	}
}

/* a user function's hit, its stack: the caller from its return address,
 * then the frames past the hit's own (the stack's first) */
static int user_stack(struct nop_sink *s, struct callers *c, int cpu, const struct nop_event *ev)
{
	const struct nop_uprobe *up = c->upend[cpu];
	char key[8192];

	c->upend[cpu] = NULL;
	c->no_stack--;
	c->ustacks++;
	c->ushort += ev->nstack <= 2;
	user_key(s, c, up, ev->stack[0], c->uret[cpu], ev->stack + 1, ev->nstack - 1, key, sizeof(key));
	return count_stack(c->stacks, key);
}

/* a user function's hit the CPU's next user hit came after with no user
 * stack between, or the capture's end did: its caller, from its return
 * address, kept aside (user_callers_only) */
static int user_caller_only(struct nop_sink *s, struct callers *c, int cpu)
{
	char key[8192];

	if (!c->uret[cpu] || !c->uhit[cpu]) {
		c->upend[cpu] = NULL;
		return 0; /* nothing known of it: one of no_stack */
	}
	user_key(s, c, c->upend[cpu], c->uhit[cpu], c->uret[cpu], NULL, 0, key, sizeof(key));
	c->upend[cpu] = NULL;
	if (!strchr(key, '\n'))
		return 0; /* a name longer than a key: one of no_stack */
	return count_stack(c->conly, key);
}

/* at the end: where no user stack came at all (a kernel built without
 * USER_STACKTRACE_SUPPORT, such as Debian's arm64 6.1, records none, its
 * option there all the same), each user hit is counted with its caller
 * alone; where some came, one missing is a hit without its stack */
static int user_callers_only(struct nop_sink *s, struct callers *c)
{
	for (int cpu = 0; cpu < NOP_MAX_CPUS; cpu++)
		if (c->upend[cpu] && user_caller_only(s, c, cpu))
			return -1;
	for (size_t i = 0; !c->ustacks && i < nop_strmap_size(c->conly); i++) {
		const char *key;
		unsigned long long k = *(unsigned long long *)nop_strmap_at(c->conly, i, &key), *n;

		if (!(n = nop_strmap_get(c->stacks, key)))
			return -1;
		*n += k;
		c->no_stack -= k;
		c->caller_only += k;
	}
	return 0;
}

/* A hit's stack begins where the kernel took it: ftrace's trampoline (no
 * name), then the traced function itself; its callers follow */
static int callers_event(struct nop_sink *s, const struct nop_event *ev)
{
	struct callers *c = s->priv;
	char key[8192], fn[NOP_NAME_MAX + 32], name[NOP_NAME_MAX + 32];
	unsigned long long *n;
	size_t off;
	int i = 0;
	bool cpu_ok = ev->cpu >= 0 && ev->cpu < NOP_MAX_CPUS;

	if (ev->type == NOP_EV_STACK && ev->user_stack) {
		if (cpu_ok && c->upend[ev->cpu] && ev->nstack)
			return user_stack(s, c, ev->cpu, ev);
		return 0;
	}
	if (ev->type == NOP_EV_FUNC && (ev->ip & NOP_UKEY_MASK) == NOP_UKEY) {
		const struct nop_uprobe *up = nop_resolve_uprobe(s->res, ev->ip);

		if (!(n = nop_strmap_get(c->funcs, up ? probe_name(up) : nop_sink_func(s, ev->ip))))
			return -1;
		++*n;
		c->uhits++;
		c->no_stack++;
		if (cpu_ok && c->upend[ev->cpu] && user_caller_only(s, c, ev->cpu))
			return -1;
		if (cpu_ok && up) {
			c->upend[ev->cpu] = up;
			c->uret[ev->cpu] = ev->parent_ip;
			c->uhit[ev->cpu] = ev->uhit;
		}
		return 0;
	}
	if (ev->type == NOP_EV_STACK && cpu_ok && c->pend[ev->cpu]) {
		/* the stack of the CPU's last hit, from its next page */
		snprintf(fn, sizeof(fn), "%s", c->pend[ev->cpu]);
		free(c->pend[ev->cpu]);
		c->pend[ev->cpu] = NULL;
		c->no_stack--;
	} else if (ev->type != NOP_EV_FUNC) {
		return 0;
	} else {
		nop_sink_sym(s, ev->ip, fn, sizeof(fn), false);
		if (!(n = nop_strmap_get(c->funcs, fn)))
			return -1;
		++*n;
		if (cpu_ok) {
			free(c->pend[ev->cpu]);
			c->pend[ev->cpu] = NULL;
		}
	}
	if (!ev->nstack) {
		c->no_stack++;
		if (cpu_ok && !(c->pend[ev->cpu] = strdup(fn)))
			return -1;
		return 0;
	}
	for (; i < ev->nstack; i++) { /* past the trampoline and the function */
		nop_sink_sym(s, ev->stack[i], name, sizeof(name), false);
		if (!strcmp(name, fn)) {
			i++;
			break;
		}
	}
	if (i >= ev->nstack && ev->nstack)
		i = 0; /* the function not in its own stack: all of it */
	off = (size_t)snprintf(key, sizeof(key), "%s\n", fn);
	for (int k = i; k < ev->nstack && off < sizeof(key) - 1; k++) {
		nop_sink_sym(s, ev->stack[k], name, sizeof(name), false);
		off = add_frame(key, sizeof(key), off, name);
	}
	return count_stack(c->stacks, key);
}

/* calls (a graph recording) have no stacks: nothing to count */
static int callers_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	return 0;
}

struct row {
	const char *key;
	unsigned long long n, fn_hits;
};

/* by function (most hits first), then by stack (most first) */
static int cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	size_t lx = strcspn(x->key, "\n"), ly = strcspn(y->key, "\n");
	int d;

	if (x->fn_hits != y->fn_hits)
		return x->fn_hits < y->fn_hits ? 1 : -1;
	if ((d = strncmp(x->key, y->key, lx < ly ? lx + 1 : ly + 1)))
		return d;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* "a;b;c" (innermost first) written outermost first, joined by sep */
static void reversed(FILE *out, const char *stack, const char *sep)
{
	const char *end = stack + strlen(stack);

	while (end > stack) {
		const char *start = end;

		while (start > stack && start[-1] != ';')
			start--;
		fprintf(out, "%.*s%s", (int)(end - start), start, start > stack ? sep : "");
		end = start > stack ? start - 1 : stack;
	}
}

static int callers_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct callers *c = s->priv;
	size_t n;
	struct row *r;
	bool json = s->enc == NOP_ENC_JSON;
	const char *last = NULL;

	if (user_callers_only(s, c))
		return -1;
	n = nop_strmap_size(c->stacks);
	r = calloc(n + 1, sizeof(*r));
	if (!r)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char fn[NOP_NAME_MAX + 32];
		const unsigned long long *h;

		r[i].n = *(unsigned long long *)nop_strmap_at(c->stacks, i, &r[i].key);
		snprintf(fn, sizeof(fn), "%.*s", (int)strcspn(r[i].key, "\n"), r[i].key);
		h = nop_strmap_find(c->funcs, fn);
		r[i].fn_hits = h ? *h : 0;
	}
	qsort(r, n, sizeof(*r), cmp);
	for (size_t i = 0; i < n; i++) {
		const char *nl = strchr(r[i].key, '\n'), *stack = nl + 1;
		int fl = (int)(nl - r[i].key);

		if (c->folded) { /* outermost first, the function last */
			reversed(s->out, stack, ";");
			fprintf(s->out, "%s%.*s %llu\n", *stack ? ";" : "", fl, r[i].key, r[i].n);
		} else if (json) {
			struct nop_fields f;
			char fn[NOP_NAME_MAX + 32];

			snprintf(fn, sizeof(fn), "%.*s", fl, r[i].key);
			nop_fields_open(&f, s->out, true);
			nop_field_str(&f, "type", NULL, "callers");
			nop_field_str(&f, "func", NULL, fn);
			nop_field_u64(&f, "count", NULL, r[i].n);
			nop_field_array_open(&f, "stack");
			for (const char *p = stack; *p;) {
				char name[NOP_NAME_MAX + 32];
				size_t len = strcspn(p, ";");

				snprintf(name, sizeof(name), "%.*s", (int)len, p);
				nop_field_item_str(&f, NULL, name);
				p += len + (p[len] == ';');
			}
			nop_field_array_close(&f);
			nop_fields_close(&f);
		} else {
			if (!last || strncmp(last, r[i].key, (size_t)fl + 1))
				fprintf(s->out, "%s%.*s: %llu hit%s\n", last ? "\n" : "", fl, r[i].key, r[i].fn_hits,
					r[i].fn_hits == 1 ? "" : "s");
			fprintf(s->out, "  %9llu  ", r[i].n);
			for (const char *p = stack; *p;) {
				size_t len = strcspn(p, ";");

				fprintf(s->out, "%s%.*s\n", p == stack ? "" : "             ", (int)len, p);
				p += len + (p[len] == ';');
			}
			if (!*stack)
				fputs("(no caller in the stack)\n", s->out);
			last = r[i].key;
		}
	}
	free(r);
	if (c->no_stack && s->diag && !s->quiet)
		fprintf(s->diag, "nopctl: %llu hit%s came without a stack\n", c->no_stack, c->no_stack == 1 ? "" : "s");
	if (c->caller_only && s->diag && !s->quiet)
		fprintf(s->diag, "nopctl: %llu hit%s of user functions came with no user stack, nor did any in"
			" this run (a kernel built without USER_STACKTRACE_SUPPORT records none): each is counted"
			" with its caller alone\n",
			c->caller_only, c->caller_only == 1 ? "" : "s");
	/* the kernel unwinds a user stack by frame pointers: without them it
	 * ends at once */
	if (c->uhits && c->ushort * 2 > c->uhits && s->diag && !s->quiet)
		fprintf(s->diag, "nopctl: %llu of %llu user functions' stacks hold no frame past the caller: a binary"
			" built without frame pointers (-fno-omit-frame-pointer) cannot be unwound by the kernel,"
			" and only each hit's caller is known\n", c->ushort, c->uhits);
	return nop_summary_write(s, sum);
}

static void callers_free(struct nop_sink *s)
{
	struct callers *c = s->priv;

	if (c) {
		for (int i = 0; i < NOP_MAX_CPUS; i++)
			free(c->pend[i]);
		for (size_t i = 0; i < c->nbins; i++)
			if (c->bins[i].n)
				nop_ubin_free(&c->bins[i]);
		free(c->bins);
		nop_strmap_free(c->stacks);
		nop_strmap_free(c->funcs);
		nop_strmap_free(c->conly);
	}
}

const struct nop_sink_ops nop_callers_ops = {
	.init = callers_init,
	.event = callers_event,
	.graph = callers_graph,
	.summary = callers_summary,
	.free = callers_free,
};

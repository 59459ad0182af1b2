/* uprobes.c - user-space function patterns (BINARY:GLOB) to the uprobes
 * nopctl places: the binary found, its functions matched, each probed once
 * (aliases too), an event name built by nopctl from the symbol.
 *
 * The GLOB is data: nopctl matches it against the symbols itself and never
 * writes it anywhere. What reaches uprobe_events is built here: an event
 * name of [A-Za-z0-9_] and a path checked character by character.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"

bool nop_upattern(const char *pat)
{
	return strchr(pat, ':') != NULL;
}

/* A path nopctl writes into a probe definition: the kernel splits that
 * line at white space, so only plain path characters */
static bool path_ok(const char *p, size_t *bad)
{
	for (size_t i = 0; p[i]; i++)
		if (!isalnum((unsigned char)p[i]) && !strchr("/._+-@~", p[i])) {
			*bad = i;
			return false;
		}
	return true;
}

int nop_upattern_split(const char *pat, char *bin, size_t len, const char **glob,
		       struct nop_error *err)
{
	const char *colon = strchr(pat, ':');
	size_t n = colon ? (size_t)(colon - pat) : 0, bad;

	if (!colon || !n || !colon[1]) {
		nop_error_set(err, NOP_EUSAGE, 0, "invalid user-space pattern '%s': give BINARY:GLOB,"
			      " e.g. ./app:'parse_*' or libc:malloc", pat);
		return -1;
	}
	if (n >= len || n >= PATH_MAX) {
		nop_error_set(err, NOP_EUSAGE, 0, "binary name in '%s' is too long", pat);
		return -1;
	}
	memcpy(bin, pat, n);
	bin[n] = 0;
	if (!path_ok(bin, &bad)) {
		nop_error_set(err, NOP_EUSAGE, 0, "invalid binary '%s' in '%s': '%c' at position %zu;"
			      " a binary path may hold letters, digits and / . _ + - @ ~ (the kernel's"
			      " probe definitions split at white space)", bin, pat,
			      isprint((unsigned char)bin[bad]) ? bin[bad] : '?', bad + 1);
		return -1;
	}
	*glob = colon + 1;
	for (const char *g = *glob; *g; g++)
		if ((unsigned char)*g < 0x20 || *g == 0x7f) {
			nop_error_set(err, NOP_EUSAGE, 0, "invalid function glob in '%s': control byte"
				      " 0x%02x at position %zu; a glob is a function name (demangled C++"
				      " names too) with '*', '?' and '[...]'", pat, (unsigned char)*g,
				      (size_t)(g - pat) + 1);
			return -1;
		}
	return 0;
}

static bool nop_usym_matches(const struct nop_usym *u, const char *glob)
{
	return fnmatch(glob, u->name, 0) == 0 || (u->demangled && fnmatch(glob, u->demangled, 0) == 0);
}

long nop_ubin_match(const struct nop_ubin *b, size_t i, const char *glob)
{
	for (size_t a = i; a < b->n && (a == i || b->v[a].alias); a++)
		if (nop_usym_matches(&b->v[a], glob))
			return (long)a;
	return -1;
}

size_t nop_ubin_count(const struct nop_ubin *b, const char *glob)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n; i++)
		n += !b->v[i].alias && !nop_usym_fragment(&b->v[i]) && nop_ubin_match(b, i, glob) >= 0;
	return n;
}

/* Up to max names of b close to glob, best first */
static size_t suggest(const struct nop_ubin *b, const char *glob, const char **out, size_t max)
{
	size_t n = 0;

	for (int limit = 0; limit <= 4 && n < max; limit++)
		for (size_t i = 0; i < b->n && n < max; i++) {
			const char *s = nop_usym_shown(&b->v[i]);
			int d = nop_levenshtein(glob, s, limit);

			if (d == limit || (limit == 2 && strlen(glob) >= 4 && strstr(s, glob) &&
					   nop_levenshtein(glob, s, 1) > 1)) {
				bool dup = false;

				for (size_t k = 0; k < n && !dup; k++)
					dup = !strcmp(out[k], s);
				if (!dup)
					out[n++] = s;
			}
		}
	return n;
}

int nop_ubin_no_match(const struct nop_ubin *b, const char *glob, struct nop_error *err)
{
	const char *sugg[5];
	char list[600] = "";
	size_t n = suggest(b, glob, sugg, 5);

	for (size_t i = 0; i < n; i++) {
		size_t off = strlen(list);

		snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", sugg[i]);
	}
	if (!b->n)
		nop_error_set(err, NOP_EUSAGE, 0, "%s has no function symbols left (stripped: %s)"
			      " and no debug file was found (beside it, in .debug/, under /usr/lib/debug"
			      " by its .gnu_debuglink or build ID); install its debug symbols (Debian:"
			      " the -dbgsym package from the debian-debug archive), set DEBUGINFOD_URLS"
			      " to a debuginfod server, or use a build that keeps them", b->path,
			      b->has_dynsym ? "only .dynsym, with no"
			      " defined function" : "no .symtab or .dynsym");
	else
		nop_error_set(err, NOP_EUSAGE, 0, "no function of %s matches '%s'%s%s%s", b->path, glob,
			      n ? "; close names: " : "", list,
			      b->has_symtab ? "" : " (stripped: only .dynsym's exported functions are"
			      " known, and no debug file was found; its debug symbols would name the"
			      " rest)");
	return -1;
}

/* u's index (u->idx): "e" NAME, an event name taken (its first probe,
 * plus 1); "p" PATH \1 ADDRESS \1 RET, a probe placed (its index plus
 * 1); "b" PATH, a binary with shared events (its number plus 1): a look-up
 * per probe, where scanning u would be quadratic in the functions. */
static size_t *idx_slot(struct nop_uprobes *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t *idx_slot(struct nop_uprobes *u, const char *fmt, ...)
{
	char key[4400];
	va_list ap;

	if (!u->idx && !(u->idx = nop_strmap_new(sizeof(size_t))))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	return nop_strmap_get(u->idx, key);
}

/* An event name nopctl builds: [A-Za-z0-9_], a letter or '_' first, unique
 * among the probes so far, taken for the probe to be added next; suffix:
 * "", NOP_LEAF_SUFFIX or a kernel probe's. 0, or -1: out of memory */
int nop_probe_event_name(struct nop_uprobes *u, const char *sym, const char *suffix, char *out, size_t len)
{
	char base[48];
	size_t i, *taken;

	for (i = 0; sym[i] && i < sizeof(base) - 1; i++)
		base[i] = isalnum((unsigned char)sym[i]) ? sym[i] : '_';
	base[i] = 0;
	if (!isalpha((unsigned char)base[0]) && base[0] != '_')
		base[0] = '_';
	for (int n = 0;; n++) {
		if (n)
			snprintf(out, len, "%.40s_%d%s", base, n, suffix);
		else
			snprintf(out, len, "%s%s", base, suffix);
		if (!(taken = idx_slot(u, "e%s", out)))
			return -1;
		if (!*taken) {
			*taken = u->n + 1;
			return 0;
		}
	}
}

/* The event p shares with the other probes of its binary and kind
 * (nopctl_KIND_N, N the binary's number among the probes' binaries):
 * disabling an event costs the kernel an RCU grace period or more
 * (trace_probe_remove_file, and uprobe_unregister_sync on 6.12 and
 * later), one per event however many probes it has. The kernel appends a
 * probe to an event when its arguments have the same names and types
 * (trace_probe_compare_arg_type), whatever they fetch: each probe fetches
 * its own index as an immediate (id=\\N). */
static int shared_event(struct nop_uprobes *u, struct nop_uprobe *p, const struct nop_ubin *b,
			const char *kind)
{
	size_t *bin = idx_slot(u, "b%s", b->path), *ev;

	if (!bin)
		return -1;
	if (!*bin)
		*bin = ++u->nbins;
	snprintf(p->event, sizeof(p->event), "nopctl_%s_%zu", kind, *bin - 1);
	if (!(ev = idx_slot(u, "e%s", p->event)))
		return -1;
	if (!*ev)
		*ev = u->n + 1;
	u->v[*ev - 1].nshared++;
	p->shared = true;
	return 0;
}

/* one probe of b's function s: its entry (ex 0: at s's entry, skip bytes
 * in), or its exit number nth at address ex (of the function whose entry
 * probe is func), or a uretprobe (uret). Its index, or -1 */
static long add_probe(struct nop_uprobes *u, const struct nop_ubin *b, const struct nop_usym *s, bool ret,
		      unsigned long long skip, unsigned long long ex, bool uret, bool leaf, size_t func,
		      size_t nth)
{
	unsigned long long vaddr = ex ? ex : s->vaddr + skip;
	size_t *at = idx_slot(u, "p%s\1%llx\1%d", b->path, vaddr, ret);
	struct nop_uprobe *p;

	if (!at)
		return -1;
	if (*at)
		return (long)*at - 1; /* two patterns, one function: probed once */
	if (nop_grow((void **)&u->v, &u->cap, u->n + 1, sizeof(*u->v)))
		return -1;
	p = &u->v[u->n];
	memset(p, 0, sizeof(*p));
	if (!(p->path = strdup(b->path)) || !(p->sym = strdup(s->name)) ||
	    !(p->shown = strdup(nop_usym_shown(s)))) {
		free(p->path);
		free(p->sym);
		return -1;
	}
	snprintf(p->bin, sizeof(p->bin), "%s", b->name);
	p->func = ret ? func : u->n; /* an exit shares its entry's key */
	/* the probe's address as the file has it: its function's segment */
	p->offset = s->offset + (vaddr - s->vaddr);
	p->vaddr = vaddr;
	p->ret = ret;
	p->uret = uret;
	p->leaf = leaf;
	p->moved = !ret && skip;
	/* --args: its parameters from DWARF; an event of its own (a shared
	 * event's arguments are the same for every probe) */
	if (!ret && u->args && (u->sl || (u->sl = nop_srclines_new()))) {
		char fetch[1024];

		if (nop_srclines_params(u->sl, b->path, s->vaddr, fetch, sizeof(fetch)) > 0 &&
		    !(p->fetch = strdup(fetch + 1)))
			return -1;
	}
	if (u->share && !p->fetch) {
		if (shared_event(u, p, b, uret ? "returns" : ret ? "exits" : leaf ? "leaves" : "entries"))
			return -1;
	} else if (!ret) {
		if (nop_probe_event_name(u, s->name, leaf ? NOP_LEAF_SUFFIX : "", p->event, sizeof(p->event)))
			return -1;
	} else {
		/* NAME__return, NAME__return_1, ...: its entry's name, so that a
		 * recording's events find their function again */
		size_t len = strlen(u->v[func].event);

		if (u->v[func].leaf)
			len -= strlen(NOP_LEAF_SUFFIX);
		snprintf(p->event, sizeof(p->event), nth ? "%.*s__return_%zu" : "%.*s__return", (int)len,
			 u->v[func].event, nth);
	}
	*at = ++u->n;
	return (long)u->n - 1;
}

/* s's probes: with returns, one at each instruction that leaves it
 * (ucode.c), or a uretprobe where its code was not read or nothing can
 * unwind through it */
static int add_function(struct nop_uprobes *u, const struct nop_ubin *b, size_t fi, const struct nop_usym *s,
			bool entry, bool ret, struct nop_error *err)
{
	struct nop_ucode c;
	size_t nth = 0;
	long f = 0, x;
	unsigned char rv = 0;
	bool leaf, uret;
	int r = 0;

	if (nop_ucode_scan(b, fi, u->why && ret, &c, err))
		return -1;
	if (c.refused) {
		u->refused++;
		nop_ucode_free(&c);
		return 0;
	}
	/* an entry probe that lands on a return (lock incq x(%rip); ret):
	 * one probe is both */
	leaf = ret && !c.undecoded && nop_ucode_has_exit(&c, s->vaddr + c.skip);
	/* --retval: the type it returns, from its DWARF */
	if (ret && u->retval && (u->sl || (u->sl = nop_srclines_new())))
		rv = nop_srclines_rettype(u->sl, b->path, s->vaddr);
	if (rv == NOP_RV_VOID || leaf)
		rv = 0;
	if (entry && (f = add_probe(u, b, s, false, c.skip, 0, false, leaf, 0, 0)) < 0)
		r = -1;
	/* why: which return gave a value (the probe's, kept to the end) */
	if (entry && !r && c.nloads && !u->v[f].loads) {
		u->v[f].loads = c.loads;
		u->v[f].nloads = c.nloads;
		c.loads = NULL;
	}
	/* a uretprobe where the code was not read, or where nothing can
	 * unwind through it (ucode.c: it reaches out to nothing) */
	uret = ret && !leaf && (c.undecoded || (!c.reaches_out && !u->why));
	if (uret && !r && (x = add_probe(u, b, s, true, 0, 0, true, false, (size_t)f, 0)) < 0)
		r = -1;
	else if (uret && !r)
		u->v[x].rv = rv;
	for (size_t k = 0; ret && !uret && !r && k < c.nexit; k++) {
		if (leaf && c.exits[k] == s->vaddr + c.skip)
			continue;
		if ((x = add_probe(u, b, s, true, 0, c.exits[k], false, false, (size_t)f, nth++)) < 0)
			r = -1;
		else /* at a tail call the return register is not the value yet */
			u->v[x].rv = c.at_ret[k] ? rv : 0;
	}
	nop_ucode_free(&c);
	if (r)
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	return r;
}

int nop_uprobes_add(struct nop_uprobes *u, const struct nop_ubin *b, const char *glob, bool entry,
		    bool ret, struct nop_error *err)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct nop_usym *s = &b->v[i];
		long a;

		/* the function's first name, or an alias's, matches; a .cold
		 * fragment is part of its function, never called */
		if (s->alias || nop_usym_fragment(s) || (a = nop_ubin_match(b, i, glob)) < 0)
			continue;
		/* the entry point is where the process starts, not a call: it
		 * never returns (and at its first instruction the stack holds
		 * argc where a return address would be) */
		if (ret && s->vaddr == b->entry)
			continue;
		/* named as the pattern named it */
		if (add_function(u, b, i, &b->v[a], entry, ret, err))
			return -1;
	}
	return 0;
}

enum nop_probe_name nop_probe_name_parse(const char *event, size_t *symlen)
{
	size_t len = strlen(event), n = len;
	const char *r;

	if (len > 6 && !strcmp(event + len - 6, NOP_LEAF_SUFFIX)) {
		*symlen = len - 6;
		return NOP_PN_LEAF;
	}
	while (n && isdigit((unsigned char)event[n - 1]))
		n--;
	/* NAME__return, or NAME__return_N */
	if (n < len && n > 0 && event[n - 1] == '_')
		n--;
	else
		n = len;
	r = event + n - 8;
	if (n > 8 && !strncmp(r, "__return", 8)) {
		*symlen = n - 8;
		return NOP_PN_EXIT;
	}
	*symlen = len;
	return NOP_PN_ENTRY;
}

int nop_uprobes_add_named(struct nop_uprobes *u, const char *event, size_t len, bool ret)
{
	struct nop_uprobe *p;
	char *dm;

	if (nop_grow((void **)&u->v, &u->cap, u->n + 1, sizeof(*u->v)))
		return -1;
	p = &u->v[u->n];
	memset(p, 0, sizeof(*p));
	if (!(p->path = strdup("")) || !(p->sym = strndup(event, len))) {
		free(p->path);
		return -1;
	}
	dm = nop_demangle(p->sym);
	if (!(p->shown = dm ? dm : strdup(p->sym))) {
		free(p->path);
		free(p->sym);
		return -1;
	}
	snprintf(p->event, sizeof(p->event), "%s", event);
	p->ret = ret;
	p->func = u->n;
	for (size_t k = 0; ret && k < u->n; k++)
		if (!u->v[k].ret && !strcmp(u->v[k].sym, p->sym))
			p->func = k;
	u->n++;
	return 0;
}

size_t nop_uprobes_entries(const struct nop_uprobes *u)
{
	size_t n = 0;

	for (size_t i = 0; i < u->n; i++)
		n += !u->v[i].ret;
	return n;
}

void nop_uprobes_free(struct nop_uprobes *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].path);
		free(u->v[i].sym);
		free(u->v[i].shown);
		free(u->v[i].fetch);
		free(u->v[i].loads);
	}
	free(u->v);
	nop_strmap_free(u->idx);
	nop_srclines_free(u->sl);
	memset(u, 0, sizeof(*u));
}

int nop_uprobe_find(const struct nop_uprobes *u, unsigned long long key)
{
	unsigned long long i = key & ~NOP_UKEY_MASK;

	return (key & NOP_UKEY_MASK) == NOP_UKEY && u && i < u->n ? (int)i : -1;
}

/* uprobes.c - a capture's user-space patterns (BINARY:GLOB): each binary
 * found as the traced program loads it, its functions matched, and the
 * probes the session will place, checked before tracefs is touched. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* Probes above this need --force: each probed function traps into the
 * kernel at every call (and at every return with a return probe) in every
 * process that maps the binary, traced or not (bench B6: microseconds a
 * call, where the function itself may take nanoseconds). */
#define PROBES_MAX 1000

/* the ELF files named so far, loaded once each */
struct bins {
	struct nop_ubin *v;
	size_t n;
};

static struct nop_ubin *bin_for(struct bins *bs, const char *path, struct nop_error *err)
{
	for (size_t i = 0; i < bs->n; i++)
		if (!strcmp(bs->v[i].path, path))
			return &bs->v[i];
	struct nop_ubin *v = realloc(bs->v, (bs->n + 1) * sizeof(*v));

	if (!v) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	bs->v = v;
	if (nop_ubin_load(path, &bs->v[bs->n], err))
		return NULL;
	return &bs->v[bs->n++];
}

static int add_root(struct run *r, const char *glob)
{
	const char **v = realloc(r->proots, (r->nproots + 1) * sizeof(*v));

	if (!v)
		return -1;
	r->proots = v;
	v[r->nproots++] = glob;
	return 0;
}

static int one_pattern(struct run *r, struct bins *bs, const char *pat, const char *command)
{
	struct opts *o = r->o;
	char name[PATH_MAX], path[PATH_MAX];
	const char *glob;
	struct nop_ubin *b;
	bool returns = r->mode == RUN_GRAPH || (r->mode == RUN_STATS && !o->callers) || (r->mode == RUN_RECORD && o->graph);

	if (nop_upattern_split(pat, name, sizeof(name), &glob, &r->err) ||
	    nop_ubin_find(name, o->npids ? o->pids[0] : 0, command, path, sizeof(path), &r->err) ||
	    !(b = bin_for(bs, path, &r->err)))
		return -1;
	if (!nop_ubin_count(b, glob))
		return nop_ubin_no_match(b, glob, &r->err);
	/* a library by name that the command does not link: said before its
	 * calls fail to come */
	if (command && !strchr(name, '/') && !o->quiet && !nop_ubin_loaded_by(command, path))
		fprintf(stderr, "nopctl: note: %s does not load %s (neither it nor its libraries link"
			" %s): its calls arrive only if it opens it at run time (dlopen)\n", command, name,
			path);
	if (returns && b->go) {
		nop_error_set(&r->err, NOP_EUSAGE, 0, "%s is a Go program: its runtime moves and"
			      " switches goroutines' stacks, so the stack pointer that pairs each return"
			      " %s shows with its call does not hold. Trace its calls without returns:"
			      " 'nopctl trace %s'", b->path, r->mode == RUN_GRAPH ? "graph" : r->mode == RUN_STATS ?
			      "stats" : "record -G", pat);
		return -1;
	}
	if (nop_uprobes_add(&r->uprobes, b, glob, true, returns, &r->err))
		return -1;
	if (add_root(r, glob)) {
		nop_error_set(&r->err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	return 0;
}

int user_probes(struct run *r, const char *command)
{
	struct opts *o = r->o;
	struct bins bs = { 0 };
	size_t nk = 0;
	int ret = 0;

	/* live runs: one event per binary and kind of probe; a recording
	 * (and catch -o DIR's files) keeps an event per probe, whose name
	 * tells its function to a reader */
	r->uprobes.share = r->mode != RUN_RECORD && !o->catch_dir;
	/* --retval (and --errors): user functions' values from their exits */
	r->uprobes.retval = o->retval;
	/* why: exits at their rets, and the constants each function returns */
	r->uprobes.why = o->why;
	/* --args: the parameters of the functions the patterns name */
	r->uprobes.args = o->args;
	/* stats --callers: hits, each with its return address (its caller) */
	r->uprobes.callers = o->callers;
	for (size_t i = 0; i < o->npatterns && !ret; i++) {
		if (!nop_upattern(o->patterns[i])) {
			o->patterns[nk++] = o->patterns[i]; /* the kernel's, in order */
			if (add_root(r, o->patterns[i])) {
				nop_error_set(&r->err, NOP_EINTERNAL, ENOMEM, "out of memory");
				ret = -1;
			}
			continue;
		}
		ret = one_pattern(r, &bs, o->patterns[i], command);
	}
	/* graph and record -G: every function of each binary, the patterns
	 * pick the roots (a recording keeps every tree); after the functions
	 * the patterns name, so that each is named as they name it (an alias) */
	r->uprobes.args = false;
	for (size_t i = 0; !ret && (r->mode == RUN_GRAPH || (r->mode == RUN_RECORD && o->graph)) && i < bs.n; i++)
		ret = nop_uprobes_add(&r->uprobes, &bs.v[i], "*", true, true, &r->err);
	for (size_t i = 0; i < bs.n; i++)
		nop_ubin_free(&bs.v[i]);
	free(bs.v);
	if (ret)
		return -1;
	r->nuser = o->npatterns - nk;
	o->npatterns = nk;
	size_t nfunc = nop_uprobes_entries(&r->uprobes);

	if (nfunc > PROBES_MAX && !o->force) {
		nop_error_set(&r->err, NOP_EUSAGE, 0, "the pattern%s would probe %zu functions (more than"
			      " %d): every call%s of each probed function traps into the kernel, in every"
			      " process that runs the binary, at about 10 us a call where it was measured"
			      " (bench B6; a one-line function takes nanoseconds). Narrow the glob, or add"
			      " --force", r->nuser > 1 ? "s" : "", nfunc, PROBES_MAX,
			      r->mode == RUN_TRACE ? "" : " and return");
		return -1;
	}
	return 0;
}

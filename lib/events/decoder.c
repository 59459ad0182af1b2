/* decoder.c - a decoder from event formats: the page header and the
 * formats of the events nopctl decodes, from a live tracefs, a trace.dat
 * (checked line by line first) or libtraceevent's handle, and the fields
 * looked up once for decode.c. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#include "arch/arch.h"
#include "events/decoder.h"

static int find_fields(struct nop_decoder *d, struct nop_error *err);
static bool recorded_group(const char *system);
static void find_switch(struct nop_decoder *d);
static int recorded_events(struct nop_decoder *d, struct nop_error *err);

static struct tep_format_field *field(struct tep_event *ev, const char *name)
{
	return ev ? tep_find_field(ev, name) : NULL;
}

static int sub_buffer_size(const char *tracing_dir)
{
	char path[4200], *v;
	struct nop_error e;
	int kb;

	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", tracing_dir);
	v = nop_read_file(path, NULL, &e);
	kb = v ? atoi(v) : 0;
	free(v);
	return kb > 0 ? kb * 1024 : (int)sysconf(_SC_PAGESIZE);
}

/* The page header and the formats of the events nopctl decodes: from
 * <dir>/events (a live tracefs or a recorded copy of one), or from a
 * trace.dat's sections. */
static int parse_formats(struct tep_handle *tep, const struct nop_dat_blob *hp,
			 const struct nop_dat_blob *fmt, const struct nop_dat_fmt *sys, int nfmt,
			 const char *where, struct nop_error *err)
{
	struct kbuffer *kb;

	if (tep_parse_header_page(tep, hp->p, (unsigned long)hp->len, (int)sizeof(long)) < 0 ||
	    !(kb = tep_kbuffer(tep))) { /* a check that header_page was understood */
		nop_error_set(err, NOP_EKERNEL, 0, "cannot parse the page header of %s", where);
		return -1;
	}
	kbuffer_free(kb);
	for (int i = 0; i < nfmt; i++)
		if (fmt[i].p && tep_parse_event(tep, fmt[i].p, fmt[i].len,
						 sys ? sys[i].system : "ftrace") != 0) {
			nop_error_set(err, NOP_EKERNEL, 0, "cannot parse an event format of %s", where);
			return -1;
		}
	return 0;
}

static int load_formats(struct tep_handle *tep, const char *dir, struct nop_error *err)
{
	static const char *const events[] = { "function", "kernel_stack", "funcgraph_entry",
					      "funcgraph_exit", "user_stack" };
	struct nop_dat_blob hp, fmt[ARRAY_SIZE(events)] = { { 0 } };
	char path[4200];
	int ret;

	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	if (!(hp.p = nop_read_file(path, &hp.len, err)))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		struct nop_error e2;

		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", dir, events[i]);
		fmt[i].p = nop_read_file(path, &fmt[i].len, &e2); /* absent on older kernels */
	}
	ret = parse_formats(tep, &hp, fmt, NULL, (int)ARRAY_SIZE(events), dir, err);
	free(hp.p);
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		free(fmt[i].p);
	return ret;
}

static struct nop_decoder *decoder_alloc(struct nop_error *err)
{
	struct nop_decoder *d = calloc(1, sizeof(*d));

	if (!d || !(d->tep = tep_alloc())) {
		free(d);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	tep_set_long_size(d->tep, (int)sizeof(long));
	tep_set_file_bigendian(d->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	tep_set_local_bigendian(d->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	d->ret_pops = (unsigned char)nop_arch_ret_pops(NOP_ARCH_MACHINE);
	return d;
}

void nop_decoder_ret_pops(struct nop_decoder *d, unsigned bytes)
{
	d->ret_pops = (unsigned char)bytes;
}

struct nop_decoder *nop_decoder_new(const char *tracing_dir, struct nop_error *err)
{
	struct nop_decoder *d = decoder_alloc(err);

	if (!d)
		return NULL;
	if (load_formats(d->tep, tracing_dir, err)) {
		nop_decoder_free(d);
		return NULL;
	}
	d->page_size = sub_buffer_size(tracing_dir);
	if (find_fields(d, err)) {
		nop_decoder_free(d);
		return NULL;
	}
	return d;
}

static bool ident(const char **p)
{
	const char *s = *p;

	while (isalnum((unsigned char)**p) || **p == '_')
		(*p)++;
	return *p > s;
}

static bool number(const char **p)
{
	const char *s = *p;

	while (isdigit((unsigned char)**p))
		(*p)++;
	return *p > s && *p - s < 10;
}

static bool lit(const char **p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(*p, w, n))
		return false;
	*p += n;
	return true;
}

/* "\tfield:TYPE NAME[N];\toffset:N;\tsize:N;\tsigned:N;" */
static bool field_line(const char *p)
{
	const char *name = NULL;

	if (!lit(&p, "\tfield:"))
		return false;
	for (;;) { /* words of the type, then the name (the last word) */
		while (*p == ' ' || *p == '*')
			p++;
		name = p;
		if (!ident(&p))
			return false;
		if (*p == '[') { /* an array: [N], or [] after __data_loc */
			p++;
			number(&p);
			if (!lit(&p, "]"))
				return false;
		}
		if (*p == ';')
			break;
		if (*p != ' ' && *p != '*')
			return false;
	}
	return name && lit(&p, ";\toffset:") && number(&p) && lit(&p, ";\tsize:") && number(&p) &&
	       lit(&p, ";\tsigned:") && number(&p) && lit(&p, ";") && !*p;
}

/* A recorded event format, line by line, before libtraceevent sees it:
 * libtraceevent 1.7 crashes on some damaged ones (found by fuzz_dat). The
 * kernel's shape: name, ID, "format:", field lines and blank lines. */
static bool format_ok(const char *text, size_t len)
{
	char *copy = strndup(text, len), *save, *l;
	int state = 0; /* 0 name, 1 ID, 2 "format:", 3 fields */
	bool ok = copy != NULL;

	for (l = copy ? strtok_r(copy, "\n", &save) : NULL; l && ok; l = strtok_r(NULL, "\n", &save)) {
		const char *p = l;

		switch (state) {
		case 0: ok = lit(&p, "name: ") && ident(&p) && !*p; break;
		case 1: ok = lit(&p, "ID: ") && number(&p) && !*p; break;
		case 2: ok = !strcmp(p, "format:"); break;
		default: ok = field_line(p); break;
		}
		state += state < 3;
	}
	free(copy);
	return ok && state == 3;
}

/* nopctl decodes fields itself and never prints through a format: a
 * recorded format's "print fmt:" line is left out (libtraceevent 1.7
 * crashes on a damaged one, found by fuzz_dat), the rest checked line by
 * line. A copy to parse (*outlen bytes), or NULL with errno: ENOMEM, or
 * EINVAL for a damaged format. */
static char *parsable(const char *text, size_t len, size_t *outlen)
{
	const char *pf = strstr(text, "\nprint fmt:");
	size_t keep = pf ? (size_t)(pf - text) : len;
	char *p;

	if (!format_ok(text, keep)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(p = malloc(keep + 32))) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(p, text, keep);
	*outlen = keep + (size_t)sprintf(p + keep, "\nprint fmt: \"\"\n");
	return p;
}

/* "name: NAME\n" at a format's start, into buf */
static bool format_name(const char *p, char *buf, size_t cap)
{
	size_t n;

	if (strncmp(p, "name: ", 6))
		return false;
	n = strcspn(p + 6, "\n");
	if (n == 0 || n >= cap)
		return false;
	memcpy(buf, p + 6, n);
	buf[n] = 0;
	return true;
}

/* a format parsed when the decoder is made: ftrace's, nopctl's probe
 * groups' and the events nopctl follows tasks by, all looked up by name
 * (find_fields); any other is a kernel event, parsed at its first record */
/* system/name one of list's "SYSTEM/EVENT" */
static bool listed(const char *system, const char *name, const char *const *list, size_t nlist)
{
	size_t n = strlen(system);

	for (size_t k = 0; k < nlist; k++)
		if (!strncmp(list[k], system, n) && list[k][n] == '/' && !strcmp(list[k] + n + 1, name))
			return true;
	return false;
}

static bool parsed_now(const char *system, const char *name)
{
	return !strcmp(system, "ftrace") || recorded_group(system) ||
	       listed(system, name, nop_process_events, ARRAY_SIZE(nop_process_events)) ||
	       listed(system, name, nop_switch_events, ARRAY_SIZE(nop_switch_events));
}

static struct nop_kev *kev_slot(struct nop_decoder *d, int id);

/* a kernel event of a recording kept unparsed, by the ID on its
 * format's second line ("ID: N"; one without is left out): fmt is the
 * nop_dat_in's, which outlives the decoder. 0, or -1 out of memory */
static int kev_later(struct nop_decoder *d, const char *system, const char *name, const char *fmt,
		     size_t len)
{
	size_t ns = strlen(system), nn = strlen(name);
	const char *idl = fmt + 6 + nn + 1; /* "name: NAME\n" */
	struct nop_kev *k;
	long id = -1;

	if (6 + nn + 5 < len && !strncmp(idl, "ID: ", 4) && isdigit((unsigned char)idl[4]))
		id = strtol(idl + 4, NULL, 10);
	if (id < 0 || id > 65535 || ((size_t)id < d->nkev_of && d->kev_of[id]))
		return 0;
	if (!(k = kev_slot(d, (int)id)))
		return -1;
	k->fmt = fmt;
	k->fmtlen = len;
	/* system: shorter than 64 (nop_dat_fmt), name: than 128 */
	memcpy(k->system, system, ns + 1);
	memcpy(k->name, system, ns);
	k->name[ns] = ':';
	memcpy(k->name + ns + 1, name, nn + 1);
	return 0;
}

/* A trace.dat's decoder (nop_dat_in_open checked byte order and word
 * size): its ftrace formats, then its probe groups' (kernel and user
 * functions nopctl probed), each checked line by line first. */
struct nop_decoder *nop_decoder_from_dat(const struct nop_dat_in *in, struct nop_uprobes *up,
					 struct nop_error *err)
{
	struct nop_decoder *d = decoder_alloc(err);
	struct nop_dat_blob *fmt = calloc((size_t)in->nfmt + 1, sizeof(*fmt));
	int ret = -1, pops;

	if (!d || !fmt) {
		if (d)
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		goto out;
	}
	/* the formats find_fields looks up, parsed now; a kernel event's at
	 * its first record (parsing the 1,500 formats a trace-cmd file can
	 * hold cost more than reading its events) */
	for (int i = 0; i < in->nfmt; i++) {
		const struct nop_dat_blob *f = &in->fmt[i].b;
		char name[128];

		if (format_name(f->p, name, sizeof(name)) && !parsed_now(in->fmt[i].system, name)) {
			if (kev_later(d, in->fmt[i].system, name, f->p, f->len))
				goto oom;
		} else if (!(fmt[i].p = parsable(f->p, f->len, &fmt[i].len))) {
			if (errno == ENOMEM)
				goto oom;
			nop_error_set(err, NOP_EUSAGE, 0, "%s: the format of an event of %s is damaged",
				      in->path, in->fmt[i].system);
			goto out;
		}
	}
	tep_set_long_size(d->tep, in->long_size);
	if (parse_formats(d->tep, &in->header_page, fmt, in->fmt, in->nfmt, in->path, err))
		goto out;
	tep_set_page_size(d->tep, in->page_size);
	d->page_size = in->page_size;
	d->tsc_mult = in->tsc_mult;
	d->tsc_shift = in->tsc_shift;
	d->ts_offset = in->ts_offset;
	/* a user call's exit pairs by the recording machine's ABI */
	if (in->machine[0] && (pops = nop_arch_ret_pops(in->machine)) >= 0)
		d->ret_pops = (unsigned char)pops;
	ret = find_fields(d, err) || nop_decoder_recorded_probes(d, up, in->binaries.p, err) ||
	      recorded_events(d, err) ? -1 : 0;
	goto out;
oom:
	nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
out:
	for (int i = 0; fmt && i < in->nfmt; i++)
		free(fmt[i].p);
	free(fmt);
	if (ret) {
		nop_decoder_free(d);
		return NULL;
	}
	return d;
}

/* where the last of these fields ends */
static int end_of(const struct tep_format_field *a, const struct tep_format_field *b,
		  const struct tep_format_field *c, const struct tep_format_field *d,
		  const struct tep_format_field *e)
{
	const struct tep_format_field *f[] = { a, b, c, d, e };
	int end = 0;

	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (f[i] && f[i]->offset + f[i]->size > end)
			end = f[i]->offset + f[i]->size;
	return end;
}

/* A field the fast path reads in place: of this size, at an offset a
 * record can have (offsets are data, from a file too) */
static bool fixed(const struct tep_format_field *f, int size)
{
	return f && f->size == size && f->offset >= 0 && f->offset < 65536;
}

/* task_newtask and sched_process_exec, where the formats hold them */
static void find_process_events(struct nop_decoder *d)
{
	struct tep_event *f = tep_find_event_by_name(d->tep, "task", "task_newtask");
	struct tep_event *x = tep_find_event_by_name(d->tep, "sched", "sched_process_exec");
	struct tep_event *n = tep_find_event_by_name(d->tep, "task", "task_rename");

	d->fk_child = field(f, "pid");
	d->fk_flags = field(f, "clone_flags");
	d->fk_comm = field(f, "comm");
	d->ex_file = field(x, "filename");
	d->fork_id = f && d->fk_child && d->fk_flags ? f->id : -1;
	d->exec_id = x ? x->id : -1;
	d->rn_pid = field(n, "pid");
	d->rn_comm = field(n, "newcomm");
	d->rename_id = n && d->rn_pid && d->rn_comm ? n->id : -1;
	find_switch(d);
}

/* sched_switch, where the formats hold it: the task that left the CPU,
 * its state, the one that took it */
static void find_switch(struct nop_decoder *d)
{
	struct tep_event *s = tep_find_event_by_name(d->tep, "sched", "sched_switch");

	d->sw_prev = field(s, "prev_pid");
	d->sw_state = field(s, "prev_state");
	d->sw_next = field(s, "next_pid");
	d->switch_id = s && d->sw_prev && d->sw_state && d->sw_next ? s->id : -1;
	d->sw_pcomm = field(s, "prev_comm");
	d->sw_ncomm = field(s, "next_comm");
}

int nop_decoder_names(struct nop_decoder *d, const char *dir, void (*fn)(void *ctx, int pid, const char *comm,
									  unsigned long long ts),
		      void *ctx, struct nop_error *err)
{
	char path[4200], *fmt;
	struct tep_event *p;
	size_t len;

	if (nop_decoder_add_process_events(d, dir, err))
		return -1;
	snprintf(path, sizeof(path), "%s/events/ftrace/print/format", dir);
	if (!tep_find_event_by_name(d->tep, "ftrace", "print") && (fmt = nop_read_file(path, &len, NULL))) {
		tep_parse_event(d->tep, fmt, len, "ftrace");
		free(fmt);
	}
	p = tep_find_event_by_name(d->tep, "ftrace", "print");
	d->pr_buf = field(p, "buf");
	d->print_id = p && d->pr_buf ? p->id : -1;
	d->names = fn;
	d->names_ctx = ctx;
	return 0;
}

int nop_decoder_add_process_events(struct nop_decoder *d, const char *dir, struct nop_error *err)
{
	/* the process events, and the context switch (off-CPU time) */
	for (size_t i = 0; i <= ARRAY_SIZE(nop_process_events); i++) {
		const char *name = i < ARRAY_SIZE(nop_process_events) ? nop_process_events[i] : nop_switch_events[0];
		char path[4400], sys[32], *fmt;
		const char *slash = strchr(name, '/');
		struct nop_error e2;
		size_t len;

		snprintf(path, sizeof(path), "%s/events/%s/format", dir, name);
		if (!(fmt = nop_read_file(path, &len, &e2)))
			continue; /* not in this kernel: no process is followed */
		snprintf(sys, sizeof(sys), "%.*s", (int)(slash - name), name);
		if (tep_parse_event(d->tep, fmt, len, sys) != 0) {
			free(fmt);
			nop_error_set(err, NOP_EKERNEL, 0, "cannot parse the format of %s", path);
			return -1;
		}
		free(fmt);
	}
	find_process_events(d);
	return 0;
}

/* The events nopctl decodes, and their fields, looked up once. */
static int find_fields(struct nop_decoder *d, struct nop_error *err)
{
	/* each event's id and fields, where the decoder keeps them */
#define AT(m) offsetof(struct nop_decoder, m)
	static const struct {
		const char *event;
		size_t id;
		struct { const char *name; size_t at; } f[5];
	} want[] = {
		{ "function", AT(fn_id), { { "ip", AT(fn_ip) }, { "parent_ip", AT(fn_parent) } } },
		{ "kernel_stack", AT(stack_id), { { "size", AT(st_size) }, { "caller", AT(st_caller) } } },
		{ "user_stack", AT(ustack_id), { { "caller", AT(us_caller) } } },
		{ "funcgraph_entry", AT(ent_id), { { "func", AT(ent_func) }, { "depth", AT(ent_depth) } } },
		{ "funcgraph_exit", AT(exit_id),
		  { { "func", AT(ex_func) }, { "depth", AT(ex_depth) }, { "calltime", AT(ex_call) },
		    { "rettime", AT(ex_ret) }, { "retval", AT(ex_retval) } } },
	};
#undef AT
	struct tep_event *ev;

	d->fork_id = d->exec_id = d->rename_id = d->switch_id = d->print_id = -1;
	find_process_events(d);
	d->native = tep_is_file_bigendian(d->tep) == tep_is_local_bigendian(d->tep);
	d->kword = tep_get_header_page_size(d->tep) == 4 ? 4 : 8;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		ev = tep_find_event_by_name(d->tep, "ftrace", want[i].event);
		*(int *)((char *)d + want[i].id) = ev ? ev->id : -1;
		for (size_t k = 0; k < ARRAY_SIZE(want[i].f) && want[i].f[k].name; k++)
			*(struct tep_format_field **)((char *)d + want[i].f[k].at) = field(ev, want[i].f[k].name);
	}
	if ((!d->fn_ip || !d->fn_parent) && !d->ent_func) {
		nop_error_set(err, NOP_EKERNEL, 0, "no ftrace/function or funcgraph_entry event format");
		return -1;
	}
	ev = d->fn_ip ? d->fn_ip->event : d->ent_func->event;
	d->c_type = tep_find_common_field(ev, "common_type");
	d->c_pid = tep_find_common_field(ev, "common_pid");
	d->fast = d->native && fixed(d->c_type, 2) && fixed(d->c_pid, 4) && fixed(d->ent_func, 8) &&
		  fixed(d->ent_depth, 4) && fixed(d->ex_func, 8) && fixed(d->ex_depth, 4) &&
		  fixed(d->ex_call, 8) && fixed(d->ex_ret, 8) && (!d->ex_retval || fixed(d->ex_retval, 8));
	if (d->native && fixed(d->c_type, 2))
		d->need_type = end_of(d->c_type, NULL, NULL, NULL, NULL);
	if (d->fast) {
		int common = end_of(d->c_type, d->c_pid, NULL, NULL, NULL);

		d->need_ent = end_of(d->ent_func, d->ent_depth, NULL, NULL, NULL);
		d->need_exit = end_of(d->ex_func, d->ex_depth, d->ex_call, d->ex_ret, d->ex_retval);
		d->need_ent = d->need_ent > common ? d->need_ent : common;
		d->need_exit = d->need_exit > common ? d->need_exit : common;
	}
	return 0;
}

/* A user entry's event fetches parameters (--args): fields after
 * __probe_ip other than nopctl's own (sp, caller, id) */
static bool user_args(struct tep_event *ev)
{
	bool after = false;

	for (struct tep_format_field *f = ev ? ev->format.fields : NULL; f; f = f->next) {
		if (after && strcmp(f->name, "sp") && strcmp(f->name, "caller") && strcmp(f->name, "id"))
			return true;
		after |= !strcmp(f->name, "__probe_ip");
	}
	return false;
}

/* An exit's value named by its type (probes.c, rv_name: an event of its
 * own, a recording's); the type into *rv */
static const struct tep_format_field *typed_rv(struct tep_event *ev, unsigned char *rv)
{
	for (struct tep_format_field *f = ev ? ev->format.fields : NULL; f; f = f->next) {
		char t;
		int size;

		if (sscanf(f->name, "rv_%c%d", &t, &size) != 2 || (size != 1 && size != 2 && size != 4 && size != 8))
			continue;
		*rv = t == 'x' ? 0 : (unsigned char)size | (t == 's' ? NOP_RV_SIGNED : t == 'p' ? NOP_RV_POINTER : 0);
		return f;
	}
	return NULL;
}

static void free_uev(struct nop_decoder *d)
{
	free(d->uev);
	d->uev = NULL;
	d->nuev = 0;
	free(d->uid);
	d->uid = NULL;
	d->nuid = 0;
}

/* each probe event's id to its function's key; evs[i]: u->v[i]'s event */
static int set_uev(struct nop_decoder *d, const struct nop_uprobes *u, struct tep_event **evs,
		   struct nop_error *err)
{
	int lo = 0, hi = -1;

	for (size_t i = 0; i < u->n; i++) {
		lo = i == 0 || evs[i]->id < lo ? evs[i]->id : lo;
		hi = evs[i]->id > hi ? evs[i]->id : hi;
	}
	free_uev(d);
	d->uev_returns = false;
	if (!u->n)
		return 0;
	if (hi - lo > 1 << 20 || !(d->uev = calloc((size_t)(hi - lo + 1), sizeof(*d->uev)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	d->uev_base = lo;
	d->nuev = hi - lo + 1;
	if (!(d->uid = calloc(u->n, sizeof(*d->uid)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	d->nuid = u->n;
	for (size_t i = 0; i < u->n; i++) {
		struct nop_uev *e = &d->uev[evs[i]->id - lo];

		e->kind = u->v[i].kind;
		e->ret = u->v[i].ret;
		if (e->kind != NOP_PROBE_USER) {
			e->key = 1; /* decoded: the function is in the event */
			e->kev = evs[i];
			e->kfn = field(evs[i], nop_probe_args(e->kind) ? "__probe_ip" : "__probe_func");
			e->kret = field(evs[i], "ret");
			e->kretip = field(evs[i], "__probe_ret_ip");
			continue;
		}
		e->key = NOP_UKEY | u->v[i].func;
		e->site = i + 1;
		d->uid[i] = (struct nop_uid){ e->key, u->v[i].rv, u->v[i].shared };
		if (u->v[i].shared)
			e->idf = field(evs[i], "id");
		e->ip = u->v[i].ret ? NULL : field(evs[i], "__probe_ip");
		e->caller = u->v[i].ret ? NULL : field(evs[i], "caller");
		e->sp = field(evs[i], "sp");
		e->uargs = u->v[i].fetch != NULL || (!u->v[i].ret && user_args(evs[i]));
		if (e->uargs)
			e->kev = evs[i];
		e->rvf = field(evs[i], "rv");
		e->rv = u->v[i].rv;
		if (!e->rvf)
			e->rvf = typed_rv(evs[i], &e->rv);
		e->sp_add = !e->ret ? 0 : field(evs[i], "__probe_ret_ip") ? (unsigned char)(8 - d->ret_pops) : 8;
		e->leaf = u->v[i].leaf;
		d->uev_returns |= e->ret || e->leaf;
	}
	for (int i = 0; i < d->nuev; i++) {
		struct nop_uev *e = &d->uev[i];

		e->fast = d->need_type && fixed(d->c_pid, 4) && d->uev_returns && e->key && e->kind == NOP_PROBE_USER && !e->idf &&
			  !e->uargs && !e->leaf && fixed(e->sp, 8) && (!e->rvf || fixed(e->rvf, 8)) &&
			  (e->ret || (fixed(e->ip, 8) && fixed(e->caller, 8)));
		if (e->fast) {
			int common = end_of(d->c_type, d->c_pid, NULL, NULL, NULL);

			e->need = end_of(e->sp, e->rvf, e->ip, e->caller, NULL);
			e->need = e->need > common ? e->need : common;
		}
	}
	return 0;
}

/* the probe events of nopctl's group: their formats from dir/events, each
 * event id to its function's key */
int nop_decoder_add_probes(struct nop_decoder *d, const char *dir, const char *group,
			   const struct nop_uprobes *u, struct nop_error *err)
{
	struct tep_event **evs = calloc(u->n + 1, sizeof(*evs));
	int ret = -1;

	if (!evs) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < u->n; i++) {
		char path[4400], *fmt;
		size_t len;

		if ((evs[i] = tep_find_event_by_name(d->tep, group, u->v[i].event)))
			continue; /* a shared event: parsed for an earlier probe */
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, group, u->v[i].event);
		if (!(fmt = nop_read_file(path, &len, err)))
			goto out;
		if (tep_parse_event(d->tep, fmt, len, group) != 0 ||
		    !(evs[i] = tep_find_event_by_name(d->tep, group, u->v[i].event))) {
			free(fmt);
			nop_error_set(err, NOP_EKERNEL, 0, "cannot parse the format of %s", path);
			goto out;
		}
		free(fmt);
	}
	ret = set_uev(d, u, evs, err);
out:
	free(evs);
	return ret;
}

/* nopctl's probe group, whichever nopctl (and PID namespace) recorded it */
static bool recorded_group(const char *system)
{
	return system && !strncmp(system, "nopctl_", 7);
}

/* a kernel function's probe, by the suffix nopctl gave its event (its
 * kind of return probe does not matter once recorded) */
static enum nop_probe_kind recorded_kind(const char *name)
{
	size_t len = strlen(name), r = strlen(NOP_KRET_SUFFIX), a = strlen(NOP_KARGS_SUFFIX);

	if (len > r && !strcmp(name + len - r, NOP_KRET_SUFFIX))
		return NOP_PROBE_FEXIT;
	if (len > a && !strcmp(name + len - a, NOP_KARGS_SUFFIX))
		return NOP_PROBE_FARGS;
	return NOP_PROBE_USER;
}

/* the binaries a recording names (NOP_DAT_OPT_BINARIES: "EVENT\tPATH"
 * lines; NULL in a file without it) into its user probes */
static int recorded_binaries(struct nop_uprobes *u, const char *text)
{
	struct line { const char *path; size_t len; } *l;
	struct nop_strmap *paths = NULL, *entries = NULL;
	char key[4600];
	int ret = -1;

	if (!text)
		return 0;
	if (!(paths = nop_strmap_new(sizeof(*l))) || !(entries = nop_strmap_new(sizeof(size_t))))
		goto out;
	/* its lines once: event name -> path */
	for (const char *at = text; *at;) {
		const char *tab = strchr(at, '\t'), *end = strchrnul(at, '\n');

		if (tab && tab < end && (size_t)(tab - at) < sizeof(key)) {
			snprintf(key, sizeof(key), "%.*s", (int)(tab - at), at);
			if (!(l = nop_strmap_get(paths, key)))
				goto out;
			*l = (struct line){ tab + 1, (size_t)(end - tab - 1) };
		}
		at = *end ? end + 1 : end;
	}
	for (size_t i = 0; i < u->n; i++) {
		struct nop_uprobe *p = &u->v[i];
		char *copy;

		if (p->kind != NOP_PROBE_USER || !(l = nop_strmap_find(paths, p->event)))
			continue;
		if (!(copy = strndup(l->path, l->len)))
			goto out;
		free(p->path);
		p->path = copy;
		snprintf(p->bin, sizeof(p->bin), "%s", strrchr(copy, '/') ? strrchr(copy, '/') + 1 : copy);
	}
	/* an exit's entry: the same function of the same binary */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < u->n; i++) {
			struct nop_uprobe *p = &u->v[i];
			size_t *at;

			if (p->kind != NOP_PROBE_USER || p->ret != (pass == 1))
				continue;
			snprintf(key, sizeof(key), "%s\1%s", p->path, p->sym);
			if (!pass) {
				if (!(at = nop_strmap_get(entries, key)))
					goto out;
				if (!*at)
					*at = i + 1; /* the first entry of that name */
			} else if ((at = nop_strmap_find(entries, key)) && *at) {
				p->func = *at - 1;
			}
		}
	ret = 0;
out:
	nop_strmap_free(paths);
	nop_strmap_free(entries);
	return ret;
}

/* A recording's probe events (system nopctl_<pid>): the functions they
 * name, into u (entries first; a return "NAME__return" shares its
 * entry's key), with their binaries where the recording names them. */
int nop_decoder_recorded_probes(struct nop_decoder *d, struct nop_uprobes *u, const char *binaries,
				struct nop_error *err)
{
	struct tep_event **all = tep_list_events(d->tep, TEP_EVENT_SORT_ID), **evs = NULL;
	size_t n = 0;
	int ret = -1;

	for (size_t i = 0; all && all[i]; i++)
		n += recorded_group(all[i]->system);
	if (!n)
		return 0;
	if (!(evs = calloc(n + 1, sizeof(*evs))))
		goto oom;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; all[i]; i++) {
			const char *name = all[i]->name;
			size_t symlen;
			enum nop_probe_name pn = nop_probe_name_parse(name, &symlen);
			bool isret = pn == NOP_PN_EXIT;
			enum nop_probe_kind kind = recorded_kind(name);

			if (!recorded_group(all[i]->system) || (isret || kind) != (pass == 1))
				continue;
			if (nop_uprobes_add_named(u, name, symlen, isret))
				goto oom;
			u->v[u->n - 1].leaf = pn == NOP_PN_LEAF;
			if (kind) {
				char *sym = u->v[u->n - 1].sym;

				sym[strlen(sym) - strlen(kind == NOP_PROBE_FARGS ? NOP_KARGS_SUFFIX
									     : NOP_KRET_SUFFIX)] = 0;
				u->v[u->n - 1].kind = kind;
				u->v[u->n - 1].ret = kind != NOP_PROBE_FARGS;
			}
			evs[u->n - 1] = all[i];
		}
	if (recorded_binaries(u, binaries))
		goto oom;
	ret = set_uev(d, u, evs, err);
	free(evs);
	return ret;
oom:
	free(evs);
	nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	return -1;
}

/* the kernel event of this id, a new one: NULL out of memory */
static struct nop_kev *kev_slot(struct nop_decoder *d, int id)
{
	struct nop_kev *k;

	if ((size_t)id >= d->nkev_of) {
		/* a file's IDs come in order: grown by doubling */
		size_t n = (size_t)id + 1 > 2 * d->nkev_of ? (size_t)id + 1 : 2 * d->nkev_of;
		unsigned int *of = realloc(d->kev_of, n * sizeof(*of));

		if (!of)
			return NULL;
		memset(of + d->nkev_of, 0, (n - d->nkev_of) * sizeof(*of));
		d->kev_of = of;
		d->nkev_of = n;
	}
	if (nop_grow((void **)&d->kev, &d->capkev, d->nkev + 1, sizeof(*d->kev)))
		return NULL;
	k = &d->kev[d->nkev++];
	memset(k, 0, sizeof(*k));
	d->kev_of[id] = (unsigned int)d->nkev;
	return k;
}

/* the field naming the other task ev concerns, if it is one of these */
static const struct tep_format_field *about_field(struct tep_event *ev)
{
	static const struct { const char *event, *field; } about[] = {
		{ "sched_switch", "next_pid" }, { "sched_wakeup", "pid" }, { "sched_waking", "pid" },
		{ "sched_wakeup_new", "pid" },  { "sched_migrate_task", "pid" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(about); i++)
		if (!strcmp(ev->system, "sched") && !strcmp(ev->name, about[i].event))
			return field(ev, about[i].field);
	return NULL;
}

/* ev shown as a KEVENT; 0, or -1 out of memory */
static int kev_add(struct nop_decoder *d, struct tep_event *ev)
{
	struct nop_kev *k;

	if (ev->id < 0 || ev->id > 65535)
		return 0;
	if ((size_t)ev->id < d->nkev_of && d->kev_of[ev->id])
		return 0; /* once */
	if (!(k = kev_slot(d, ev->id)))
		return -1;
	k->ev = ev;
	snprintf(k->name, sizeof(k->name), "%s:%s", ev->system, ev->name);
	k->about = about_field(ev);
	return 0;
}

int nop_decoder_kev_parse(struct nop_decoder *d, struct nop_kev *k)
{
	const char *colon = strchr(k->name, ':');
	struct tep_event *ev = NULL;
	size_t len;
	char *text = k->fmt ? parsable(k->fmt, k->fmtlen, &len) : NULL;

	if (text && tep_parse_event(d->tep, text, len, k->system) == 0)
		ev = tep_find_event_by_name(d->tep, k->system, colon + 1);
	free(text);
	k->fmt = NULL;
	if (!ev)
		return -1;
	k->ev = ev;
	k->about = about_field(ev);
	return 0;
}

int nop_decoder_add_events(struct nop_decoder *d, const char *dir, const struct nop_kevent *k, size_t n,
			   struct nop_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct tep_event *ev = tep_find_event_by_name(d->tep, k[i].system, k[i].name);
		char path[4400], *fmt;
		size_t len;

		if (!ev) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, k[i].system, k[i].name);
			if (!(fmt = nop_read_file(path, &len, err)))
				return -1;
			if (tep_parse_event(d->tep, fmt, len, k[i].system) != 0 ||
			    !(ev = tep_find_event_by_name(d->tep, k[i].system, k[i].name))) {
				free(fmt);
				nop_error_set(err, NOP_EKERNEL, 0, "cannot parse the format of %s", path);
				return -1;
			}
			free(fmt);
		}
		if (kev_add(d, ev)) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* a recording's kernel events: every event it holds but the tracers'
 * own and nopctl's probes (decoded as calls) */
static int recorded_events(struct nop_decoder *d, struct nop_error *err)
{
	struct tep_event **all = tep_list_events(d->tep, TEP_EVENT_SORT_ID);

	for (int i = 0; all && all[i]; i++) {
		/* process events nopctl records to follow tasks are decoded as
		 * such (a fork, an exec, a new name), not shown */
		if (!strcmp(all[i]->system, "ftrace") || recorded_group(all[i]->system) ||
		    listed(all[i]->system, all[i]->name, nop_process_events, ARRAY_SIZE(nop_process_events)))
			continue;
		if (kev_add(d, all[i])) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
	}
	return 0;
}

void nop_decoder_free(struct nop_decoder *d)
{
	if (!d)
		return;
	free(d->kev);
	free(d->kev_of);
	free(d->kevbuf);
	free_uev(d);
	free(d->argsbuf);
	tep_free(d->tep);
	free(d);
}

int nop_decoder_page_size(const struct nop_decoder *d)
{
	return d->page_size;
}

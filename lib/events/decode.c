/* decode.c - ring-buffer pages to events: the page is walked here with
 * the kernel's arithmetic, fields read by the offsets decoder.c found. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events/decoder.h"

/* One record of a page: where its data is, how long, when, which CPU
 * (a tep_record zeroed per record was a tenth of a report's decode) */
struct rec {
	const char *data;
	int size, cpu;
	unsigned long long ts;
};

/* A field of a record. In our own byte order, read in place at the
 * offset the format gives, not through tep_read_number_field. */
static unsigned long long num(const struct nop_decoder *d, const struct tep_format_field *f,
			      const struct rec *rec)
{
	const char *p;
	unsigned long long v = 0;

	/* a format without the field (a damaged trace.dat: found by fuzz_dat),
	 * or a damaged record shorter than its format: nothing past its end is
	 * read (the caller bounded rec->size by the page; found by fuzz_decode) */
	if (!f || f->offset < 0 || (unsigned)f->offset + (unsigned)f->size > (unsigned)rec->size)
		return 0;
	p = (const char *)rec->data + f->offset;
	if (d->native) {
		switch (f->size) {
		case 8: { uint64_t x; memcpy(&x, p, 8); return x; }
		case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
		case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
		case 1: return (unsigned char)*p;
		}
	}
	tep_read_number_field((struct tep_format_field *)f, (void *)rec->data, &v);
	return v;
}

/* a signed field of any size, sign-extended */
static long long snum(const struct nop_decoder *d, const struct tep_format_field *f, const struct rec *rec)
{
	unsigned long long v = num(d, f, rec);

	if (f && (f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 &&
	    (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	return (long long)v;
}

/* A kernel_stack record's addresses into out (at most max; 0 and -1,
 * which end or pad a stack, left out): how many. end: the end of the
 * page: a damaged record's size cannot reach past it. Reads d only. */
static int stack_words(const struct nop_decoder *d, const struct rec *rec, const char *end,
		       unsigned long long *out, int max)
{
	long long n = (long long)num(d, d->st_size, rec);
	int off = d->st_caller->offset, lsz = d->kword;
	long long size = rec->size, left = end - (const char *)rec->data;
	long long room = ((size < left ? size : left) - off) / lsz;
	int k = 0;

	if (n > room)
		n = room;
	for (int i = 0; i < n && k < max; i++) {
		/* records are 4-byte aligned in the ring buffer: copy, never
		 * load a 64-bit word in place (found by fuzz_decode) */
		unsigned long long a = 0;
		unsigned int a32;

		if (lsz == 8) {
			memcpy(&a, rec->data + off + 8 * i, 8);
		} else {
			memcpy(&a32, rec->data + off + 4 * i, 4);
			a = a32;
		}

		if (a == 0 || a == ~0ULL || (lsz == 4 && a == 0xffffffffULL))
			continue;
		out[k++] = a;
	}
	return k;
}

static void read_stack(struct nop_decoder *d, const struct rec *rec, struct nop_event *ev, const char *end)
{
	ev->stack = d->stackbuf;
	ev->nstack = stack_words(d, rec, end, d->stackbuf, (int)ARRAY_SIZE(d->stackbuf));
}

/* A user_stack record's addresses (its caller[8], the kernel's longs, up
 * to the first 0 or -1) into out: how many, at most max (the format's
 * size is a file's word). Reads d only. */
static int ustack_words(const struct nop_decoder *d, const struct rec *rec, unsigned long long *out, int max)
{
	const char *p = rec->data + d->us_caller->offset;
	int k = 0, lsz = d->kword, n = d->us_caller->size / lsz;

	for (int i = 0; i < n && k < max && d->us_caller->offset + lsz * (i + 1) <= rec->size; i++) {
		unsigned long long a = 0;

		memcpy(&a, p + lsz * i, (size_t)lsz); /* as stack_words: copied, never loaded in place */
		if (!a || a == (lsz == 8 ? ~0ULL : 0xffffffffULL))
			break;
		out[k++] = a;
	}
	return k;
}

/* The addresses a record names as its decoding would give them (a hit's
 * function and caller, a graph entry's or exit's function, a stack's
 * entries, the kernel function a return-value or argument probe fired
 * in), noted into s: a trace.dat keeps the kernel symbols of these. A
 * user function's probe names none. Reads d only. A set out of memory
 * says so itself. */
static void note_addrs(const struct nop_decoder *d, const struct rec *rec, const char *end, int type,
		       struct nop_addrset *s)
{
	unsigned long long v[ARRAY_SIZE(d->stackbuf)];
	int n = 0;

	if (type == d->ustack_id && d->us_caller) {
		n = ustack_words(d, rec, v, (int)ARRAY_SIZE(v));
	} else if (type == d->stack_id && d->st_caller) {
		n = stack_words(d, rec, end, v, (int)ARRAY_SIZE(v));
	} else if (type == d->fn_id) {
		v[n++] = num(d, d->fn_ip, rec);
		v[n++] = num(d, d->fn_parent, rec);
	} else if (type == d->ent_id && d->ent_func) {
		v[n++] = num(d, d->ent_func, rec);
	} else if (type == d->exit_id && d->ex_call) {
		v[n++] = num(d, d->ex_func, rec);
	} else if ((unsigned int)(type - d->uev_base) < (unsigned int)d->nuev) {
		const struct nop_uev *u = &d->uev[type - d->uev_base];

		if (u->key && u->kind != NOP_PROBE_USER && u->kfn)
			v[n++] = num(d, u->kfn, rec);
	}
	for (int i = 0; i < n; i++)
		nop_addrset_add(s, v[i]);
}

/* A function hit is held until the next record of its CPU: the kernel
 * writes its stack (with -s) right after it. */
static int flush(struct nop_decoder *d, nop_emit_fn emit, void *ctx)
{
	if (!d->have_pend)
		return 0;
	d->have_pend = false;
	return emit(ctx, &d->pend);
}

int nop_decode_flush(struct nop_decoder *d, nop_emit_fn emit, void *ctx)
{
	return flush(d, emit, ctx);
}

#define AT(T, f) ({ T v_; memcpy(&v_, (const char *)rec->data + (f)->offset, sizeof(T)); v_; })

/* Where a fast path builds its event: into the caller's array when it
 * gave one (after a held hit, as emit would have put them), not built
 * here and copied there by emit; else into ev. NULL: failed, *ret says why */
static struct nop_event *slot(struct nop_decoder *d, struct nop_event *ev, nop_emit_fn emit, void *ctx, int *ret)
{
	if (!d->arr)
		return ev;
	if ((*ret = flush(d, emit, ctx)))
		return NULL;
	if (*d->narr == *d->caparr && nop_grow((void **)d->arr, d->caparr, *d->narr + 1, sizeof(**d->arr))) {
		*ret = -ENOMEM;
		return NULL;
	}
	return &(*d->arr)[(*d->narr)++];
}

/* a fast path's event built in e (slot): emitted unless it is in place */
static int placed(struct nop_decoder *d, struct nop_event *e, struct nop_event *ev, nop_emit_fn emit, void *ctx)
{
	return e != ev ? 0 : flush(d, emit, ctx) ? : emit(ctx, ev);
}

/* funcgraph entry and exit, the bulk of a graph capture: fields at fixed
 * offsets, sizes checked once (d->fast); 1 if the record is not one */
static int decode_graph_fast(struct nop_decoder *d, const struct rec *rec, int type, nop_emit_fn emit,
			     void *ctx, int *ret)
{
	struct nop_event ev, *e;

	if (!(type == d->ent_id && rec->size >= d->need_ent) &&
	    !(type == d->exit_id && rec->size >= d->need_exit))
		return 1;
	if (!(e = slot(d, &ev, emit, ctx, ret)))
		return 0;
	if (type == d->ent_id) {
		*e = (struct nop_event){ .type = NOP_EV_ENTRY, .cpu = rec->cpu, .ts = rec->ts,
					 .pid = AT(int32_t, d->c_pid), .ip = AT(uint64_t, d->ent_func),
					 .depth = AT(int32_t, d->ent_depth) };
	} else {
		*e = (struct nop_event){ .type = NOP_EV_EXIT, .cpu = rec->cpu, .ts = rec->ts,
					 .pid = AT(int32_t, d->c_pid), .ip = AT(uint64_t, d->ex_func),
					 .depth = AT(int32_t, d->ex_depth),
					 .calltime = AT(uint64_t, d->ex_call),
					 .rettime = AT(uint64_t, d->ex_ret) };
		if (d->ex_retval) {
			e->retval = AT(int64_t, d->ex_retval);
			e->has_retval = true;
		}
	}
	*ret = placed(d, e, &ev, emit, ctx);
	return 0;
}

/* A user function's entry or exit, the bulk of a recording of them, as
 * decode_record's probe branch builds it: fields at fixed offsets, sizes
 * checked once (u->fast), the record at least u->need long */
static int decode_user_fast(struct nop_decoder *d, const struct nop_uev *u, const struct rec *rec,
			    nop_emit_fn emit, void *ctx)
{
	struct nop_event ev, *e;
	int ret;

	if (!(e = slot(d, &ev, emit, ctx, &ret)))
		return ret;
	*e = (struct nop_event){ .type = u->ret ? NOP_EV_EXIT : NOP_EV_ENTRY, .cpu = rec->cpu, .ts = rec->ts,
				 .pid = AT(int32_t, d->c_pid), .ip = u->key, .depth = -1,
				 .usp = AT(uint64_t, u->sp) + u->sp_add };
	if (!u->ret) {
		e->uip = AT(uint64_t, u->ip);
		e->ucaller = AT(uint64_t, u->caller);
	} else if (u->rv && u->rvf) { /* where decode_record puts it */
		e->rettime = (unsigned long long)nop_rv_value(u->rv, AT(uint64_t, u->rvf));
		e->has_retval = true;
		e->rvtype = u->rv;
	}
	if (u->ret)
		e->usite = u->site;
	return placed(d, e, &ev, emit, ctx);
}

void nop_decoder_append_to(struct nop_decoder *d, struct nop_event **arr, size_t *n, size_t *cap)
{
	d->arr = arr;
	d->narr = n;
	d->caparr = cap;
}

/* the common type read in place (d->need_type set) */
static inline int type_in_place(const struct nop_decoder *d, const struct rec *rec)
{
	return rec->size >= d->need_type ? AT(uint16_t, d->c_type) : -1;
}

/* the common fields: in place where the format allows (the walk gives
 * records of at least 8 bytes), through libtraceevent when it lacks them */
static int rec_type(const struct nop_decoder *d, const struct rec *rec)
{
	if (d->need_type)
		return type_in_place(d, rec);
	return d->c_type ? (int)num(d, d->c_type, rec)
			 : tep_data_type(d->tep, &(struct tep_record){ .data = (void *)rec->data,
								  .size = rec->size });
}

static int rec_pid(const struct nop_decoder *d, const struct rec *rec)
{
	return d->c_pid ? (int)num(d, d->c_pid, rec)
			: tep_data_pid(d->tep, &(struct tep_record){ .data = (void *)rec->data,
								 .size = rec->size });
}

/* The task name a FORK's child starts with (task_newtask's comm, inline)
 * or an EXEC gives its task (the kernel's: the file's base name, 15 bytes
 * at most; sched_process_exec's filename, a __data_loc string); NULL if
 * the record does not hold it */
static const char *task_name(struct nop_decoder *d, const struct tep_format_field *f, bool loc,
			     const struct rec *rec)
{
	const char *s, *slash;
	size_t off, len;

	if (!f)
		return NULL;
	if (loc) {
		unsigned long long v = num(d, f, rec);

		off = v & 0xffff;
		len = (v >> 16) & 0xffff;
	} else {
		off = (size_t)f->offset;
		len = (size_t)f->size;
	}
	if (off + len > (size_t)rec->size || !len)
		return NULL;
	s = (const char *)rec->data + off;
	len = strnlen(s, len);
	if (loc && (slash = memrchr(s, '/', len))) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	snprintf(d->comm, sizeof(d->comm), "%.*s", (int)len, s);
	return d->comm;
}

long long nop_rv_value(unsigned char rv, unsigned long long rax)
{
	int bits = 8 * (rv & 0xf);

	if (bits >= 64 || !bits)
		return (long long)rax;
	rax &= (1ULL << bits) - 1;
	if ((rv & NOP_RV_SIGNED) && (rax >> (bits - 1)))
		rax |= ~0ULL << bits; /* sign-extended */
	return (long long)rax;
}

/* A shared event's probe, by the index it fetched: its key, and its
 * return value's type into *rv (0: not a probe of this run) */
static unsigned long long shared_key(struct nop_decoder *d, const struct nop_uev *u, const struct rec *rec,
				     unsigned char *rv, unsigned long long *site)
{
	unsigned long long id = num(d, u->idf, rec);

	if (id >= d->nuid || !d->uid[id].shared)
		return 0;
	*rv = d->uid[id].rv;
	*site = id + 1;
	return d->uid[id].key;
}

/* A "nopctl-tasks PID=NAME PID=NAME..." marker's names (NAME: a task's
 * comm, its spaces and '=' written as '_'), each to d->names */
static int marker_names(struct nop_decoder *d, const struct rec *rec)
{
	size_t off = (size_t)d->pr_buf->offset, len, k = sizeof(NOP_TASKS_MARKER) - 1;
	const char *s, *e;

	if (off >= (size_t)rec->size)
		return 0;
	s = (const char *)rec->data + off;
	len = strnlen(s, (size_t)rec->size - off);
	if (len <= k || memcmp(s, NOP_TASKS_MARKER " ", k + 1))
		return 0;
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--; /* the marker's newline: not the last name's */
	for (s += k + 1, e = s - k - 1 + len; s < e;) {
		const char *sp = memchr(s, ' ', (size_t)(e - s)), *eq;
		size_t n = sp ? (size_t)(sp - s) : (size_t)(e - s);
		char name[16];
		long pid;

		if ((eq = memchr(s, '=', n)) && eq > s && (pid = strtol(s, NULL, 10)) > 0) {
			size_t nl = n - (size_t)(eq + 1 - s);

			if (nl && nl < sizeof(name)) {
				memcpy(name, eq + 1, nl);
				name[nl] = 0;
				d->names(d->names_ctx, (int)pid, name, rec->ts);
			}
		}
		s += n + 1;
	}
	return 0;
}

/* a kernel event shown beside the calls (-e), if type is one: 1 if not */
static int kevent(struct nop_decoder *d, const struct rec *rec, int type, nop_emit_fn emit, void *ctx)
{
	struct nop_kev *k;
	struct nop_event ev;

	if (type < 0 || (size_t)type >= d->nkev_of || !d->kev_of[type])
		return 1;
	k = &d->kev[d->kev_of[type] - 1];
	if (!k->ev && nop_decoder_kev_parse(d, k)) {
		d->kev_of[type] = 0; /* refused by libtraceevent: left out */
		return 1;
	}
	ev = (struct nop_event){ .type = NOP_EV_KEVENT, .cpu = rec->cpu, .ts = rec->ts, .pid = rec_pid(d, rec),
				 .ename = k->name, .about = k->about ? (int)num(d, k->about, rec) : 0 };
	if (!(ev.args = nop_args_format(k->ev, NULL, rec->data, rec->size, d->native, &d->kevbuf, &d->kevcap)))
		return 0; /* out of memory: left out */
	return emit(ctx, &ev);
}

NOP_HOT static int decode_record(struct nop_decoder *d, const struct rec *rec, const char *end,
			 nop_emit_fn emit, void *ctx)
{
	int type, ret;
	struct nop_event ev;
	const struct nop_uev *u;

	if (d->fast) { /* (which the type in place is part of) */
		type = type_in_place(d, rec);
		if (!decode_graph_fast(d, rec, type, emit, ctx, &ret))
			return ret;
	} else {
		type = rec_type(d, rec);
	}
	u = (unsigned int)(type - d->uev_base) < (unsigned int)d->nuev ? &d->uev[type - d->uev_base] : NULL;
	if (u && u->fast && rec->size >= u->need)
		return decode_user_fast(d, u, rec, emit, ctx);
	ev = (struct nop_event){ .cpu = rec->cpu, .ts = rec->ts };

	if (type == d->ustack_id && d->us_caller) {
		/* a user stack (userstacktrace), after its event: its own STACK */
		if ((ret = flush(d, emit, ctx)))
			return ret;
		ev.nstack = ustack_words(d, rec, d->stackbuf, (int)ARRAY_SIZE(d->stackbuf));
		ev.type = NOP_EV_STACK;
		ev.pid = rec_pid(d, rec);
		ev.stack = d->stackbuf;
		ev.user_stack = true;
		return emit(ctx, &ev);
	}
	if (type == d->stack_id && d->st_caller) {
		if (d->have_pend && d->pend.cpu == rec->cpu) {
			read_stack(d, rec, &d->pend, end);
			return flush(d, emit, ctx);
		}
		if ((ret = flush(d, emit, ctx)))
			return ret;
		ev.type = NOP_EV_STACK;
		ev.pid = rec_pid(d, rec);
		read_stack(d, rec, &ev, end);
		return emit(ctx, &ev);
	}
	if ((ret = flush(d, emit, ctx)))
		return ret;
	ev.pid = rec_pid(d, rec);
	if (type == d->fn_id) {
		ev.type = NOP_EV_FUNC;
		ev.ip = num(d, d->fn_ip, rec);
		ev.parent_ip = num(d, d->fn_parent, rec);
		d->pend = ev;
		d->have_pend = true;
		return 0;
	}
	if (type == d->ent_id && d->ent_func) {
		ev.type = NOP_EV_ENTRY;
		ev.ip = num(d, d->ent_func, rec);
		ev.depth = (int)num(d, d->ent_depth, rec);
		return emit(ctx, &ev);
	}
	if (type == d->exit_id && d->ex_call) {
		ev.type = NOP_EV_EXIT;
		ev.ip = num(d, d->ex_func, rec);
		ev.depth = (int)num(d, d->ex_depth, rec);
		ev.calltime = num(d, d->ex_call, rec);
		ev.rettime = num(d, d->ex_ret, rec);
		if (d->ex_retval) {
			ev.retval = (long long)num(d, d->ex_retval, rec);
			ev.has_retval = true;
		}
		return emit(ctx, &ev);
	}
	if (type == d->switch_id) {
		ev.type = NOP_EV_SWITCH;
		ev.pid = (int)num(d, d->sw_prev, rec);
		ev.next = (int)num(d, d->sw_next, rec);
		ev.state = snum(d, d->sw_state, rec);
		if (d->names) {
			const char *n = task_name(d, d->sw_pcomm, false, rec);

			if (n)
				d->names(d->names_ctx, ev.pid, n, rec->ts);
			if ((n = task_name(d, d->sw_ncomm, false, rec)))
				d->names(d->names_ctx, ev.next, n, rec->ts);
		}
		if ((ret = emit(ctx, &ev)))
			return ret;
		return (ret = kevent(d, rec, type, emit, ctx)) > 0 ? 0 : ret;
	}
	if (type == d->fork_id || type == d->exec_id || type == d->rename_id) {
		if (type == d->fork_id) {
			ev.type = NOP_EV_FORK;
			ev.child = (int)num(d, d->fk_child, rec);
			ev.thread = num(d, d->fk_flags, rec) & 0x00010000; /* CLONE_THREAD */
			ev.args = task_name(d, d->fk_comm, false, rec);
		} else if (type == d->exec_id) {
			ev.type = NOP_EV_EXEC;
			ev.args = task_name(d, d->ex_file, true, rec);
		} else {
			ev.type = NOP_EV_RENAME;
			ev.pid = (int)num(d, d->rn_pid, rec);
			ev.args = task_name(d, d->rn_comm, false, rec);
		}
		if (d->names && ev.args)
			d->names(d->names_ctx, ev.type == NOP_EV_FORK ? ev.child : ev.pid, ev.args, rec->ts);
		/* asked for beside the calls as well: shown after it */
		if ((ret = emit(ctx, &ev)))
			return ret;
		return (ret = kevent(d, rec, type, emit, ctx)) > 0 ? 0 : ret;
	}
	if (type == d->print_id)
		return marker_names(d, rec);
	if (u && u->key) {
		/* a user function's probe: with returns probed, depth and
		 * times come from the per-task stack the pipeline keeps
		 * (ucalls.c) */
		if (u->kind != NOP_PROBE_USER) { /* a kernel function's (--retval, --args) */
			ev.ip = num(d, u->kfn, rec);
			if (!nop_probe_args(u->kind)) {
				ev.type = NOP_EV_RETVAL;
				ev.retval = snum(d, u->kret, rec);
				ev.has_retval = u->kret != NULL;
				ev.ucaller = u->kretip ? num(d, u->kretip, rec) : 0;
				return emit(ctx, &ev);
			}
			ev.type = NOP_EV_ARGS;
			if (!(ev.args = nop_args_format(u->kev, "__probe_ip", rec->data, rec->size, d->native, &d->argsbuf,
							&d->argscap)))
				return 0; /* out of memory: the call is shown without them */
			return emit(ctx, &ev);
		}
		unsigned char rv = u->rv;
		unsigned long long site = u->site;

		ev.ip = u->idf ? shared_key(d, u, rec, &rv, &site) : u->key;
		if (!ev.ip)
			return 0; /* an index no probe of this run has */
		/* --args: the parameters its entry fetched, after nopctl's own */
		if (u->uargs && !u->ret)
			ev.args = nop_args_format(u->kev, u->caller ? "caller" : "__probe_ip", rec->data, rec->size,
						  d->native, &d->argsbuf, &d->argscap);
		if (!d->uev_returns) { /* entries only: hits, as the function tracer's */
			ev.type = NOP_EV_FUNC;
			ev.parent_ip = num(d, u->caller, rec); /* fetched for callers only */
			ev.uhit = num(d, u->ip, rec);
			return emit(ctx, &ev);
		}
		ev.type = u->ret ? NOP_EV_EXIT : NOP_EV_ENTRY;
		ev.depth = -1;
		ev.usp = num(d, u->sp, rec) + u->sp_add;
		/* a user exit's value rides where its call's times will be put
		 * (ucalls.c moves it to retval: retval holds usp until then) */
		if (u->ret && rv && u->rvf) {
			ev.rettime = (unsigned long long)nop_rv_value(rv, num(d, u->rvf, rec));
			ev.has_retval = true;
			ev.rvtype = rv;
		}
		if (!u->ret) {
			ev.uip = num(d, u->ip, rec);
			ev.ucaller = num(d, u->caller, rec);
		}
		if (u->leaf) { /* the probed instruction returns: the exit too */
			int ret = emit(ctx, &ev);

			if (ret)
				return ret;
			ev.type = NOP_EV_EXIT;
			ev.usp += 8; /* the return address popped */
			ev.uip = ev.ucaller = 0;
		}
		if (ev.type == NOP_EV_EXIT)
			ev.usite = site;
		return emit(ctx, &ev);
	}
	/* a kernel event shown beside the calls, or one nopctl does not show */
	return (ret = kevent(d, rec, type, emit, ctx)) > 0 ? 0 : ret;
}

static uint32_t rd4(const struct nop_decoder *d, const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return d->native ? v : __builtin_bswap32(v);
}

static unsigned long long rd8(const struct nop_decoder *d, const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return d->native ? v : __builtin_bswap64(v);
}

/* a kernel long: the page header's commit word, a lost-events count */
static unsigned long long rdlong(const struct nop_decoder *d, int lsz, const char *p)
{
	return lsz == 8 ? rd8(d, p) : rd4(d, p);
}

/* A page's header: the timestamp, then the commit word, whose low 27 bits
 * are the length of the data (the top bits flag missed events) */
#define COMMIT_LEN 0x7ffffffULL

/* More than three quarters of the page's data area written: a page the
 * writer left (it ends where the next event did not fit), not one read
 * while it was still being written. */
bool nop_page_filled(const struct nop_decoder *d, const void *page)
{
	int lsz = d->kword, room = d->page_size - 8 - lsz;

	return (long long)(rdlong(d, lsz, (const char *)page + 8) & COMMIT_LEN) * 4 > (long long)room * 3;
}

/* The ring buffer's record types (include/linux/ring_buffer.h) */
enum { RB_PADDING = 29, RB_TIME_EXTEND = 30, RB_TIME_STAMP = 31 };
/* a time stamp as trace-cmd report shows it: x86-tsc cycles to ns where
 * the recording says how (TSC2NSEC), then its DATE and OFFSET added */
static inline unsigned long long shown_ts(const struct nop_decoder *d, unsigned long long ts)
{
	if (d->tsc_mult)
		ts = (unsigned long long)(((unsigned __int128)ts * d->tsc_mult) >> d->tsc_shift);
	return ts + (unsigned long long)d->ts_offset;
}

#define TS_MSB (0xf8ULL << 56) /* absolute time stamps lack the top 5 bits */

/* Walk one page's records ourselves, with the arithmetic of the kernel
 * (and of libtraceevent's kbuffer, which this replaced: its per-record calls
 * were a tenth of a report, and a damaged padding length read as a
 * negative int sent it back to an earlier record for ever, found by
 * fuzz_decode). Every step must move forward and stay on the page;
 * a page that breaks either ends there and is reported damaged. */
NOP_HOT static int walk_page(struct nop_decoder *d, int cpu, void *page, nop_emit_fn emit, void *ctx,
		     struct nop_event *counts, struct nop_addrset *syms)
{
	const char *pg = page, *end = pg + d->page_size;
	int lsz = d->kword, hdr = 8 + lsz, ret;
	bool big = tep_is_file_bigendian(d->tep);
	unsigned long long ts = rd8(d, pg), commit = rdlong(d, lsz, pg + 8);
	unsigned int size = (unsigned int)(commit & COMMIT_LEN), limit = (unsigned int)(d->page_size - hdr);
	const char *data = pg + hdr;
	long long missed = 0;

	/* header: timestamp, then commit (length in the low 27 bits, the
	 * "missed events" flags in bits 31 and 30); past the page is damage */
	if ((commit & 0x3fffffffULL) > limit)
		return -EINVAL;
	if (commit & (1ULL << 31)) {
		missed = -1; /* events were lost before this page; how many if stored */
		if ((commit & (1ULL << 30)) && size + (unsigned int)lsz <= limit)
			missed = (long long)rdlong(d, lsz, data + size);
	}
	for (unsigned int curr = 0; curr < size;) {
		uint32_t h;
		unsigned int tl, delta, p = curr + 4, next;
		int len = 0;

		if (curr + 8 > limit)
			return flush(d, emit, ctx) ? : -EINVAL; /* a header past the page */
		h = rd4(d, data + curr);
		tl = big ? h >> 27 : h & 31;
		delta = big ? h & ((1U << 27) - 1) : h >> 5;
		switch (tl) {
		case RB_PADDING:
			len = (int)rd4(d, data + p);
			ts += delta;
			break;
		case RB_TIME_EXTEND:
			ts += ((unsigned long long)rd4(d, data + p) << 27) + delta;
			p += 4;
			break;
		case RB_TIME_STAMP:
			ts = (((unsigned long long)rd4(d, data + p) << 27) + delta) | (ts & TS_MSB);
			p += 4;
			break;
		case 0:
			/* kbuffer: (int)(array[0] - 4) rounded up to 4; unsigned here (no overflow) */
			len = (int)((rd4(d, data + p) - 4 + 3) & ~3U);
			p += 4;
			/* fall through */
		default:
			if (tl)
				len = (int)tl * 4;
			ts += delta;
			break;
		}
		next = p + (unsigned int)len;
		if (next <= curr)
			return flush(d, emit, ctx) ? : -EINVAL; /* would go back: damaged */
		if (tl < RB_PADDING) {
			struct rec rec = { .data = data + p, .size = len, .cpu = cpu, .ts = shown_ts(d, ts) };

			if (missed) {
				struct nop_event lost = { .type = NOP_EV_LOST, .cpu = cpu, .ts = rec.ts,
							  .lost = missed > 0 ? missed : -1 };

				missed = 0;
				if ((ret = flush(d, emit, ctx)) || (ret = emit(ctx, &lost)))
					return ret;
			}
			if (len < 8 || (const char *)rec.data + len > end)
				return flush(d, emit, ctx) ? : -EINVAL; /* runs off the page */
			if (counts) {
				uint16_t type;

				memcpy(&type, rec.data, 2);
				type = d->native ? type : __builtin_bswap16(type);
				counts->nfunc += type == d->fn_id;
				counts->nexit += type == d->exit_id;
				counts->nkev += type < d->nkev_of && d->kev_of[type];
				if (type >= d->uev_base && type - d->uev_base < d->nuev &&
				    d->uev[type - d->uev_base].key) {
					/* a user function: a call is its return where
					 * returns are probed, else its entry */
					bool ret = d->uev[type - d->uev_base].ret;

					counts->nexit += ret;
					counts->nfunc += !ret && !d->uev_returns;
				}
				counts->ts = counts->ts ? counts->ts : ts;
				if (syms)
					note_addrs(d, &rec, end, type, syms);
			} else if ((ret = decode_record(d, &rec, end, emit, ctx))) {
				return ret;
			}
		}
		curr = next;
	}
	if (missed) {
		struct nop_event lost = { .type = NOP_EV_LOST, .cpu = cpu, .lost = missed > 0 ? missed : -1 };

		if ((ret = flush(d, emit, ctx)) || (ret = emit(ctx, &lost)))
			return ret;
	}
	return flush(d, emit, ctx);
}

int nop_decode_page(struct nop_decoder *d, int cpu, void *page, nop_emit_fn emit, void *ctx)
{
	return walk_page(d, cpu, page, emit, ctx, NULL, NULL);
}

int nop_page_events(struct nop_decoder *d, int cpu, void *page, bool count, struct nop_addrset *syms,
		    nop_emit_fn emit, void *ctx)
{
	int ret = count ? nop_count_page(d, cpu, page, syms, emit, ctx) : nop_decode_page(d, cpu, page, emit, ctx);

	if (ret == -EINVAL) {
		struct nop_event lost = { .type = NOP_EV_LOST, .cpu = cpu, .lost = -1 };

		ret = emit(ctx, &lost);
	}
	return ret;
}

int nop_count_page(struct nop_decoder *d, int cpu, void *page, struct nop_addrset *syms, nop_emit_fn emit,
		   void *ctx)
{
	struct nop_event c = { .type = NOP_EV_COUNTS, .cpu = cpu };
	int ret = walk_page(d, cpu, page, emit, ctx, &c, syms);

	if (ret && ret != -EINVAL)
		return ret;
	if (c.nfunc || c.nexit || c.nkev) {
		int r2 = emit(ctx, &c);

		if (r2)
			return r2;
	}
	return ret;
}

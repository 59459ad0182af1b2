/* decoder.h - the decoder's state, shared by the files that build it
 * (decoder.c: event formats, fields) and use it (decode.c: pages). */
#ifndef NOPCTL_DECODER_H
#define NOPCTL_DECODER_H

#include <traceevent/event-parse.h>

#include "events/events.h"

struct nop_decoder {
	struct tep_handle *tep;
	int page_size;
	int kword; /* the kernel's word: the page header's commit field (a
		    * recording's user-space word may differ) */
	int fn_id, stack_id, ustack_id;
	struct tep_format_field *us_caller; /* user_stack's caller[8] */
	struct tep_format_field *fn_ip, *fn_parent;
	struct tep_format_field *st_size, *st_caller;
	int ent_id, exit_id;
	struct tep_format_field *ent_func, *ent_depth;
	struct tep_format_field *ex_func, *ex_depth, *ex_call, *ex_ret, *ex_retval;
	unsigned long long stackbuf[256];
	struct nop_event pend;
	bool have_pend;
	bool native;  /* the data's byte order is ours: fields are read in place */
	/* the bytes a return takes off the stack where the events were
	 * recorded (this machine's, or the trace.dat's: nop_arch_ret_pops) */
	unsigned char ret_pops;
	struct tep_format_field *c_type, *c_pid;
	/* a trace.dat's time stamp corrections (nop_dat_in) */
	unsigned int tsc_mult, tsc_shift;
	long long ts_offset;
	/* funcgraph entry/exit in our byte order with the usual field sizes:
	 * read at fixed offsets once the record is long enough */
	bool fast;
	int need_ent, need_exit; /* record sizes that hold them */
	/* common_type in our byte order, 2 bytes: read in place from records
	 * this long (0: through num or libtraceevent) */
	int need_type;
	/* a traced task forked (task_newtask: the child's pid, its clone
	 * flags) or exec'd (sched_process_exec); -1: not decoded */
	int fork_id, exec_id, rename_id;
	/* sched_switch (off-CPU time): -1 where the formats lack it */
	int switch_id;
	const struct tep_format_field *sw_prev, *sw_state, *sw_next;
	const struct tep_format_field *fk_child, *fk_flags, *fk_comm, *ex_file, *rn_pid, *rn_comm;
	/* nop_decoder_names: each task name a record gives to names(names_ctx):
	 * a switch's two, a process event's, a "nopctl-tasks" marker's
	 * (ftrace's print, print_id; -1 unless asked) */
	void (*names)(void *ctx, int pid, const char *comm, unsigned long long ts);
	void *names_ctx;
	int print_id;
	const struct tep_format_field *sw_pcomm, *sw_ncomm, *pr_buf;
	char comm[16]; /* a FORK's or EXEC's task name (the event's args) */
	/* probe events (uprobes): by id - uev_base, the key of the function
	 * (0: not one) and whether it is a return */
	struct nop_uev {
		unsigned long long key;
		bool ret;
		const struct tep_format_field *ip, *caller; /* entries: __probe_ip, caller */
		const struct tep_format_field *sp; /* both: the stack pointer */
		/* added to an exit's stack pointer to make it its call's
		 * entry's + 8, what ucalls.c pairs by on every machine: 8 for
		 * a probe on the ret (the stack as at the entry), 8 less
		 * ret_pops for a uretprobe's (after the return) */
		unsigned char sp_add;
		bool leaf; /* an entry probe on a ret: the call's exit too */
		unsigned long long site; /* the probe's index in nop_uprobes plus 1 */
		bool uargs; /* --args: the entry fetched its parameters (kev: its format) */
		/* a shared event: the probe that fired, by the index it
		 * fetches (id), in the decoder's uid */
		const struct tep_format_field *idf;
		/* --retval: an exit's return register, and its type (NOP_RV_*; a shared
		 * event's are each probe's, in map) */
		const struct tep_format_field *rvf;
		unsigned char rv;
		/* a kernel function's probe (--retval, --args): its kind, the
		 * function's address (__probe_func, __probe_ip), the return
		 * value and address (__probe_ret_ip); arguments are every field
		 * after __probe_ip */
		enum nop_probe_kind kind;
		const struct tep_format_field *kfn, *kret, *kretip;
		struct tep_event *kev;
		/* a user function's entry or exit of one probe (no id, no
		 * --args, not a leaf, returns probed), in our byte order with
		 * 8-byte fields: read at fixed offsets (decode.c) by records
		 * of at least need bytes */
		bool fast;
		int need;
	} *uev;
	/* the caller's array of events (nop_decoder_append_to), or NULL:
	 * funcgraph entries and exits are decoded straight into it */
	struct nop_event **arr;
	size_t *narr, *caparr;
	char *argsbuf; /* the last ARGS event's text and JSON */
	size_t argscap;
	int uev_base, nuev;
	/* every probe's key and return value type, by its index (shared
	 * events' records carry it) */
	struct nop_uid { unsigned long long key; unsigned char rv; bool shared; } *uid;
	size_t nuid;
	bool uev_returns; /* some are returns */
	/* kernel events shown beside the calls: kev_of[id] is the index in
	 * kev + 1 (0, or an id past nkev_of: not one); about: the field
	 * naming the other task an event concerns (a switch's next, a
	 * wakeup's woken task) */
	struct nop_kev {
		struct tep_event *ev; /* NULL until its first record (fmt) */
		char name[200]; /* "system:event" */
		const struct tep_format_field *about;
		/* a recorded format not parsed yet (the nop_dat_in's text): a
		 * trace.dat can hold every event's format, most of them never
		 * seen in its pages (nop_decoder_kev_parse) */
		const char *fmt;
		size_t fmtlen;
		char system[64];
	} *kev;
	size_t nkev, capkev;
	unsigned int *kev_of;
	size_t nkev_of;
	char *kevbuf; /* the last event's fields as text and JSON */
	size_t kevcap;
};

/* a kernel event's format parsed at its first record: 0, or -1 if
 * libtraceevent refuses it (its records are then left out) */
int nop_decoder_kev_parse(struct nop_decoder *d, struct nop_kev *k);

#endif

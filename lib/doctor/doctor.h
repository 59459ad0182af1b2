/* doctor/doctor.h - the doctor area of libnopctl: /proc/kcore for
 * inspect, and the state of one doctor run (doctor*.c). */
#ifndef NOPCTL_DOCTOR_H
#define NOPCTL_DOCTOR_H

#include "blackbox/blackbox.h"

/* Read kernel memory through /proc/kcore (ELF): 0, or -1 with err. */
int nop_kcore_read(unsigned long long addr, void *buf, size_t len, struct nop_error *err);

extern const char *nop_kcore_path; /* /proc/kcore; tests point it elsewhere */

struct doc {
	nop_finding_fn fn;
	void *ctx;
	const char *tdir;
	const char *mounted_here; /* tracefs was mounted here by this run: unmount it */
	char tracers[256]; /* top-level available_tracers */
	struct nop_funcs funcs;
	bool have_funcs;
	char probe[NOP_NAME_MAX]; /* the function the tracers are tried on */
	int tried[2];		  /* per tracer: 0 untried, 1 instance, 2 top level */
};

void doc_say(struct doc *d, const char *id, const char *subject, enum nop_check st,
	     const char *fix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
char *doc_read(struct doc *d, const char *rel, struct nop_error *e);
void doc_check_users(struct doc *d);
void doc_check_lost(struct doc *d);
void doc_check_pattern(struct doc *d, const char *pat);
/* doctor_user.c: uprobes tried, the probes defined, a BINARY:GLOB */
void doc_check_uprobes(struct doc *d);
void doc_check_upattern(struct doc *d, const char *pat);

#endif

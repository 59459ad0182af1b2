/* blackbox/blackbox.h - the blackbox area of libnopctl: the persistent
 * instance (trace_instance=NAME@RESERVE, 6.12 and later), whose buffer
 * lives in memory a warm reboot keeps: found and judged (blackbox.c),
 * armed and disarmed journaled (arm.c), the previous boot's events saved
 * as a trace.dat named and symbolized as that boot had them
 * (lastboot.c), where each CPU and task stopped (ends.c). Its header
 * includes the one of the area before it (lib/README.md: the order). */
#ifndef NOPCTL_AREA_BLACKBOX_H
#define NOPCTL_AREA_BLACKBOX_H

#include "diff/diff.h"

/* files nopctl keeps of an instance NAME, in nop_journal_dir(): the
 * journal of its arming ("blackbox-NAME.journal": no pid's, so no cleanup
 * replays it), who armed it and how (".info"), the previous boot's
 * events saved this boot (".last-boot.dat") */
void nop_bbox_file(char *buf, size_t len, const char *name, const char *suffix);

/* the previous boot's kernel text address minus this boot's, from
 * last_boot_info (6.12: "text delta:\t%ld" is this boot's minus the
 * previous one's; 6.15 and later: the previous boot's _text and each
 * module's address, "ADDR\t[kernel]" and "ADDR\tNAME" lines, "# Current"
 * once tracing began this boot), and the modules' */
struct bbox_mod {
	unsigned long long prev; /* where it was loaded in the previous boot */
	char name[64];
};
struct bbox_boot {
	bool known;		/* the kernel's delta could be read */
	long long delta;	/* add to a previous boot's address for this boot's */
	struct bbox_mod *mods;	/* sorted by address */
	size_t nmods;
};
/* 0, or -1 (no previous boot's information: "# Current", unreadable) */
int bbox_boot_read(const char *inst_dir, struct bbox_boot *bt);
void bbox_boot_free(struct bbox_boot *bt);

#endif

/* tracefs/tracefs.h - the tracefs area of libnopctl: finding tracefs and
 * what it offers: mounts, lockdown, available_filter_functions and its
 * cache, buffer counters. Its header includes the one of the area before
 * it (lib/README.md: the order): a file sees its own area and those below,
 * never one above. */
#ifndef NOPCTL_AREA_TRACEFS_H
#define NOPCTL_AREA_TRACEFS_H

#include "arch/arch.h"

/* the longest event filter nopctl writes (nop_event_filter_check) */
#define NOP_EVENT_FILTER_MAX 1024

int nop_cpu_stats_read(const char *buffer_dir, int cpu, struct nop_cpu_stats *st,
		       struct nop_error *err);

int nop_funcs_parse(const char *text, struct nop_funcs *f, struct nop_error *err);

/* a CPU's buffer size in KB as tracing uses it ("7 (expanded: 1408)", a
 * boot's placeholder before its first tracing: 1408); -1 if unreadable */
long long nop_cpu_buffer_kb(const char *buffer_dir, int cpu);

extern const char *nop_kallsyms_path; /* /proc/kallsyms; tests point it elsewhere */

/* available_filter_functions kept per boot and module set (funcs_cache.c) */
char *nop_funcs_cache_read(const char *tracing_dir);

void nop_funcs_cache_write(const char *tracing_dir, const char *text);

/* the same for other kinds ("ksyms"): mapped read-only (munmap it), and
 * written from pieces (root only) */
struct iovec;

void *nop_boot_cache_map(const char *kind, size_t *len);

void nop_boot_cache_write(const char *kind, const struct iovec *iov, int n);

/* /proc/self/mounts: is fstype mounted, and where (dir may be NULL);
 * /proc/filesystems: does this kernel offer it (mounts.c) */
bool nop_mounted(const char *fstype, char *dir, size_t len);

bool nop_fs_supported(const char *fstype);

/* The kernel's lockdown mode (nop_lockdown_mode) and where it was read
 * (lockdown.c) */
struct nop_lockdown {
	char mode[32]; /* as nop_lockdown_mode() */
	char how[160];
};

const struct nop_lockdown *nop_lockdown(void);

/* a system's or event's name as available_events has them: nothing
 * that would take a path elsewhere */
bool nop_event_name_ok(const char *name);

/* why the kernel refused the filter last written to the event's filter
 * file at filter_path ("Field not found"), "" if it does not say */
void nop_event_filter_error(const char *filter_path, char *buf, size_t len);

int nop_levenshtein(const char *a, const char *b, int limit);

#endif

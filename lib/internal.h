/* internal.h - private declarations shared by the files of libnopctl. */
#ifndef NOPCTL_INTERNAL_H
#define NOPCTL_INTERNAL_H

#include "nopctl.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* v in decimal, at least zeros digits, '-' in front if neg, written
 * backwards to end at d + NOP_DEC_MAX; returns its first character
 * (printf per number was most of a report's cost) */
#define NOP_DEC_MAX 24
static inline char *nop_dec(char *d, unsigned long long v, bool neg, int zeros)
{
	char *p = d + NOP_DEC_MAX;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v || d + NOP_DEC_MAX - p < zeros);
	if (neg)
		*--p = '-';
	return p;
}

/* A page that the ring buffer's writer had finished (see stream.c). */
struct nop_decoder;
bool nop_page_filled(const struct nop_decoder *d, const void *page);

/* Grow *v (of element size sz) so that it holds at least need elements. */
int nop_grow(void **v, size_t *cap, size_t need, size_t sz);

/* path = dir "/" rel, NULL on overflow */
char *nop_path(char *buf, size_t len, const char *dir, const char *rel);

/* The tracefs error message for a failed open/read/write of a file. */
void nop_error_io(struct nop_error *err, const char *what, const char *path, int e);

/* Journal of prior values (journal.c) */
struct nop_journal;
int nop_journal_open(struct nop_journal **j, const char *tracing_dir, struct nop_error *err);
int nop_journal_instance(struct nop_journal *j, const char *name, struct nop_error *err);
int nop_journal_file(struct nop_journal *j, const char *rel, const char *prior,
		     struct nop_error *err);
/* Restore everything the journal names and delete it. */
int nop_journal_finish(struct nop_journal *j, struct nop_error *err);
/* instances (may be NULL) counts the instances it removed */
int nop_journal_replay(const char *path, int *instances, struct nop_error *err);

/* Put back one tracefs file's prior value as read from it (restore.c). */
int nop_restore_file(const char *tracing_dir, const char *rel, const char *prior,
		     struct nop_error *err);
int nop_instance_remove(const char *tracing_dir, const char *name, struct nop_error *err);

/* A string-keyed map of fixed-size zeroed values, in insertion order. */
struct nop_strmap;
struct nop_strmap *nop_strmap_new(size_t valsize);
void *nop_strmap_get(struct nop_strmap *m, const char *key); /* created if absent; NULL: ENOMEM */
size_t nop_strmap_size(const struct nop_strmap *m);
void *nop_strmap_at(const struct nop_strmap *m, size_t i, const char **key);
void nop_strmap_free(struct nop_strmap *m);

/* sinks (sink_*.c) */
extern const struct nop_sink_ops nop_lines_ops, nop_folded_ops, nop_dot_ops, nop_chrome_ops;
int nop_sink_priv(struct nop_sink *s, size_t size, struct nop_error *err);
int nop_graph_lines(struct nop_sink *s, const struct nop_gitem *gi);
void nop_fmt_duration(char *buf, size_t len, unsigned long long ns);
void nop_sink_sym(struct nop_sink *s, unsigned long long addr, char *buf, size_t len, bool off);
int nop_lines_summary(struct nop_sink *s, const struct nop_summary *sum);
int nop_summary_to_diag(struct nop_sink *s, const struct nop_summary *sum);

extern const char *nop_kcore_path; /* /proc/kcore; tests point it elsewhere */
int nop_ksym_at(unsigned long long addr, char *name, size_t len, unsigned long long *off);

/* available_filter_functions kept per boot and module set (funcs_cache.c) */
char *nop_funcs_cache_read(const char *tracing_dir);
void nop_funcs_cache_write(const char *tracing_dir, const char *text);
/* the same for other kinds ("ksyms"): mapped read-only (munmap it), and
 * written from pieces (root only) */
struct iovec;
void *nop_boot_cache_map(const char *kind, size_t *len);
void nop_boot_cache_write(const char *kind, const struct iovec *iov, int n);
int nop_journal_dir_make(struct nop_error *err); /* the journal directory, created if absent */

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

int nop_levenshtein(const char *a, const char *b, int limit);

/* a plain trace.dat's sections and where each CPU's pages lie
 * (tracedat_read.c, nop_dat_in_open) */
struct nop_dat_cpu {
	int cpu;
	unsigned long long off, size;
};
struct nop_dat_blob {
	char *p; /* NUL-terminated */
	size_t len;
};
struct nop_dat_in {
	char path[4096];
	int page_size, n, nfmt;
	struct nop_dat_cpu *cpu;
	struct nop_dat_blob header_page, fmt[8], kallsyms, cmdlines;
};

#endif

/* base/base.h - the base area of libnopctl: no kernel knowledge: arrays,
 * paths, errors, whole files, string maps, CPU lists, decimal and JSON
 * output. Its header includes the one of the area before it
 * (lib/README.md: the order): a file sees its own area and those below,
 * never one above. */
#ifndef NOPCTL_AREA_BASE_H
#define NOPCTL_AREA_BASE_H

#include <string.h>

#include "nopctl.h"

/* the whole file, NUL-terminated (*len its size if len), malloc'd: the
 * caller frees; NULL with err */
char *nop_read_file(const char *path, size_t *len, struct nop_error *err);
/* strip white space at both ends, in place */
char *nop_trim(char *s);
/* A trimmed line of a list file (set_ftrace_filter, set_ftrace_pid...) that
 * is an entry: not blank, not a "#..." comment, not "no pid". */
bool nop_list_entry(const char *line);

/* set NULL: every one of ncpus CPUs */
void nop_cpuset_mask(const struct nop_cpuset *set, int ncpus, char *buf, size_t len);

void nop_field_array_close(struct nop_fields *f);

void nop_field_array_open(struct nop_fields *f, const char *key);

void nop_field_item_str(struct nop_fields *f, const char *fmt, const char *v);


/* JSON only: a string already quoted (nop_json_quote), len bytes */
void nop_field_quoted(struct nop_fields *f, const char *key, const char *q, size_t len);

void nop_field_ts(struct nop_fields *f, const char *key, unsigned long long ns);

/* JSON built on at buf + len (cap bytes in all): close leaves the line
 * there and f->len says where it ends; a full buffer is written to out
 * whole, so what was in it keeps its order */
void nop_fields_open_at(struct nop_fields *f, FILE *out, char *buf, size_t len, size_t cap);

int nop_journal_dir_check(struct nop_error *err);

/* s quoted and escaped into buf: its length, 0 if it does not fit */
size_t nop_json_quote(char *buf, size_t cap, const char *s);

/* a list file's text holds no entry ("#### no functions ...", "no pid") */
bool nop_list_empty(const char *text);

/* one of its lines is exactly entry */
bool nop_list_has(const char *text, const char *entry);

/* it holds one of the entries of another list's text */
bool nop_list_shares(const char *text, const char *entries);

int nop_write_file(const char *path, const char *val, bool append, struct nop_error *err);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Strings nopctl did not write (task names, symbols, event fields, names
 * read from files), escaped by one rule per format (escape.c). Clean: a
 * printable ASCII byte, or a valid UTF-8 character (RFC 3629) other than
 * a C1 control (U+0080-U+009F); every other byte (C0, DEL, C1 raw or as
 * UTF-8, a byte of no valid UTF-8) is escaped: text \xNN of each byte,
 * JSON \n \t \r or \u00XX (a C1 control its code point, a stray byte the
 * code point of its value). NOP_ESC_QUOTED (JSON implies it): '"' and '\'
 * as \" and \\ too. */
enum { NOP_ESC_TEXT = 0, NOP_ESC_QUOTED = 1, NOP_ESC_JSON = 3 };

/* the most an escape is (\xc2\x9b), and the most a byte grows (\xNN) */
#define NOP_ESC_UNIT_MAX 8
#define NOP_ESC_GROWTH 4

typedef void nop_put_fn(void *ctx, const char *p, size_t n);

/* of s (n bytes at most, to its NUL), the bytes that need no escape */
size_t nop_esc_clean(const char *s, size_t n, unsigned how);

/* s (n bytes at most, to its NUL) escaped as how says, through put: a
 * clean run at a time, or one escape */
void nop_escape(const char *s, size_t n, unsigned how, nop_put_fn *put, void *ctx);

/* s holds nothing text escapes */
bool nop_text_clean(const char *s);
/* s as text shows it in buf (cap bytes with its NUL, cut before an escape
 * or a character that does not fit): buf */
char *nop_text_escape(char *buf, size_t cap, const char *s);
/* the same, allocated (the caller frees); NULL: out of memory */
char *nop_text_dup(const char *s);
/* s as text shows it: s itself when clean, else a copy in *freeme (the
 * caller frees it; "?" when out of memory) */
const char *nop_text_shown(const char *s, char **freeme);

/* v in decimal, at least zeros (<= 20) digits, '-' in front if neg:
 * nop_dec_len says how many characters, nop_dec_put writes them where
 * they go, backwards from end, two digits a step, with no scratch buffer
 * to copy out of. NOP_DEC_MAX: the most either gives. */
#define NOP_DEC_MAX 24

extern const char nop_dec_pairs[201];

extern const unsigned long long nop_pow10[20];

static inline size_t nop_dec_len(unsigned long long v, bool neg, int zeros)
{
	unsigned long long u = v | 1; /* as many digits as v; 0 has one */
	size_t t = (size_t)((64 - __builtin_clzll(u)) * 1233 >> 12); /* log10(2) in 12 bits */
	size_t n = t + (u >= nop_pow10[t]);

	return (n < (size_t)zeros ? (size_t)zeros : n) + neg;
}

static inline void nop_dec_put(char *end, unsigned long long v, bool neg, int zeros)
{
	char *p = end;

	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, nop_dec_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, nop_dec_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	while (end - p < zeros)
		*--p = '0';
	if (neg)
		*--p = '-';
}

/* What every event of a report runs through (decoding, merging, the call
 * engine, the sinks' call paths): kept together in .text.hot, a few
 * pages, so that its speed does not move with where unrelated code lands
 * (under QEMU TCG a jump to another guest page is looked up, not
 * chained). */
#define NOP_HOT __attribute__((hot))

/* a negative errno: -4095..-1, the kernel's IS_ERR_VALUE range */
static inline bool nop_is_errno(long long v)
{
	return v < 0 && v >= -4095;
}

/* -2: "ENOENT"; NULL for a value that is no errno the C library names */
const char *nop_errno_name(long long v);
/* a function's return value as an errno's name where it is one: a kernel
 * function's; a user function's value is its program's own (-1 is no
 * EPERM there): NULL, shown as the number it is */
const char *nop_retval_errno(long long v, bool user);

void nop_journal_set_dir(const char *dir); /* tests */

/* size zeroed bytes, or NULL with "out of memory" in err */
void *nop_zalloc(size_t size, struct nop_error *err);

/* Grow *v (of element size sz) so that it holds at least need elements. */
int nop_grow(void **v, size_t *cap, size_t need, size_t sz);

/* Per-task state kept in a vector of structs of size sz that each start
 * with their task's int pid: pid's, or a new zeroed one (*added) at the
 * end; *last remembers where the last one was (most events are the same
 * task's as the one before). NULL: out of memory. */
void *nop_task_slot(void **v, size_t *n, size_t *cap, size_t sz, int pid, size_t *last, bool *added);

/* path = dir "/" rel, NULL on overflow */
char *nop_path(char *buf, size_t len, const char *dir, const char *rel);

/* does dir/rel exist (a tracefs file, an option the kernel has)? */
bool nop_path_exists(const char *dir, const char *rel);

/* The tracefs error message for a failed open/read/write of a file. */
void nop_error_io(struct nop_error *err, const char *what, const char *path, int e);

/* the CPUs online now (read afresh; nop_online_cpus keeps the first
 * reading); 0, or -1 if unknown */
int nop_cpuset_online(struct nop_cpuset *set);

/* what a failed write's errno means beyond strerror ("" if nothing) */
const char *nop_write_hint(int e);

/* hex text to its bytes in place; -1 on odd length or a non-hex digit */
int nop_unhex(char *s);

/* s as hex text, two digits a byte (malloc'd; NULL: out of memory) */
char *nop_hex(const char *s);

/* FNV-1a of s (NULL: none) continued from h */
unsigned long long nop_fnv(unsigned long long h, const char *s);

/* the loaded modules, each one's name and address (/proc/modules; its use
 * counts left out: they change while the symbols do not), hashed; 0 when
 * it cannot be read */
unsigned long long nop_modules_hash(void);

/* A set of nonzero 64-bit values (addrset.c): the kernel addresses a
 * recording's events name, the pids a traced task forked. Zero-initialised
 * empty; an open-addressing table (v: cap slots, 0 the empty one). */
struct nop_addrset {
	unsigned long long *v;
	size_t n, cap;
	bool failed; /* a value was not kept (out of memory) */
};

/* 0 (0 itself is never kept), or -1 (out of memory: failed set) */
int nop_addrset_add(struct nop_addrset *s, unsigned long long a);

bool nop_addrset_has(const struct nop_addrset *s, unsigned long long a);

void nop_addrset_free(struct nop_addrset *s);

/* A string-keyed map of fixed-size zeroed values, in insertion order. */
struct nop_strmap;

struct nop_strmap *nop_strmap_new(size_t valsize);

void *nop_strmap_get(struct nop_strmap *m, const char *key); /* created if absent; NULL: ENOMEM */

void *nop_strmap_find(const struct nop_strmap *m, const char *key); /* NULL if absent */

size_t nop_strmap_size(const struct nop_strmap *m);

void *nop_strmap_at(const struct nop_strmap *m, size_t i, const char **key);

void nop_strmap_free(struct nop_strmap *m);

int nop_journal_dir_make(struct nop_error *err); /* the journal directory, created if absent */


/* a return value's type: its size in bytes, NOP_RV_SIGNED, NOP_RV_POINTER;
 * NOP_RV_VOID; 0: not known (from DWARF or BTF, for probes and decoding) */
#define NOP_RV_SIGNED 0x10
#define NOP_RV_POINTER 0x20
#define NOP_RV_VOID 0x80

/* all n bytes written (short writes continued, EINTR retried): 0, or -1
 * with the errno of the write that failed */
int nop_write_all(int fd, const void *buf, size_t n);

#endif

/* ksyms.c - /proc/kallsyms by name: where a function is, and the
 * compiler's clones of it (name.isra.0, name.constprop.0, name.part.0,
 * name.cold) that ftrace lists under their own names; and kallsyms' line
 * format, which the resolver reads too. */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

/* hex digit values, -1 for anything else */
static signed char hexval[256];

static void hex_init(void)
{
	for (int c = 0; c < 256; c++)
		hexval[c] = (signed char)(c >= '0' && c <= '9' ? c - '0'
					  : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1);
}

/* 8 hex digits (ASCII, the first the most significant) as a number, all
 * 8 at once; -1 if any is not a hex digit */
static inline __attribute__((always_inline)) long long hex8(const char *s)
{
	const uint64_t L = 0x0101010101010101ULL, H = 0x8080808080808080ULL;
	uint64_t x, y, digit, letter, v;

	memcpy(&x, s, 8);
	x = le64toh(x);
	if (x & H)
		return -1;
	/* a byte's top bit, set where the byte is at least c (bytes < 0x80) */
#define GE(w, c) ((((w) | H) - (c) * L) & H)
	y = x | 0x20 * L; /* 'A'-'F' as 'a'-'f' */
	digit = GE(x, 0x30) & ~GE(x, 0x3a);
	letter = GE(y, 0x61) & ~GE(y, 0x67);
#undef GE
	if ((digit | letter) != H)
		return -1;
	/* '0'-'9' are 0x3N, letters 0x4N/0x6N with N = value - 9 */
	v = (x & 0x0f * L) + ((x >> 6) & L) * 9;
	v = __builtin_bswap64(v); /* the first digit in the top byte */
	v = (v | v >> 4) & 0x00ff00ff00ff00ffULL;
	v = (v | v >> 8) & 0x0000ffff0000ffffULL;
	return (long long)((v | v >> 16) & 0xffffffffULL);
}

/* a byte of the 8 at s is c */
static inline bool has_byte(const char *s, unsigned char c)
{
	const uint64_t L = 0x0101010101010101ULL, H = 0x8080808080808080ULL;
	uint64_t x;

	memcpy(&x, s, 8);
	x ^= c * L;
	return ((x - L) & ~x & H) != 0;
}

bool nop_kallsyms_skip_other(const char **pp, const char *end)
{
	const char *p = *pp, *nl;

	/* 16 characters, neither space nor newline, then " T ": whether or
	 * not they are hex digits, nop_kallsyms_line takes T for the type or
	 * fails */
	if (end - p < 19 || p[16] != ' ' || p[18] != ' ' || nop_ksym_is_text(p[17]) ||
	    has_byte(p, ' ') || has_byte(p + 8, ' ') || has_byte(p, '\n') || has_byte(p + 8, '\n'))
		return false;
	nl = memchr(p + 17, '\n', (size_t)(end - p - 17)); /* (the type may be one) */
	*pp = nl ? nl + 1 : end;
	return true;
}

bool nop_kallsyms_line(const char **pp, const char *end, struct nop_kline *l)
{
	const char *p = *pp, *nl = memchr(p, '\n', (size_t)(end - p)), *tab, *digits = p;
	long long hi, lo;
	int v;

	if (!nl)
		nl = end;
	*pp = nl < end ? nl + 1 : end;
	l->addr = 0;
	/* a 64-bit kernel's 16 digits at once, 8 at a time */
	if (nl - p > 16 && p[16] == ' ' && (hi = hex8(p)) >= 0 && (lo = hex8(p + 8)) >= 0) {
		l->addr = (unsigned long long)hi << 32 | (unsigned long long)lo;
		p += 16;
	} else {
		if (hexval['x'] == 0)
			hex_init();
		while (p < nl && (v = hexval[(unsigned char)*p]) >= 0)
			l->addr = l->addr << 4 | (unsigned)v, p++;
	}
	if (p == digits || p + 3 > nl || *p != ' ' || p[2] != ' ')
		return false;
	l->type = p[1];
	l->name = p + 3;
	/* the name ends at the line's end or at the tab before [module] */
	tab = memchr(l->name, '\t', (size_t)(nl - l->name));
	l->nlen = (size_t)((tab ? tab : nl) - l->name);
	l->mod = "";
	l->mlen = 0;
	if (tab && tab + 2 < nl && tab[1] == '[' && nl[-1] == ']') {
		l->mod = tab + 2;
		l->mlen = (size_t)(nl - 1 - l->mod);
	}
	return true;
}

/* kallsyms whole, to be parsed by hand (parse_line), not line by line
 * through stdio. NULL and err set if it cannot be read. */
static char *kallsyms(size_t *len, struct nop_error *err)
{
	return nop_read_file(nop_kallsyms_path, len, err);
}

/* Is sym (len bytes) a clone of name: name followed by ".something"? */
static bool clone_of(const char *sym, size_t len, const char *name, size_t nlen)
{
	return len > nlen + 1 && !memcmp(sym, name, nlen) && sym[nlen] == '.';
}

int nop_ksym_lookup(const char *name, struct nop_ksym *out, struct nop_error *err)
{
	size_t nlen = strlen(name), len;
	char *text;
	const char *p, *end;
	struct nop_kline l;

	memset(out, 0, sizeof(*out));
	if (!(text = kallsyms(&len, err)))
		return -1;
	for (p = text, end = text + len; p < end;) {
		if (!nop_kallsyms_line(&p, end, &l) || !l.nlen || l.nlen > 511)
			continue;
		if (l.nlen == nlen && !memcmp(l.name, name, nlen) && !out->found) {
			out->found = true;
			out->addr = l.addr;
			out->type = l.type;
			snprintf(out->module, sizeof(out->module), "%.*s", (int)l.mlen, l.mod);
		} else if (clone_of(l.name, l.nlen, name, nlen) && out->nclones < NOP_KSYM_CLONES) {
			bool dup = false;

			for (int i = 0; i < out->nclones; i++)
				dup |= strlen(out->clones[i]) == l.nlen && !memcmp(out->clones[i], l.name, l.nlen);
			if (!dup)
				snprintf(out->clones[out->nclones++], sizeof(out->clones[0]), "%.*s",
					 (int)(l.nlen < 127 ? l.nlen : 127), l.name);
		}
	}
	free(text);
	return 0;
}

/* The text symbol at or below addr (within 1 MB), module symbols and
 * ftrace's own trampolines ("[__builtin__ftrace]") included. */
int nop_ksym_at(unsigned long long addr, char *name, size_t len, unsigned long long *off)
{
	size_t tlen;
	char *text = kallsyms(&tlen, NULL);
	unsigned long long best = 0;
	const char *p, *end;
	struct nop_kline l;

	*name = 0;
	for (p = text, end = text ? text + tlen : NULL; p && p < end;)
		if (nop_kallsyms_line(&p, end, &l) && l.nlen && l.nlen <= 511 && l.addr <= addr &&
		    l.addr >= best && addr - l.addr < (1ULL << 20) && nop_ksym_is_text(l.type)) {
			best = l.addr;
			snprintf(name, len, "%.*s", (int)l.nlen, l.name);
		}
	free(text);
	*off = addr - best;
	return *name ? 0 : -1;
}

/* escape.c - strings nopctl did not write (task names, symbols, event
 * fields, names read from files) made safe to show, one escaping per
 * format: text keeps what a terminal shows as characters and writes every
 * other byte as \xNN; JSON keeps UTF-8 and writes the rest as \u00XX. */
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"

/* the length of the valid UTF-8 character at p (at most n bytes, n >= 1,
 * p[0] >= 0x80) other than a C1 control (U+0080-U+009F): 2-4, or 0.
 * Valid is RFC 3629's: no overlong form, no surrogate, nothing past
 * U+10FFFF; a NUL is no continuation byte, so a string's end cuts it. */
static size_t utf8_shown(const unsigned char *p, size_t n)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, lo = c == 0xc2 ? 0xa0 : 0x80; /* C2 80-9F: C1 */
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

size_t nop_esc_clean(const char *s, size_t n, unsigned how)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n && p[i]) {
		unsigned char c = p[i];
		size_t k;

		if (c >= 0x20 && c < 0x7f) {
			if ((how & NOP_ESC_QUOTED) && (c == '"' || c == '\\'))
				break;
			i++;
		} else if (c >= 0x80 && (k = utf8_shown(p + i, n - i))) {
			i += k;
		} else {
			break;
		}
	}
	return i;
}

/* the escape of what starts at p (not clean, not a NUL) in esc: its
 * length; *used: the bytes of p it stands for */
static size_t esc_unit(const unsigned char *p, size_t n, unsigned how, char *esc, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	bool json = (how & NOP_ESC_JSON) == NOP_ESC_JSON;
	unsigned char c = p[0];
	size_t len = 0;

	*used = 1;
	if (c == '"' || c == '\\') {
		esc[0] = '\\';
		esc[1] = (char)c;
		return 2;
	}
	if (json && (c == '\n' || c == '\t' || c == '\r')) {
		esc[0] = '\\';
		esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		return 2;
	}
	if (c == 0xc2 && n >= 2 && p[1] >= 0x80 && p[1] <= 0x9f) {
		/* a C1 control as UTF-8: JSON its code point, which is the
		 * second byte's value; text both bytes */
		*used = 2;
		if (!json) {
			memcpy(esc, "\\xc2", 4);
			len = 4;
		}
		c = p[1];
	}
	/* a control byte, or a byte of no valid UTF-8 (JSON: the code point
	 * of its value, as Latin-1 would read it) */
	memcpy(esc + len, json ? "\\u00" : "\\x", json ? 4 : 2);
	len += json ? 4 : 2;
	esc[len++] = hex[c >> 4];
	esc[len++] = hex[c & 15];
	return len;
}

void nop_escape(const char *s, size_t n, unsigned how, nop_put_fn *put, void *ctx)
{
	const unsigned char *p = (const unsigned char *)s;

	for (;;) {
		size_t k = nop_esc_clean((const char *)p, n, how), used;
		char esc[NOP_ESC_UNIT_MAX];

		if (k)
			put(ctx, (const char *)p, k);
		p += k;
		n -= k;
		if (!n || !*p)
			return;
		k = esc_unit(p, n, how, esc, &used);
		/* a unit is at most NOP_ESC_UNIT_MAX bytes: said to the
		 * compiler, which cannot see it through put */
		if (k > sizeof(esc))
			__builtin_unreachable();
		put(ctx, esc, k);
		p += used;
		n -= used;
	}
}

struct dst {
	char *p;
	size_t len, cap; /* cap: room left for a NUL after len */
	bool full;
};

/* whole escapes only; of a clean run, whole characters only */
static void dst_put(void *ctx, const char *s, size_t n)
{
	struct dst *d = ctx;

	if (d->full)
		return;
	if (d->len + n > d->cap) {
		size_t room = d->cap - d->len;

		d->full = true;
		if (s[0] == '\\')
			return; /* an escape */
		while (room && ((unsigned char)s[room] & 0xc0) == 0x80)
			room--; /* inside a character: back to its first byte */
		n = room;
	}
	memcpy(d->p + d->len, s, n);
	d->len += n;
}

bool nop_text_clean(const char *s)
{
	return !s[nop_esc_clean(s, SIZE_MAX, 0)];
}

char *nop_text_escape(char *buf, size_t cap, const char *s)
{
	struct dst d = { .p = buf, .cap = cap ? cap - 1 : 0 };

	if (!cap)
		return buf;
	nop_escape(s, SIZE_MAX, 0, dst_put, &d);
	buf[d.len] = 0;
	return buf;
}

char *nop_text_dup(const char *s)
{
	size_t cap = strlen(s) * NOP_ESC_GROWTH + 1;
	char *e = malloc(cap);

	return e ? nop_text_escape(e, cap, s) : NULL;
}

const char *nop_text_shown(const char *s, char **freeme)
{
	*freeme = NULL;
	if (nop_text_clean(s))
		return s;
	*freeme = nop_text_dup(s);
	return *freeme ? *freeme : "?";
}

static void file_put(void *ctx, const char *s, size_t n)
{
	fwrite_unlocked(s, 1, n, ctx);
}

void nop_text_put(FILE *out, const char *s)
{
	nop_escape(s, SIZE_MAX, 0, file_put, out);
}

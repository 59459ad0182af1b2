/* fields.c - one print call per field, for text and JSON alike
 * (iproute2's print_uint(PRINT_ANY, key, fmt, v)): in JSON mode the key
 * and value, in text mode the value through the text format, or nothing
 * when the text format is NULL. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* JSON lines are most of what a report writes: a line is built
 * in the fields' buffer (plain runs copied whole, numbers converted here)
 * and written with one fwrite when it is closed. */
static void flush_buf(struct nop_fields *f)
{
	if (f->len)
		fwrite_unlocked(f->buf, 1, f->len, f->out);
	f->len = 0;
}

static void jput(struct nop_fields *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		flush_buf(f);
		if (n > f->cap) {
			fwrite_unlocked(p, 1, n, f->out);
			return;
		}
	}
	if (n <= 16) { /* numbers, short names: cheaper than memcpy's call */
		const char *s = p;

		for (size_t i = 0; i < n; i++)
			f->buf[f->len + i] = s[i];
	} else {
		memcpy(f->buf + f->len, p, n);
	}
	f->len += n;
}

static void jc(struct nop_fields *f, char c)
{
	if (f->len == f->cap)
		flush_buf(f);
	f->buf[f->len++] = c;
}

static void put_u64(struct nop_fields *f, unsigned long long v, bool neg)
{
	size_t n = nop_dec_len(v, neg, 0);

	if (f->len + n > f->cap)
		flush_buf(f);
	nop_dec_put(f->buf + f->len + n, v, neg, 0);
	f->len += n;
}

static void put_i64(struct nop_fields *f, long long v)
{
	put_u64(f, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0);
}

static void jput_to(void *f, const char *p, size_t n)
{
	jput(f, p, n);
}

static void jstr(struct nop_fields *f, const char *s)
{
	jc(f, '"');
	nop_escape(s, SIZE_MAX, NOP_ESC_JSON, jput_to, f);
	jc(f, '"');
}

void nop_json_str(FILE *out, const char *s)
{
	struct nop_fields f = { .out = out, .cap = sizeof(f.own) };

	f.buf = f.own;

	jstr(&f, s);
	flush_buf(&f);
}

size_t nop_json_quote(char *buf, size_t cap, const char *s)
{
	struct nop_fields q = { .out = NULL, .cap = sizeof(q.own) };

	q.buf = q.own;

	/* escaped, a byte is at most 6 (\u00XX): then jstr never flushes
	 * (no out) */
	if (strlen(s) > (sizeof(q.own) - 2) / 6)
		return 0;
	jstr(&q, s);
	if (q.len > cap)
		return 0;
	memcpy(buf, q.buf, q.len);
	return q.len;
}

void nop_fields_open(struct nop_fields *f, FILE *out, bool json)
{
	f->out = out;
	f->json = json;
	f->n = 0;
	f->len = 0;
	f->buf = f->own;
	f->cap = sizeof(f->own);
	f->keep = false;
	if (json)
		jc(f, '{');
}

void nop_fields_open_at(struct nop_fields *f, FILE *out, char *buf, size_t len, size_t cap)
{
	f->out = out;
	f->json = true;
	f->n = 0;
	f->buf = buf;
	f->len = len;
	f->cap = cap;
	f->keep = true;
	jc(f, '{');
}

/* keys are nopctl's own identifiers, short, with nothing to escape, and
 * string constants: each is quoted once, by its pointer, as ,"key": and
 * copied whole (strnlen and a copy loop per key were a tenth of a
 * `report -j`, perf on trace-cmd's files) */
struct qkey {
	const char *k;
	size_t len; /* of q, with its leading comma */
	char q[32];
};

static void key(struct nop_fields *f, const char *k)
{
	static struct qkey cache[256]; /* by the pointer's low bits: constants lie close */
	struct qkey *c = &cache[((uintptr_t)k ^ (uintptr_t)k >> 8) & (ARRAY_SIZE(cache) - 1)];
	size_t skip = f->n++ ? 0 : 1;

	if (c->k != k) {
		size_t klen = strnlen(k, 64);

		if (klen + 4 > sizeof(c->q)) { /* longer than any nopctl writes */
			jput(f, &",\""[skip], 2 - skip);
			jput(f, k, klen);
			jput(f, "\":", 2);
			return;
		}
		c->k = k;
		c->q[0] = ',';
		c->q[1] = '"';
		memcpy(c->q + 2, k, klen);
		c->q[klen + 2] = '"';
		c->q[klen + 3] = ':';
		c->len = klen + 4;
	}
	if (f->len + sizeof(c->q) > f->cap)
		flush_buf(f);
	memcpy(f->buf + f->len, c->q + skip, sizeof(c->q) - 1); /* whole: no call */
	f->len += c->len - skip;
}

void nop_field_u64(struct nop_fields *f, const char *k, const char *fmt, unsigned long long v)
{
	if (f->json) {
		key(f, k);
		put_u64(f, v, false);
	} else if (fmt) {
		fprintf(f->out, fmt, v);
	}
}

void nop_field_i64(struct nop_fields *f, const char *k, const char *fmt, long long v)
{
	if (f->json) {
		key(f, k);
		put_i64(f, v);
	} else if (fmt) {
		fprintf(f->out, fmt, v);
	}
}

/* text: v through fmt, escaped as text escapes strings nopctl did not
 * write (nopctl's own are clean: one scan) */
static void text_str(FILE *out, const char *fmt, const char *v)
{
	char *e;

	fprintf(out, fmt, nop_text_shown(v, &e));
	free(e);
}

void nop_field_str(struct nop_fields *f, const char *k, const char *fmt, const char *v)
{
	if (f->json) {
		key(f, k);
		if (v)
			jstr(f, v);
		else
			jput(f, "null", 4);
	} else if (fmt) {
		text_str(f->out, fmt, v ? v : "?");
	}
}

void nop_field_bool(struct nop_fields *f, const char *k, const char *fmt, bool v)
{
	if (f->json) {
		key(f, k);
		jput(f, v ? "true" : "false", v ? 4 : 5);
	} else if (fmt) {
		fputs(fmt, f->out);
	}
}

void nop_field_ts(struct nop_fields *f, const char *k, unsigned long long ns)
{
	if (f->json) {
		key(f, k);
		put_u64(f, ns, false);
	} else {
		unsigned long long us = (ns + 500) / 1000; /* rounded, as the kernel's ns2usecs */

		fprintf(f->out, "%6llu.%06llu: ", us / 1000000ULL, us % 1000000ULL);
	}
}

void nop_field_array_open(struct nop_fields *f, const char *k)
{
	if (f->json) {
		key(f, k);
		jc(f, '[');
		f->nitems = 0;
	}
}

void nop_field_item_str(struct nop_fields *f, const char *fmt, const char *v)
{
	if (f->json) {
		if (f->nitems++)
			jc(f, ',');
		jstr(f, v);
	} else if (fmt) {
		text_str(f->out, fmt, v);
	}
}

void nop_field_array_close(struct nop_fields *f)
{
	if (f->json)
		jc(f, ']');
}

void nop_fields_close(struct nop_fields *f)
{
	if (f->json) {
		jc(f, '}');
		jc(f, '\n');
		if (!f->keep)
			flush_buf(f);
	} else {
		putc_unlocked('\n', f->out);
	}
}

void nop_field_quoted(struct nop_fields *f, const char *k, const char *q, size_t len)
{
	key(f, k);
	jput(f, q, len);
}

void nop_field_json(struct nop_fields *f, const char *k, const char *json)
{
	if (!f->json)
		return;
	key(f, k);
	jput(f, json, strlen(json));
}

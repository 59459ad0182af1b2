/* fields.c - one print call per field, for text and JSON alike
 * (iproute2's print_uint(PRINT_ANY, key, fmt, v)): in JSON mode the key
 * and value, in text mode the value through the text format, or nothing
 * when the text format is NULL. */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

void nop_json_str(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	putc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c == '\r') {
			fputs("\\r", out);
		} else if (c < 0x20 || c == 0x7f || c >= 0x80) {
			/* control bytes, and bytes of no known encoding (task
			 * names are raw bytes): escaped, so every line is valid */
			fputs("\\u00", out);
			putc(hex[c >> 4], out);
			putc(hex[c & 15], out);
		} else {
			putc(c, out);
		}
	}
	putc('"', out);
}

void nop_fields_open(struct nop_fields *f, FILE *out, bool json)
{
	f->out = out;
	f->json = json;
	f->n = 0;
	if (json)
		putc('{', out);
}

static void key(struct nop_fields *f, const char *k)
{
	if (f->n++)
		putc(',', f->out);
	nop_json_str(f->out, k);
	putc(':', f->out);
}

void nop_field_u64(struct nop_fields *f, const char *k, const char *fmt, unsigned long long v)
{
	if (f->json) {
		key(f, k);
		fprintf(f->out, "%llu", v);
	} else if (fmt) {
		fprintf(f->out, fmt, v);
	}
}

void nop_field_i64(struct nop_fields *f, const char *k, const char *fmt, long long v)
{
	if (f->json) {
		key(f, k);
		fprintf(f->out, "%lld", v);
	} else if (fmt) {
		fprintf(f->out, fmt, v);
	}
}

void nop_field_str(struct nop_fields *f, const char *k, const char *fmt, const char *v)
{
	if (f->json) {
		key(f, k);
		if (v)
			nop_json_str(f->out, v);
		else
			fputs("null", f->out);
	} else if (fmt) {
		fprintf(f->out, fmt, v ? v : "?");
	}
}

void nop_field_bool(struct nop_fields *f, const char *k, const char *fmt, bool v)
{
	if (f->json) {
		key(f, k);
		fputs(v ? "true" : "false", f->out);
	} else if (fmt) {
		fputs(fmt, f->out);
	}
}

void nop_field_ts(struct nop_fields *f, const char *k, unsigned long long ns)
{
	if (f->json) {
		key(f, k);
		fprintf(f->out, "%llu", ns);
	} else {
		unsigned long long us = (ns + 500) / 1000; /* rounded, as the kernel's ns2usecs */

		fprintf(f->out, "%6llu.%06llu: ", us / 1000000ULL, us % 1000000ULL);
	}
}

void nop_field_array_open(struct nop_fields *f, const char *k)
{
	if (f->json) {
		key(f, k);
		putc('[', f->out);
		f->nitems = 0;
	}
}

void nop_field_item_str(struct nop_fields *f, const char *fmt, const char *v)
{
	if (f->json) {
		if (f->nitems++)
			putc(',', f->out);
		nop_json_str(f->out, v);
	} else if (fmt) {
		fprintf(f->out, fmt, v);
	}
}

void nop_field_array_close(struct nop_fields *f)
{
	if (f->json)
		putc(']', f->out);
}

void nop_fields_close(struct nop_fields *f)
{
	if (f->json)
		putc('}', f->out);
	putc('\n', f->out);
}

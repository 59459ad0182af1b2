/* args_format.c - a kernel function's arguments, as its probe event
 * fetched them (--args), to the two forms the sinks print: text
 * 'dfd=-100, filename="/etc/hostname"' and a JSON object
 * '{"dfd":-100,"filename":"/etc/hostname"}', one buffer "TEXT\0JSON".
 * Every field after __probe_ip (a user function's entry: after its own
 * fetches, sp and caller) is an argument: its name is the BTF or DWARF
 * name nopctl gave it, a string is a __data_loc char[], a number is signed
 * as its format says. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "events/events.h"

struct out {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *p = realloc(o->p, cap);

		if (!p) {
			o->oom = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = 0;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_to(void *o, const char *s, size_t n)
{
	put(o, s, n);
}

/* a string's bytes (n at most, to a NUL), quoted, escaped as every
 * string nopctl did not write is (nop_escape) */
static void put_str(struct out *o, const char *s, size_t n, bool json)
{
	put(o, "\"", 1);
	nop_escape(s, n, json ? NOP_ESC_JSON : NOP_ESC_QUOTED, put_to, o);
	put(o, "\"", 1);
}

/* one field's value: 0 if it is not in the record */
static bool value(const struct tep_format_field *f, const char *data, int size, bool native,
		  unsigned long long *v)
{
	if (f->offset < 0 || f->offset + f->size > size)
		return false;
	if (native && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
		uint64_t x = 0;

		memcpy(&x, data + f->offset, (size_t)f->size); /* little-endian: x86 */
		*v = x;
	} else if (tep_read_number_field((struct tep_format_field *)f, (void *)data, v)) {
		return false;
	}
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (*v >> (f->size * 8 - 1)) & 1)
		*v |= ~0ULL << (f->size * 8); /* sign-extended */
	return true;
}

/* an array's elements (a stack's callers, a device's bytes): numbers as
 * its element size reads them, in brackets */
static void elements(struct out *o, const char *p, size_t len, unsigned int esize, bool is_signed)
{
	char num[32];

	put(o, "[", 1);
	if (esize != 1 && esize != 2 && esize != 4 && esize != 8)
		esize = 1;
	for (size_t i = 0; i + esize <= len; i += esize) {
		uint64_t x = 0;

		memcpy(&x, p + i, esize); /* little-endian: x86 */
		if (is_signed && esize < 8 && (x >> (esize * 8 - 1)) & 1)
			x |= ~0ULL << (esize * 8);
		if (is_signed)
			snprintf(num, sizeof(num), "%s%lld", i ? "," : "", (long long)x);
		else
			snprintf(num, sizeof(num), "%s%llu", i ? "," : "", (unsigned long long)x);
		puts_(o, num);
	}
	put(o, "]", 1);
}

static void one(struct out *o, const struct tep_format_field *f, const char *data, int size,
		bool native, bool json)
{
	unsigned long long v;
	bool str = (f->flags & TEP_FIELD_IS_STRING) || (f->type && strstr(f->type, "char"));
	char num[32];

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		/* __data_loc: offset in the low 16 bits, length in the high;
		 * __rel_loc: the offset from the field's end */
		uint32_t loc, off;

		if (f->offset < 0 || f->offset + 4 > size) {
			puts_(o, "null");
			return;
		}
		memcpy(&loc, data + f->offset, 4);
		off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? (uint32_t)f->offset + 4 : 0);
		if (off + (loc >> 16) > (uint32_t)size || !(loc >> 16))
			puts_(o, json ? "null" : "(fault)"); /* the kernel could not read it */
		else if (str)
			put_str(o, data + off, loc >> 16, json);
		else
			elements(o, data + off, loc >> 16, f->elementsize, f->flags & TEP_FIELD_IS_SIGNED);
		return;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) { /* in place: char comm[16], u8 cmd[16] */
		if (f->offset < 0 || f->offset + f->size > size)
			puts_(o, "null");
		else if (str)
			put_str(o, data + f->offset, (size_t)f->size, json);
		else
			elements(o, data + f->offset, (size_t)f->size, f->elementsize, f->flags & TEP_FIELD_IS_SIGNED);
		return;
	}
	if (!value(f, data, size, native, &v)) {
		puts_(o, "null");
		return;
	}
	if (f->flags & TEP_FIELD_IS_SIGNED)
		snprintf(num, sizeof(num), "%lld", (long long)v);
	else
		snprintf(num, sizeof(num), json || f->size < 8 ? "%llu" : "%#llx", v);
	puts_(o, num);
}

const char *nop_args_format(struct tep_event *ev, const char *after, const void *rec, int size, bool native,
			    char **buf, size_t *cap)
{
	struct out o = { .p = *buf, .cap = *cap };
	struct tep_format_field *args = NULL;

	if (!ev)
		return NULL;
	if (!after)
		args = ev->format.fields;
	for (struct tep_format_field *f = ev->format.fields; f && after; f = f->next)
		if (!strcmp(f->name, after)) {
			args = f->next;
			break;
		}
	for (int json = 0; json < 2; json++) {
		if (json)
			put(&o, "{", 1);
		for (struct tep_format_field *f = args; f; f = f->next) {
			if (f != args)
				puts_(&o, json ? "," : ", ");
			if (json) {
				put_str(&o, f->name, strlen(f->name), true);
				put(&o, ":", 1);
			} else {
				puts_(&o, f->name);
				put(&o, "=", 1);
			}
			one(&o, f, rec, size, native, json);
		}
		if (json)
			put(&o, "}", 1);
		put(&o, "", 1); /* a NUL after each: "TEXT\0JSON\0" */
	}
	*buf = o.p;
	*cap = o.cap;
	return o.oom ? NULL : o.p;
}

/* fields.h - the field printer shared by every line-oriented sink. */
#ifndef NOPCTL_FIELDS_H
#define NOPCTL_FIELDS_H

#include "internal.h"

struct nop_fields {
	FILE *out;
	bool json;
	int n, nitems;
};

void nop_fields_open(struct nop_fields *f, FILE *out, bool json);
void nop_fields_close(struct nop_fields *f);
void nop_field_u64(struct nop_fields *f, const char *key, const char *fmt, unsigned long long v);
void nop_field_i64(struct nop_fields *f, const char *key, const char *fmt, long long v);
void nop_field_str(struct nop_fields *f, const char *key, const char *fmt, const char *v);
void nop_field_ts(struct nop_fields *f, const char *key, unsigned long long ns);
void nop_field_array_open(struct nop_fields *f, const char *key);
void nop_field_item_str(struct nop_fields *f, const char *fmt, const char *v);
void nop_field_array_close(struct nop_fields *f);

#endif

/* srcreturns.c - which return statements of a function's source could
 * have given a value (nopctl why, where the machine code computes the
 * value without a constant of its own: GCC's -O2 makes "if (x) return -2;
 * return 0;" a neg, sbb and and, which the line table puts on no return).
 * C and C++ text: comments, strings and character constants skipped. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

struct scan {
	const char *p;
	int line;
};

/* past a comment, string or character constant at s->p, if one begins
 * there (lines counted); false if none does */
static bool skip_literal(struct scan *s)
{
	const char *p = s->p;

	if (p[0] == '/' && p[1] == '/') {
		while (*p && *p != '\n')
			p++;
	} else if (p[0] == '/' && p[1] == '*') {
		for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
			s->line += *p == '\n';
		p += *p ? 2 : 0;
	} else if (*p == '"' || *p == '\'') {
		char q = *p++;

		for (; *p && *p != q && *p != '\n'; p++)
			if (*p == '\\' && p[1])
				p++;
		p += *p == q;
	} else {
		return false;
	}
	s->p = p;
	return true;
}

/* name (len bytes) is an errno's name: its number, else 0 */
static int errno_named(const char *name, size_t len)
{
	for (int e = 1; e < 200; e++) {
		const char *n = strerrorname_np(e);

		if (n && strlen(n) == len && !memcmp(n, name, len))
			return e;
	}
	return 0;
}

/* a return's expression, from s->p to its ';': whether it can give value
 * (*how: NOP_SRC_LITERAL, it names it as a constant; NOP_SRC_CALL, it
 * calls a function) */
static bool can_give(struct scan *s, long long value, bool pointer, unsigned char *how)
{
	bool matches = false, computes = false, neg = false, operand = false, calls = false;

	while (*s->p && *s->p != ';') {
		const char *p = s->p;

		if (skip_literal(s)) {
			computes = true; /* a string: some pointer */
			operand = true;
			continue;
		}
		if (*p == '\n' || isspace((unsigned char)*p)) {
			s->line += *p == '\n';
			s->p++;
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			char *end;
			long long v = (long long)strtoull(p, &end, 0);

			while (isalnum((unsigned char)*end)) /* suffixes: 1L, 2u */
				end++;
			v = neg ? -v : v;
			matches |= v == value || (pointer && !v && !value);
			s->p = end;
			neg = false;
			operand = true;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			size_t n = 0;
			int e;

			while (isalnum((unsigned char)p[n]) || p[n] == '_' || (p[n] == ':' && p[n + 1] == ':' && (n += 1)))
				n++;
			if ((n == 4 && !memcmp(p, "NULL", 4)) || (n == 7 && !memcmp(p, "nullptr", 7)))
				matches |= pointer && !value;
			else if (n == 5 && !memcmp(p, "false", 5))
				matches |= !value;
			else if (n == 4 && !memcmp(p, "true", 4))
				matches |= value == 1;
			else if ((e = errno_named(p, n)))
				matches |= (neg ? -e : e) == value;
			else
				computes = true;
			s->p = p + n;
			while (*s->p == ' ' || *s->p == '\t')
				s->p++;
			calls |= *s->p == '(' && !(n == 6 && !memcmp(p, "sizeof", 6));
			neg = false;
			operand = true;
			continue;
		}
		/* a minus with no operand before it negates what follows */
		neg = *p == '-' && !operand ? !neg : false;
		operand = *p == ')' || *p == ']';
		s->p++;
	}
	*how = (matches ? NOP_SRC_LITERAL : 0) | (calls ? NOP_SRC_CALL : 0);
	return matches || computes;
}

size_t nop_src_returns(const char *text, int decl, long long value, bool pointer, int *lines, unsigned char *how,
		       size_t max)
{
	struct scan s = { text, 1 };
	int depth = 0;
	bool body = false;
	size_t n = 0;

	while (*s.p) {
		const char *p = s.p;

		if (skip_literal(&s))
			continue;
		if (*p == '\n') {
			s.line++;
			s.p++;
			continue;
		}
		if (s.line < decl) {
			s.p++;
			continue;
		}
		if (*p == '{') {
			depth++;
			body = true;
		} else if (*p == '}' && body && --depth == 0) {
			break;
		}
		if (body && !strncmp(p, "return", 6) && !isalnum((unsigned char)p[6]) && p[6] != '_' &&
		    (p == text || (!isalnum((unsigned char)p[-1]) && p[-1] != '_'))) {
			int at = s.line;
			unsigned char h;

			s.p += 6;
			if (can_give(&s, value, pointer, &h)) {
				if (n < max) {
					lines[n] = at;
					how[n] = h;
				}
				n++;
			}
			continue;
		}
		s.p++;
	}
	return body ? n : 0;
}

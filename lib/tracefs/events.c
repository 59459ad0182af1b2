/* events.c - kernel events (tracepoints) a run records beside the calls:
 * SYSTEM:EVENT specs matched against available_events, and the filter
 * text each may carry, checked before anything is written. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tracefs.h"

/* what a system or event name holds in available_events (xhci-hcd's
 * system has a '-'), plus the glob characters: never a '/' or white space,
 * so a name joins a path below events/ and nothing else */
static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.';
}

bool nop_event_name_ok(const char *name)
{
	size_t n = 0;

	for (; name[n]; n++)
		if (!name_char((unsigned char)name[n]))
			return false;
	return n > 0;
}

static int spec_check(const char *spec, struct nop_error *err)
{
	size_t colons = 0, len = strnlen(spec, 200);

	if (!len || len >= 200) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s event: give SYSTEM:EVENT, such as sched:sched_switch or 'block:*'",
			      len ? "too long an" : "an empty");
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)spec[i];

		colons += c == ':';
		if (!name_char(c) && !strchr("*?[]:", c)) {
			nop_error_set(err, NOP_EUSAGE, 0,
				      "invalid event '%.64s': byte %zu is not part of an event name; give SYSTEM:EVENT, "
				      "such as sched:sched_switch or 'block:*'", spec, i + 1);
			return -1;
		}
	}
	if (colons > 1 || spec[0] == ':' || spec[len - 1] == ':') {
		nop_error_set(err, NOP_EUSAGE, 0,
			      "invalid event '%.64s': give SYSTEM:EVENT, such as sched:sched_switch or 'block:*'", spec);
		return -1;
	}
	return 0;
}

int nop_event_filter_check(const char *filter, struct nop_error *err)
{
	size_t len = filter ? strnlen(filter, NOP_EVENT_FILTER_MAX + 1) : 0;

	if (!len || len > NOP_EVENT_FILTER_MAX) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s event filter: give an expression of the event's fields, "
			      "such as 'prev_state == 2'", len ? "too long an" : "an empty");
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)filter[i] < 0x20 || (unsigned char)filter[i] >= 0x7f) {
			/* one write, one line: a newline would end the filter
			 * there and the kernel would read the rest as another */
			nop_error_set(err, NOP_EUSAGE, 0,
				      "invalid event filter: byte %zu is a control or non-ASCII byte; a filter is one line "
				      "such as 'prev_state == 2'", i + 1);
			return -1;
		}
	return 0;
}

/* available_events as "system:event" names, each once */
static int load(const char *tracing_dir, struct nop_funcs *all, struct nop_error *err)
{
	char path[4200], *text;
	int ret;

	nop_path(path, sizeof(path), tracing_dir, "available_events");
	if (!(text = nop_read_file(path, NULL, err)))
		return -1;
	ret = nop_funcs_parse(text, all, err);
	free(text);
	return ret;
}

/* nopctl's own probe events, and the ftrace system's (the tracers' own
 * records), are not events a user records beside the calls */
static bool own_event(const char *name)
{
	return !strncmp(name, "nopctl_", 7) || !strncmp(name, "ftrace:", 7);
}

static bool spec_matches(const char *spec, const char *name)
{
	const char *colon = strchr(spec, ':'), *ncolon = strchr(name, ':');
	char sys[200];

	if (!ncolon)
		return false;
	if (colon)
		return fnmatch(spec, name, 0) == 0;
	/* one word: a system (all its events) or an event of any system */
	snprintf(sys, sizeof(sys), "%.*s", (int)(ncolon - name), name);
	return fnmatch(spec, sys, 0) == 0 || fnmatch(spec, ncolon + 1, 0) == 0;
}

int nop_kevents_add(struct nop_kevents *ev, const char *tracing_dir, const char *spec, const char *filter,
		    struct nop_error *err)
{
	struct nop_funcs all = { 0 };
	size_t cap = ev->n, matched = 0;

	if (spec_check(spec, err) || (filter && nop_event_filter_check(filter, err)) || load(tracing_dir, &all, err))
		return -1;
	for (size_t i = 0; i < all.n; i++) {
		const char *name = all.v[i].name, *colon = strchr(name, ':');
		struct nop_kevent *k = NULL;

		if (own_event(name) || !spec_matches(spec, name) || !colon || colon - name >= 64 ||
		    strlen(colon + 1) >= 128)
			continue;
		matched++;
		for (size_t j = 0; j < ev->n; j++)
			if (!strncmp(ev->v[j].system, name, (size_t)(colon - name)) &&
			    !ev->v[j].system[colon - name] && !strcmp(ev->v[j].name, colon + 1))
				k = &ev->v[j];
		if (k && filter && k->filter && strcmp(k->filter, filter)) {
			nop_error_set(err, NOP_EUSAGE, 0,
				      "two filters for the event %s: give one, joined with && or ||", name);
			nop_funcs_free(&all);
			return -1;
		}
		if (k) {
			k->filter = filter ? filter : k->filter;
			continue;
		}
		if (nop_grow((void **)&ev->v, &cap, ev->n + 1, sizeof(*ev->v))) {
			nop_funcs_free(&all);
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		k = &ev->v[ev->n++];
		memset(k, 0, sizeof(*k));
		snprintf(k->system, sizeof(k->system), "%.*s", (int)(colon - name), name);
		snprintf(k->name, sizeof(k->name), "%s", colon + 1);
		k->filter = filter;
	}
	if (!matched) {
		const char *close[4];
		size_t n = nop_funcs_suggest(&all, spec, close, 4);
		char also[400] = "";

		for (size_t i = 0; i < n; i++)
			snprintf(also + strlen(also), sizeof(also) - strlen(also), "%s%s", i ? ", " : "; close: ",
				 close[i]);
		nop_error_set(err, NOP_EUSAGE, 0, "no kernel event matches '%.64s'%s; %.200s/available_events lists them",
			      spec, also, tracing_dir);
		nop_funcs_free(&all);
		return -1;
	}
	nop_funcs_free(&all);
	return 0;
}

void nop_kevents_free(struct nop_kevents *ev)
{
	free(ev->v);
	ev->v = NULL;
	ev->n = 0;
}

void nop_event_filter_error(const char *filter_path, char *buf, size_t len)
{
	char *text = nop_read_file(filter_path, NULL, NULL), *e;

	buf[0] = 0;
	/* after a refused write the file holds the filter, a caret under
	 * where it failed, and "parse_error: Field not found" */
	if (text && (e = strstr(text, "parse_error: ")))
		snprintf(buf, len, "%.*s", (int)strcspn(e + 13, "\n"), e + 13);
	free(text);
}

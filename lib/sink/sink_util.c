/* sink_util.c - what every sink shares: its private state, function names,
 * durations, and the text summary a picture sends to the diagnostic stream. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sink/sink.h"

int nop_sink_priv(struct nop_sink *s, size_t size, struct nop_error *err)
{
	s->priv = calloc(1, size);
	if (!s->priv) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	return 0;
}

const char *nop_sink_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

void nop_sink_free(struct nop_sink *s)
{
	if (s->ops && s->ops->free)
		s->ops->free(s);
	free(s->priv);
	s->priv = NULL;
	nop_sink_spill(s);
	free(s->obuf);
	s->obuf = NULL;
	for (size_t i = 0; s->safe && i < nop_strmap_size(s->safe); i++)
		free(*(char **)nop_strmap_at(s->safe, i, NULL));
	nop_strmap_free(s->safe);
	s->safe = NULL;
}

/* text: buf (cap bytes) as text shows a string nopctl did not write */
void nop_sink_text_in(const struct nop_sink *s, char *buf, size_t cap)
{
	char *raw;

	if (s->enc == NOP_ENC_JSON || nop_text_clean(buf))
		return;
	if ((raw = strdup(buf)))
		nop_text_escape(buf, cap, raw);
	else
		buf[0] = 0; /* out of memory: nothing of it shown */
	free(raw);
}

/* text: str escaped, each name once (by its text, kept until the sink
 * is freed) */
const char *nop_sink_text(struct nop_sink *s, const char *str)
{
	char **copy;

	if (!str || s->enc == NOP_ENC_JSON || nop_text_clean(str))
		return str; /* the common case: nothing to escape */
	if ((!s->safe && !(s->safe = nop_strmap_new(sizeof(char *)))) ||
	    !(copy = nop_strmap_get(s->safe, str)))
		return "?"; /* out of memory: nothing of it shown */
	if (!*copy)
		*copy = nop_text_dup(str);
	return *copy ? *copy : "?";
}

/* The lines go out a quarter megabyte at a time, not one fwrite each. */
char *nop_sink_room(struct nop_sink *s, size_t need)
{
	if (!s->obuf && !(s->obuf = malloc(NOP_SINK_OBUF)))
		return NULL;
	if (s->olen + need > NOP_SINK_OBUF && nop_sink_spill(s))
		return NULL; /* the output failed: errno says how (EPIPE: | head) */
	return s->obuf + s->olen;
}

/* The buffer goes to the file itself, after what stdio holds: through
 * fwrite every byte would be copied once more into stdio's buffer. A
 * stream with no file (a memory stream) is written through stdio. */
static int write_out(struct nop_sink *s)
{
	const char *p = s->obuf;
	size_t n = s->olen;
	int fd = fileno(s->out);

	if (fd < 0) { /* its error is stdio's: nop_sink_spill asks ferror */
		fwrite_unlocked(s->obuf, 1, s->olen, s->out);
		return 0;
	}
	if (fflush(s->out))
		return -1;
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->werr = w < 0 ? errno : EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int nop_sink_spill(struct nop_sink *s)
{
	int ret = 0;

	if (s->werr) {
		errno = s->werr;
		return -1;
	}
	if (s->olen && s->out)
		ret = write_out(s);
	s->olen = 0;
	return ret || (s->out && ferror(s->out)) ? -1 : 0;
}

int nop_sink_flush(struct nop_sink *s)
{
	return nop_sink_spill(s) ? -1 : fflush(s->out);
}

/* A task can name itself anything (prctl PR_SET_NAME), terminal escapes
 * too: shown as every name from the kernel is (nop_sink_text) */
const char *nop_sink_comm(struct nop_sink *s, int pid)
{
	return nop_sink_text(s, nop_resolve_comm(s->res, pid));
}

static char unnamed[32]; /* nop_sink_func's "0x..." */

const char *nop_sink_func(struct nop_sink *s, unsigned long long addr)
{
	const char *name = nop_resolve_sym(s->res, addr, NULL);

	if (name)
		return nop_sink_text(s, name);
	snprintf(unnamed, sizeof(unnamed), "0x%llx", addr);
	return unnamed;
}

bool nop_sink_func_unnamed(const char *fn)
{
	return fn == unnamed;
}

/* 1.234 us, 12.345 ms: three decimals in the largest unit under 1000 */
void nop_fmt_duration(char *buf, size_t len, unsigned long long ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	unsigned long long div = 1;
	int u = 0;

	while (u < 3 && ns >= div * 1000) {
		div *= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu ns", ns);
	else
		snprintf(buf, len, "%llu.%03llu %s", ns / div, ns % div * 1000 / div, units[u]);
}

/* "sched_switch: prev_comm=..." (text: the event's name without its
 * system, as the kernel prints it), JSON "name" and "fields" */
void nop_sink_kevent_text(const struct nop_sink *s, char *buf, size_t len, const char *fmt, const char *name,
			  const char *args)
{
	const char *colon = strchr(name, ':');

	snprintf(buf, len, fmt, colon ? colon + 1 : name, args ? args : "");
	nop_sink_text_in(s, buf, len);
}

void nop_sink_kevent_fields(struct nop_sink *s, struct nop_fields *f, const char *name, const char *args)
{
	char text[GRAPH_EVENT_TEXT];

	if (!f->json) {
		nop_sink_kevent_text(s, text, sizeof(text), "%s: %s", name, args);
		fputs(text, f->out);
		return;
	}
	nop_field_str(f, "name", NULL, name);
	nop_field_json(f, "fields", args ? nop_args_json(args) : "{}");
}

void nop_fmt_off(char *buf, size_t len, const unsigned long long *off)
{
	unsigned long long total = nop_off_total(off);
	int parts = 0, top = 0;
	size_t n;

	for (int i = 0; i < NOP_OFF_STATES; i++) {
		parts += off[i] > 0;
		top = off[i] > off[top] ? i : top;
	}
	nop_fmt_duration(buf, len, total);
	n = strlen(buf);
	if (parts == 1) {
		snprintf(buf + n, len - n, " (%c)", nop_off_letter(top));
		return;
	}
	for (int i = 0, k = 0; i < NOP_OFF_STATES && n < len; i++) {
		char d[32];

		if (!off[i])
			continue;
		nop_fmt_duration(d, sizeof(d), off[i]);
		k++;
		n += (size_t)snprintf(buf + n, len - n, "%s%c %s%s", k > 1 ? ", " : " (", nop_off_letter(i), d,
				      k == parts ? ")" : "");
	}
}

const char *nop_off_json(char *buf, size_t len, const unsigned long long *off)
{
	size_t n = (size_t)snprintf(buf, len, "{");

	for (int i = 0, k = 0; i < NOP_OFF_STATES && n < len; i++)
		if (off[i])
			n += (size_t)snprintf(buf + n, len - n, "%s\"%c\":%llu", k++ ? "," : "", nop_off_letter(i), off[i]);
	if (n < len)
		snprintf(buf + n, len - n, "}");
	return buf;
}

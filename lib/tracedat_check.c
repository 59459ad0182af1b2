/* tracedat_check.c - a trace.dat's layout checked before libtracecmd
 * opens it. libtracecmd (3.1.6) trusts the sizes and offsets a file
 * declares: a file with 4-byte words and one CPU offset past its end made
 * it crash (issue 13 #7). Every section's size and every CPU's data must
 * lie inside the file; version 6 is walked to its last CPU, version 7
 * (sections, compression) as far as its header and first section.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

struct cur {
	const unsigned char *p;
	size_t len, pos;
	bool big, bad;
	const char *why;
};

static void fail(struct cur *c, const char *why)
{
	if (!c->bad)
		c->why = why;
	c->bad = true;
}

static unsigned long long num(struct cur *c, int n)
{
	unsigned long long v = 0;

	if (c->bad || c->len - c->pos < (size_t)n) {
		fail(c, "it ends inside its header");
		return 0;
	}
	for (int i = 0; i < n; i++) {
		unsigned long long b = c->p[c->pos + (size_t)i];

		v |= c->big ? b << (8 * (n - 1 - i)) : b << (8 * i);
	}
	c->pos += (size_t)n;
	return v;
}

static void skip(struct cur *c, unsigned long long n, const char *what)
{
	if (c->bad)
		return;
	if (n > c->len - c->pos)
		fail(c, what);
	else
		c->pos += (size_t)n;
}

static void word(struct cur *c, const char *w)
{
	size_t n = strlen(w) + 1;

	if (c->bad)
		return;
	if (c->len - c->pos < n || memcmp(c->p + c->pos, w, n))
		fail(c, "a section is not where its name should be");
	else
		c->pos += n;
}

/* a NUL-terminated string inside the file */
static void string(struct cur *c)
{
	const void *z = c->bad ? NULL : memchr(c->p + c->pos, 0, c->len - c->pos);

	if (!z)
		fail(c, "a name runs past its end");
	else
		c->pos = (size_t)((const unsigned char *)z - c->p) + 1;
}

/* flyrecord: each CPU's offset and size, inside the file */
static void cpus(struct cur *c, unsigned long long ncpus)
{
	for (unsigned long long i = 0; i < ncpus && !c->bad; i++) {
		unsigned long long off = num(c, 8), size = num(c, 8);

		if (off > c->len || size > c->len - off)
			fail(c, "a CPU's data lies outside it");
	}
}

static void v6(struct cur *c)
{
	unsigned long long n;

	word(c, "header_page");
	skip(c, num(c, 8), "its header_page runs past its end");
	word(c, "header_event");
	skip(c, num(c, 8), "its header_event runs past its end");
	n = num(c, 4);
	for (unsigned long long i = 0; i < n && !c->bad; i++)
		skip(c, num(c, 8), "an event format runs past its end");
	n = num(c, 4); /* event systems */
	for (unsigned long long i = 0; i < n && !c->bad; i++) {
		unsigned long long m;

		string(c);
		m = num(c, 4);
		for (unsigned long long k = 0; k < m && !c->bad; k++)
			skip(c, num(c, 8), "an event format runs past its end");
	}
	skip(c, num(c, 4), "its symbols run past its end");
	skip(c, num(c, 4), "its printk formats run past its end");
	skip(c, num(c, 8), "its task names run past its end");
	n = num(c, 4); /* CPUs */
	if (!c->bad && (n == 0 || n > 65536))
		fail(c, "it claims no CPU or more than 65536");
	if (!c->bad && c->len - c->pos >= 10 && !memcmp(c->p + c->pos, "options  ", 10)) {
		c->pos += 10;
		for (int k = 0; k < 4096 && !c->bad; k++) {
			unsigned long long id = num(c, 2), size;

			if (id == 0)
				break;
			size = num(c, 4);
			/* BUFFER: an instance's flyrecord elsewhere in the file */
			if (id == 3 && size >= 8 && !c->bad && c->len - c->pos >= 8) {
				unsigned long long off = num(c, 8);

				if (off > c->len)
					fail(c, "an instance's data lies outside it");
				size -= 8;
			}
			skip(c, size, "an option runs past its end");
		}
	}
	if (c->bad)
		return;
	if (c->len - c->pos >= 10 && !memcmp(c->p + c->pos, "latency  ", 10))
		return; /* text: read by libtracecmd as text */
	word(c, "flyrecord");
	cpus(c, n);
}

static void v7(struct cur *c)
{
	unsigned long long off;

	string(c); /* compression algorithm */
	string(c); /* its version */
	off = num(c, 8); /* the first options section */
	if (!c->bad && (off < c->pos || off > c->len || c->len - off < 16))
		fail(c, "its first section lies outside it");
}

int nop_dat_check(const char *path, struct nop_error *err)
{
	struct cur c = { 0 };
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned long long ver, word_size, page;

	if (fd < 0 || fstat(fd, &st) < 0) {
		nop_error_io(err, "open", path, errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size < 16) {
		close(fd);
		nop_error_set(err, NOP_EUSAGE, 0, "%s is not a trace.dat file (trace-cmd's format)", path);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		nop_error_io(err, "read", path, errno);
		return -1;
	}
	c.p = map;
	c.len = (size_t)st.st_size;
	if (memcmp(c.p, "\x17\x08\x44tracing", 10)) {
		munmap(map, c.len);
		nop_error_set(err, NOP_EUSAGE, 0, "%s is not a trace.dat file (trace-cmd's format)", path);
		return -1;
	}
	c.pos = 10;
	ver = 0;
	while (c.pos < c.len && c.p[c.pos] >= '0' && c.p[c.pos] <= '9' && ver < 100)
		ver = ver * 10 + (unsigned long long)(c.p[c.pos++] - '0');
	word(&c, "");
	c.big = num(&c, 1) != 0;
	word_size = num(&c, 1);
	page = num(&c, 4);
	if (!c.bad && ver != 6 && ver != 7)
		fail(&c, "its version is neither 6 nor 7");
	if (!c.bad && word_size != 4 && word_size != 8)
		fail(&c, "its word size is neither 4 nor 8");
	if (!c.bad && (page < 64 || page > (1u << 20) || (page & (page - 1))))
		fail(&c, "its page size is not a power of two from 64 bytes to 1 MB");
	if (ver == 6)
		v6(&c);
	else if (!c.bad)
		v7(&c);
	munmap(map, c.len);
	if (c.bad) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s is damaged: %s", path, c.why);
		return -1;
	}
	return 0;
}

/* test_symbols.c - user-space functions: symbols and probe offsets read
 * from the test programs (tests/progs, built static, PIE, non-PIE, as a
 * shared library, stripped, C++), libraries found as the loader would,
 * and user calls placed in their tasks' stacks. No root, no tracefs. */
#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

static const char *helper(const char *name)
{
	static char path[4][4096];
	static int next;
	const char *dir = getenv("NOPCTL_HELPERS");

	next = (next + 1) % 4;
	snprintf(path[next], sizeof(path[0]), "%s/%s", dir ? dir : "../build/tests/helpers", name);
	return path[next];
}

static const struct nop_usym *find(const struct nop_ubin *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->v[i].name, name))
			return &b->v[i];
	return NULL;
}

static void read_at(const char *path, unsigned long long off, unsigned char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, n, (off_t)off), (ssize_t)n);
	close(fd);
}

/* the truth for the offset of a function we compiled with -O0 and frame
 * pointers: its first instructions are there, x86-64's push %rbp; mov
 * %rsp,%rbp, arm64's stp x29, x30, [sp, #-N]!; mov x29, sp */
static bool prologue_at(const unsigned char *code)
{
#if defined(__aarch64__)
	uint32_t w[2];

	memcpy(w, code, sizeof(w));
	return (w[0] & 0xffc07fff) == 0xa9807bfd && w[1] == 0x910003fd;
#else
	return !memcmp(code, "\x55\x48\x89\xe5", 4);
#endif
}

static void offsets_hold_code(void **state)
{
	const char *progs[] = { "ufuncs-static", "ufuncs-pie", "ufuncs-nopie" };
	const char *funcs[] = { "main", "work", "parse_line", "tokenize", "fact", "sleeper" };

	for (size_t p = 0; p < 3; p++) {
		struct nop_ubin b;
		struct nop_error err;

		assert_int_equal(nop_ubin_load(helper(progs[p]), &b, &err), 0);
		assert_true(b.has_symtab);
		assert_int_equal(b.pie, p == 1);
		for (size_t f = 0; f < 6; f++) {
			const struct nop_usym *s = find(&b, funcs[f]);
			unsigned char code[12];

			assert_non_null(s);
			read_at(b.path, s->offset, code, sizeof(code));
			/* endbr64 (bti c) first where the toolchain adds it */
			bool pad = !memcmp(code, "\xf3\x0f\x1e\xfa", 4) || !memcmp(code, "\x5f\x24\x03\xd5", 4);

			assert_true(prologue_at(code + (pad ? 4 : 0)));
		}
		nop_ubin_free(&b);
	}
}

/* a shared library: what the dynamic loader placed at lib_add's address
 * is the file's bytes at the offset nopctl probes */
static void library_offset_is_the_loaders(void **state)
{
	struct nop_ubin b;
	struct nop_error err;
	const struct nop_usym *s;
	void *h = dlopen(helper("libnopdemo.so"), RTLD_NOW);
	unsigned char file[16];

	assert_non_null(h);
	assert_int_equal(nop_ubin_load(helper("libnopdemo.so"), &b, &err), 0);
	assert_non_null(s = find(&b, "lib_add"));
	read_at(b.path, s->offset, file, sizeof(file));
	assert_memory_equal(file, dlsym(h, "lib_add"), sizeof(file));
	nop_ubin_free(&b);
	dlclose(h);
}

static void aliases_probed_once(void **state)
{
	struct nop_ubin b;
	struct nop_uprobes u = { 0 };
	struct nop_error err;
	char libc[64];

	assert_int_equal(nop_ubin_load(helper("ufuncs-pie"), &b, &err), 0);
	assert_int_equal(nop_ubin_count(&b, "parse_*"), 1);
	assert_int_equal(nop_ubin_count(&b, "parse_alias"), 1);
	nop_ubin_free(&b);
	/* glibc's free has three names at one address (__libc_free, cfree, free) */
	snprintf(libc, sizeof(libc), "/lib/%s/libc.so.6", nop_arch.triplet);
	assert_int_equal(nop_ubin_load(libc, &b, &err), 0);
	assert_int_equal(nop_ubin_count(&b, "free"), 1);
	assert_int_equal(nop_uprobes_add(&u, &b, "free", true, false, &err), 0);
	assert_int_equal(u.n, 1);
	assert_string_equal(u.v[0].shown, "free");
	nop_uprobes_free(&u);
	nop_ubin_free(&b);
	assert_int_equal(nop_ubin_load(helper("ufuncs-pie"), &b, &err), 0);
	assert_int_equal(nop_uprobes_add(&u, &b, "parse_*", true, true, &err), 0);
	assert_int_equal(nop_uprobes_add(&u, &b, "parse_line", true, true, &err), 0);
	assert_int_equal(u.n, 2); /* one entry, one return */
	assert_false(u.v[0].ret);
	assert_true(u.v[1].ret);
	assert_int_equal(u.v[1].func, 0); /* the return's key is its entry's */
	assert_string_equal(u.v[1].event, "parse_alias__return");
	nop_uprobes_free(&u);
	nop_ubin_free(&b);
}

/* every function of a binary ("*"), with returns: none on the entry
 * point, where a return probe would overwrite argc */
static void no_return_probe_at_entry_point(void **state)
{
	struct nop_ubin b;
	struct nop_uprobes u = { 0 };
	struct nop_error err;
	bool start_entry = false;

	assert_int_equal(nop_ubin_load(helper("ufuncs-pie"), &b, &err), 0);
	assert_int_equal(nop_uprobes_add(&u, &b, "*", true, true, &err), 0);
	for (size_t i = 0; i < u.n; i++) {
		assert_true(strlen(u.v[i].event) < 64);
		for (const char *c = u.v[i].event; *c; c++)
			assert_true(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				    (*c >= '0' && *c <= '9'));
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(u.v[i].event, u.v[k].event);
		start_entry |= u.v[i].vaddr == b.entry;
	}
	/* calls with returns: the process's start is no call of it */
	assert_false(start_entry);
	nop_uprobes_free(&u);
	/* hits: it is */
	assert_int_equal(nop_uprobes_add(&u, &b, "*", true, false, &err), 0);
	for (size_t i = 0; i < u.n; i++)
		start_entry |= u.v[i].vaddr == b.entry && !u.v[i].ret;
	assert_true(start_entry);
	nop_uprobes_free(&u);
	nop_ubin_free(&b);
}

/* a function that reaches out to nothing (bench_fn: lea; ret) returns
 * through one uretprobe, the cheaper probe; one that calls (main) is left
 * at its ret instructions, where an unwinder can pass it */
static void exits_by_what_a_function_reaches(void **state)
{
	struct nop_ubin b;
	struct nop_uprobes u = { 0 };
	struct nop_error err;
	size_t exits = 0;

	assert_int_equal(nop_ubin_load(helper("libubench.so"), &b, &err), 0);
	assert_int_equal(nop_uprobes_add(&u, &b, "bench_fn", true, true, &err), 0);
	assert_int_equal(u.n, 2);
	assert_true(u.v[1].ret && u.v[1].uret);
	assert_int_equal(u.v[1].vaddr, u.v[0].vaddr); /* at the entry, as uretprobes are */
	nop_uprobes_free(&u);
	nop_ubin_free(&b);
	assert_int_equal(nop_ubin_load(helper("ufuncs-pie"), &b, &err), 0);
	assert_int_equal(nop_uprobes_add(&u, &b, "main", true, true, &err), 0);
	for (size_t i = 1; i < u.n; i++) {
		assert_true(u.v[i].ret && !u.v[i].uret);
		assert_true(u.v[i].vaddr > u.v[0].vaddr);
		exits++;
	}
	assert_true(exits >= 1);
	nop_uprobes_free(&u);
	nop_ubin_free(&b);
}

static void cxx_names_demangled(void **state)
{
	struct nop_ubin b;
	struct nop_uprobes u = { 0 };
	struct nop_error err;

	assert_int_equal(nop_ubin_load(helper("ucxx"), &b, &err), 0);
	assert_int_equal(nop_ubin_count(&b, "ns::Parser::parse*"), 2);
	assert_int_equal(nop_ubin_count(&b, "ns::Parser::parse(int)"), 1);
	assert_int_equal(nop_ubin_count(&b, "_ZN2ns6Parser5parseEi"), 1); /* mangled too */
	assert_int_equal(nop_uprobes_add(&u, &b, "ns::Parser::parse*", true, false, &err), 0);
	assert_int_equal(u.n, 2);
	assert_non_null(strstr(u.v[0].shown, "ns::Parser::parse("));
	nop_uprobes_free(&u);
	nop_ubin_free(&b);
}

static void bad_binaries_said(void **state)
{
	struct nop_ubin b;
	struct nop_error err = { 0 };
	char tmp[] = "/tmp/nopctl-usyms-XXXXXX";
	int fd = mkstemp(tmp);
	unsigned char buf[65536];
	ssize_t n;
	int in = open(helper("ufuncs-pie"), O_RDONLY);

	/* another machine's ELF: e_machine 183 (AArch64), or 62 (x86-64) on arm64 */
	assert_true(fd >= 0 && in >= 0);
	n = read(in, buf, sizeof(buf));
	assert_true(n > 64);
	buf[18] = nop_arch.elf_machine == 183 ? 62 : 183;
	buf[19] = 0;
	assert_int_equal(write(fd, buf, (size_t)n), n);
	close(in);
	close(fd);
	assert_int_equal(nop_ubin_load(tmp, &b, &err), -1);
	assert_int_equal(err.status, NOP_EUSAGE);
	assert_non_null(strstr(err.msg, nop_arch.name));
	unlink(tmp);
	assert_int_equal(nop_ubin_load("/etc/hostname", &b, &err), -1);
	assert_non_null(strstr(err.msg, "not an ELF file"));
	/* stripped: what it has left, and what to install */
	assert_int_equal(nop_ubin_load(helper("ufuncs-stripped"), &b, &err), 0);
	assert_false(b.has_symtab);
	assert_int_equal(nop_ubin_count(&b, "parse_line"), 0);
	assert_int_equal(nop_ubin_no_match(&b, "parse_line", &err), -1);
	assert_non_null(strstr(err.msg, "stripped"));
	assert_non_null(strstr(err.msg, "debug"));
	nop_ubin_free(&b);
	/* a near miss names the closest */
	assert_int_equal(nop_ubin_load(helper("ufuncs-pie"), &b, &err), 0);
	assert_int_equal(nop_ubin_no_match(&b, "parse_lin", &err), -1);
	assert_non_null(strstr(err.msg, "close names: parse_line"));
	nop_ubin_free(&b);
}

static void patterns_split(void **state)
{
	char bin[4096];
	const char *glob;
	struct nop_error err;

	assert_true(nop_upattern("./app:main"));
	assert_false(nop_upattern("vfs_read"));
	assert_int_equal(nop_upattern_split("./app:ns::Parser::*", bin, sizeof(bin), &glob, &err), 0);
	assert_string_equal(bin, "./app");
	assert_string_equal(glob, "ns::Parser::*");
	const char *bad[] = { ":main", "./app:", "a b:c", "./a\npp:x", "./app:x\ny", "p;q:x", "./app:\x01" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(nop_upattern_split(bad[i], bin, sizeof(bin), &glob, &err), -1);
		assert_int_equal(err.status, NOP_EUSAGE);
	}
}

static void libraries_found_as_the_loader_would(void **state)
{
	char out[4096], want[4096];
	struct nop_error err;

	/* RUNPATH $ORIGIN of the command */
	assert_int_equal(nop_ubin_find("libnopdemo", 0, helper("ufuncs-pie"), out, sizeof(out), &err), 0);
	assert_non_null(realpath(helper("libnopdemo.so"), want));
	assert_string_equal(out, want);
	/* the ld.so cache (or the default directories) */
	assert_int_equal(nop_ubin_find("libc", 0, NULL, out, sizeof(out), &err), 0);
	assert_non_null(strstr(out, "/libc.so.6"));
	/* a running process: its maps */
	assert_int_equal(nop_ubin_find("libc", getpid(), NULL, out, sizeof(out), &err), 0);
	assert_non_null(strstr(out, "/libc.so.6"));
	assert_int_equal(nop_ubin_find("libnosuchthing", getpid(), NULL, out, sizeof(out), &err), -1);
	assert_int_equal(err.status, NOP_EUSAGE);
	/* a static command loads none */
	assert_int_equal(nop_ubin_find("libc", 0, helper("ufuncs-static"), out, sizeof(out), &err), -1);
	assert_non_null(strstr(err.msg, "statically linked"));
}

static struct nop_event uev(enum nop_ev_type t, int pid, unsigned long long key, unsigned long long ts)
{
	return (struct nop_event){ .type = t, .pid = pid, .ip = NOP_UKEY | key, .ts = ts, .depth = -1 };
}

static bool root_is_2(void *ctx, unsigned long long key)
{
	return key == (NOP_UKEY | 2);
}

/* what nop_ucalls_place emitted for one event */
struct placed {
	struct nop_event v[8];
	int n;
};

static int collect(void *ctx, struct nop_event *ev)
{
	struct placed *pl = ctx;

	assert_true(pl->n < 8);
	pl->v[pl->n++] = *ev;
	return 0;
}

/* e placed: 1 if nothing came out, else 0 and e the last event out */
static int place_one(struct nop_ucalls *u, struct nop_event *e, struct placed *pl)
{
	pl->n = 0;
	assert_int_equal(nop_ucalls_place(u, e, collect, pl), 0);
	if (!pl->n)
		return 1;
	*e = pl->v[pl->n - 1];
	return 0;
}

static struct placed placed_;
#define nop_ucalls_place(u, e) place_one((u), (e), &placed_)

static void user_calls_placed(void **state)
{
	struct nop_ucalls *u = nop_ucalls_new(NULL, NULL);
	struct nop_event e;

	/* 1 { 2 { } } on task 10, 1 on task 11 in between */
	e = uev(NOP_EV_ENTRY, 10, 1, 100);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	e = uev(NOP_EV_ENTRY, 10, 2, 110);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 1);
	e = uev(NOP_EV_ENTRY, 11, 1, 115);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	e = uev(NOP_EV_EXIT, 10, 2, 130);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 1);
	assert_int_equal(e.calltime, 110);
	assert_int_equal(e.rettime, 130);
	e = uev(NOP_EV_EXIT, 10, 1, 150);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	assert_int_equal(e.calltime, 100);
	/* a return whose entry came before the probes: left out, counted */
	e = uev(NOP_EV_EXIT, 10, 7, 160);
	assert_int_equal(nop_ucalls_place(u, &e), 1);
	assert_int_equal(nop_ucalls_unmatched(u), 1);
	nop_ucalls_free(u);

	/* -D 2: calls two levels down are left out, their stack kept */
	u = nop_ucalls_new(NULL, NULL);
	nop_ucalls_max_depth(u, 2);
	for (int k = 0; k < 3; k++) {
		e = uev(NOP_EV_ENTRY, 10, (unsigned long long)k, 100 + (unsigned long long)k);
		assert_int_equal(nop_ucalls_place(u, &e), k >= 2);
	}
	for (int k = 2; k >= 0; k--) {
		e = uev(NOP_EV_EXIT, 10, (unsigned long long)k, 200 - (unsigned long long)k);
		assert_int_equal(nop_ucalls_place(u, &e), k >= 2);
		assert_true(k >= 2 || e.depth == k);
	}
	nop_ucalls_free(u);

	/* a recursion whose inner calls had no return probe (past the
	 * kernel's 64): the return goes to the call whose stack it pops */
	u = nop_ucalls_new(NULL, NULL);
	for (int k = 0; k < 3; k++) {
		e = uev(NOP_EV_ENTRY, 10, 5, 200 + (unsigned long long)k);
		e.usp = 1000 - 100 * (unsigned long long)k;
		assert_int_equal(nop_ucalls_place(u, &e), 0);
		assert_int_equal(e.depth, k);
	}
	e = uev(NOP_EV_EXIT, 10, 5, 300);
	e.usp = 1008; /* the outermost's */
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	assert_int_equal(e.calltime, 200);
	assert_false(e.unwound);
	/* the two inner ones, unwound first, innermost first, timed to it */
	assert_int_equal(placed_.n, 3);
	assert_true(placed_.v[0].unwound && placed_.v[1].unwound);
	assert_int_equal(placed_.v[0].depth, 2);
	assert_int_equal(placed_.v[0].calltime, 202);
	assert_int_equal(placed_.v[0].rettime, 300);
	assert_int_equal(placed_.v[1].depth, 1);
	nop_ucalls_free(u);

	/* roots: only calls inside 2, 2 at depth 0 */
	u = nop_ucalls_new(root_is_2, NULL);
	e = uev(NOP_EV_ENTRY, 10, 1, 100);
	assert_int_equal(nop_ucalls_place(u, &e), 1);
	e = uev(NOP_EV_ENTRY, 10, 2, 110);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	e = uev(NOP_EV_ENTRY, 10, 3, 120);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 1);
	e = uev(NOP_EV_EXIT, 10, 3, 125);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 1);
	e = uev(NOP_EV_EXIT, 10, 2, 130);
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	e = uev(NOP_EV_ENTRY, 10, 3, 140); /* outside the root again */
	assert_int_equal(nop_ucalls_place(u, &e), 1);
	e = uev(NOP_EV_EXIT, 10, 3, 141);
	assert_int_equal(nop_ucalls_place(u, &e), 1);
	e = uev(NOP_EV_EXIT, 10, 1, 150);
	assert_int_equal(nop_ucalls_place(u, &e), 1);
	assert_int_equal(nop_ucalls_unmatched(u), 0);
	nop_ucalls_free(u);
}

/* a child forked inside a root call: its calls from depth 0, the
 * parent's calls returning in it unseen and not counted; a thread's and a
 * child's forked outside every root: nothing; exec: the open calls end */
static void user_calls_fork_exec(void **state)
{
	struct nop_ucalls *u = nop_ucalls_new(root_is_2, NULL);
	struct nop_event e, f = { .type = NOP_EV_FORK, .pid = 10, .child = 11 };

	e = uev(NOP_EV_ENTRY, 10, 2, 100);
	e.usp = 1000;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(nop_ucalls_process(u, &f, collect, &placed_), 0);
	f.child = 12;
	f.thread = true;
	assert_int_equal(nop_ucalls_process(u, &f, collect, &placed_), 0);
	e = uev(NOP_EV_ENTRY, 11, 3, 110);
	e.usp = 900;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	e = uev(NOP_EV_EXIT, 11, 3, 120);
	e.usp = 908;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(e.depth, 0);
	e = uev(NOP_EV_EXIT, 11, 2, 130); /* the parent's root, returning in the child */
	e.usp = 1008;
	assert_int_equal(nop_ucalls_place(u, &e), 1);
	e = uev(NOP_EV_ENTRY, 12, 3, 140); /* the thread: outside every root */
	e.usp = 500;
	assert_int_equal(nop_ucalls_place(u, &e), 1);
	assert_int_equal(nop_ucalls_unmatched(u), 0);
	/* exec in the parent: its root call ends there, unwound */
	f = (struct nop_event){ .type = NOP_EV_EXEC, .pid = 10, .ts = 150 };
	placed_.n = 0;
	assert_int_equal(nop_ucalls_process(u, &f, collect, &placed_), 0);
	assert_int_equal(placed_.n, 1);
	assert_true(placed_.v[0].unwound);
	assert_int_equal(placed_.v[0].rettime, 150);
	assert_int_equal(placed_.v[0].ip, NOP_UKEY | 2);
	nop_ucalls_free(u);
}

/* main (sp 1000) -> outer (900) -> mid (800) -> jumper (700) longjmps to
 * main, which calls outer again (900): the three calls left are unwound
 * at that entry, innermost first. A tail call by an indirect jump: f
 * (600) jumps to g, whose entry (600) ends f; g's exit closes g. Two
 * calls that meet one exit at one stack pointer (the jump nopctl could
 * not see) both return there. */
static void user_calls_unwound(void **state)
{
	struct nop_ucalls *u = nop_ucalls_new(NULL, NULL);
	struct nop_event e;
	unsigned long long sps[] = { 1000, 900, 800, 700 };

	for (int k = 0; k < 4; k++) {
		e = uev(NOP_EV_ENTRY, 10, (unsigned long long)k + 1, 100 + (unsigned long long)k);
		e.usp = sps[k];
		assert_int_equal(nop_ucalls_place(u, &e), 0);
	}
	e = uev(NOP_EV_ENTRY, 10, 2, 200);
	e.usp = 900;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(placed_.n, 4);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(placed_.v[k].type, NOP_EV_EXIT);
		assert_true(placed_.v[k].unwound);
		assert_int_equal(placed_.v[k].ip, NOP_UKEY | (unsigned long long)(4 - k));
		assert_int_equal(placed_.v[k].depth, 3 - k);
		assert_int_equal(placed_.v[k].rettime, 200);
	}
	assert_int_equal(e.type, NOP_EV_ENTRY);
	assert_int_equal(e.depth, 1);
	/* outer (900) returns normally */
	e = uev(NOP_EV_EXIT, 10, 2, 210);
	e.usp = 908;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(placed_.n, 1);
	assert_false(e.unwound);
	assert_int_equal(e.calltime, 200);
	/* f (600 below main) enters g by a jump: g's exit ends both */
	e = uev(NOP_EV_ENTRY, 10, 6, 300);
	e.usp = 900;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	e = uev(NOP_EV_ENTRY, 10, 7, 310);
	e.usp = 900;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(placed_.n, 2); /* f ended at g's entry */
	assert_int_equal(placed_.v[0].ip, NOP_UKEY | 6);
	assert_int_equal(placed_.v[0].rettime, 310);
	e = uev(NOP_EV_EXIT, 10, 7, 320);
	e.usp = 908;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(placed_.n, 1);
	assert_int_equal(e.calltime, 310);
	assert_int_equal(e.depth, 1);
	/* main returns: nothing left open but it */
	e = uev(NOP_EV_EXIT, 10, 1, 400);
	e.usp = 1008;
	assert_int_equal(nop_ucalls_place(u, &e), 0);
	assert_int_equal(placed_.n, 1);
	assert_int_equal(e.depth, 0);
	assert_int_equal(nop_ucalls_unmatched(u), 0);
	nop_ucalls_free(u);
}

/* the return address of main's first call of target: the byte after a
 * call rel32 (e8) in main's code whose destination is target; on arm64
 * the word after a bl imm26 */
static unsigned long long return_address(const struct nop_usym *main_, const struct nop_usym *target,
					 const char *path)
{
	unsigned char code[512];
	size_t n = main_->size < sizeof(code) ? main_->size : sizeof(code);

	read_at(path, main_->offset, code, n);
#if defined(__aarch64__)
	for (size_t i = 0; i + 4 <= n; i += 4) {
		uint32_t w;

		memcpy(&w, code + i, 4);
		if ((w & 0xfc000000) == 0x94000000 &&
		    main_->vaddr + i + (long long)((int32_t)(w << 6) >> 6) * 4 == target->vaddr)
			return main_->vaddr + i + 4;
	}
#else
	for (size_t i = 0; i + 5 <= n; i++) {
		int32_t rel;

		memcpy(&rel, code + i + 1, 4);
		if (code[i] == 0xe8 && main_->vaddr + i + 5 + (long long)rel == target->vaddr)
			return main_->vaddr + i + 5;
	}
#endif
	return 0;
}

/* -F dot of user functions with debug info: the C++ call-graph article's
 * picture, from calls as the engine gives them (the process loaded the
 * program 0x1000 above its addresses) */
static void dot_with_debug_info(void **state)
{
	struct nop_ubin b;
	struct nop_uprobes u = { 0 };
	struct nop_error err;
	const char *parse = "ns::Parser::parse(int)";
	char *text = NULL, line[256];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct nop_resolver *res = nop_resolver_new(NULL, &err);
	struct nop_sink sink = { 0 };
	const unsigned long long bias = 0x1000;
	int src = 0;

	assert_int_equal(nop_ubin_load(helper("ucxx"), &b, &err), 0);
	assert_int_equal(nop_uprobes_add(&u, &b, "main", true, true, &err), 0);
	assert_int_equal(nop_uprobes_add(&u, &b, parse, true, true, &err), 0);
	nop_resolver_set_probes(res, &u);
	assert_int_equal(nop_sink_init(&sink, &(struct nop_sink_cfg){ .view = NOP_VIEW_DOT, .out = out,
			 .res = res }, &err), 0);
	unsigned long long kmain = NOP_UKEY | 0, kparse = NOP_UKEY | 2;
	unsigned long long ret = return_address(find(&b, "main"), find(&b, "_ZN2ns6Parser5parseEi"), b.path);
	unsigned long long path[2] = { kmain, kparse };
	struct nop_gitem enter = { .kind = NOP_GI_ENTER, .func = kmain, .path = path, .npath = 1,
				   .uip = u.v[0].vaddr + bias };
	struct nop_gitem leaf = { .kind = NOP_GI_LEAF, .func = kparse, .path = path, .npath = 2, .depth = 1,
				  .timed = true, .duration = 1000, .uip = u.v[2].vaddr + bias,
				  .ucaller = ret + bias };
	struct nop_gitem back = enter;

	assert_true(ret != 0);
	back.kind = NOP_GI_RETURN;
	back.timed = true;
	assert_int_equal(sink.ops->graph(&sink, &enter), 0);
	assert_int_equal(sink.ops->graph(&sink, &leaf), 0);
	assert_int_equal(sink.ops->graph(&sink, &leaf), 0);
	assert_int_equal(sink.ops->graph(&sink, &back), 0);
	assert_int_equal(sink.ops->summary(&sink, &(struct nop_summary){ .exit_status = -1 }), 0);
	fclose(out);
	/* the line of the call in the source, found by its text */
	FILE *f = fopen("progs/ucxx.cpp", "r");
	assert_non_null(f);
	for (int l = 1; fgets(line, sizeof(line), f); l++)
		if (strstr(line, "p.parse((int)i)"))
			src = l;
	fclose(f);
	snprintf(line, sizeof(line), "\"main\" -> \"%s\" [label=\"#1 at ucxx.cpp:%d\", color=green", parse, src);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line), "\"main\" -> \"%s\" [label=\"#2 at ucxx.cpp:%d\", color=red", parse, src);
	assert_non_null(strstr(text, line));
	assert_non_null(strstr(text, "subgraph \"cluster_0\" {\n\t\tlabel=\"tests/progs/ucxx.cpp\""));
	assert_non_null(strstr(text, "[label=\"11:ns::Parser::parse(int)\\n2 calls"));
	/* and Graphviz draws it */
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "dot -Tsvg > /dev/null");
	FILE *dot = popen(cmd, "w");
	assert_non_null(dot);
	fputs(text, dot);
	assert_int_equal(pclose(dot), 0);
	nop_sink_free(&sink);
	nop_resolver_free(res);
	nop_uprobes_free(&u);
	nop_ubin_free(&b);
	free(text);
}

/* why: the return statements of a source that could give a value */
static unsigned char how[8];

static size_t returns_of(const char *text, int decl, long long v, bool ptr, int *at)
{
	return nop_src_returns(text, decl, v, ptr, at, how, 8);
}

static void source_returns(void **state)
{
	static const char src[] = "int other(void) { return -1; }\n" /* 1: not the function */
				  "/* return -1; in a comment */\n"
				  "int f(int x)\n"			/* 3 */
				  "{\n"
				  "\tif (x == 1)\n"
				  "\t\treturn -1; // the first\n"	/* 6 */
				  "\tif (x == 2)\n"
				  "\t\treturn -ENOENT;\n"		/* 8 */
				  "\tif (x == 3) {\n"
				  "\t\tputs(\"return -1;\");\n"	/* 10: a string */
				  "\t\treturn x ? -3 : 1;\n"		/* 11: computes */
				  "\t}\n"
				  "\treturn 0;\n"			/* 13 */
				  "}\n"
				  "int after(void) { return -1; }\n";
	static const char ptr[] = "char *g(int x)\n{\n\tif (x)\n\t\treturn NULL;\n\treturn table;\n}\n"
				  "int *h(int i)\n{\n\tif (i > 3)\n\t\treturn nullptr;\n\treturn &slots[i];\n}\n";
	int at[8];

	(void)state;
	assert_int_equal(returns_of(src, 3, -1, false, at), 2); /* the constant, and the one that computes */
	assert_int_equal(at[0], 6);
	assert_int_equal(at[1], 11);
	assert_true(how[0] == NOP_SRC_LITERAL && how[1] == 0);
	assert_int_equal(returns_of(src, 3, -2, false, at), 2); /* -ENOENT by its name */
	assert_int_equal(at[0], 8);
	assert_int_equal(returns_of(src, 3, 0, false, at), 2);
	assert_int_equal(at[1], 13);
	assert_int_equal(returns_of(src, 3, -7, false, at), 1); /* only the one that computes */
	assert_int_equal(at[0], 11);
	assert_int_equal(returns_of(src, 1, -1, false, at), 1); /* other() alone */
	assert_int_equal(returns_of(src, 20, -1, false, at), 0); /* past the text */
	assert_int_equal(returns_of(ptr, 1, 0, true, at), 2);	 /* NULL, and a name that may be NULL */
	assert_int_equal(at[0], 4);
	assert_int_equal(returns_of(ptr, 7, 0, true, at), 2);	 /* nullptr */
	assert_int_equal(at[0], 10);
	/* a return that calls: it may pass on what the call gave */
	assert_int_equal(returns_of("int f(char *p)\n{\n\tif (!p)\n\t\treturn -1;\n\treturn open (p, 0);\n}\n",
				    1, -1, false, at), 2);
	assert_true(how[0] == NOP_SRC_LITERAL && how[1] == NOP_SRC_CALL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offsets_hold_code),
		cmocka_unit_test(library_offset_is_the_loaders),
		cmocka_unit_test(aliases_probed_once),
		cmocka_unit_test(no_return_probe_at_entry_point),
		cmocka_unit_test(exits_by_what_a_function_reaches),
		cmocka_unit_test(cxx_names_demangled),
		cmocka_unit_test(bad_binaries_said),
		cmocka_unit_test(patterns_split),
		cmocka_unit_test(libraries_found_as_the_loader_would),
		cmocka_unit_test(user_calls_placed),
		cmocka_unit_test(user_calls_unwound),
		cmocka_unit_test(user_calls_fork_exec),
		cmocka_unit_test(dot_with_debug_info),
		cmocka_unit_test(source_returns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

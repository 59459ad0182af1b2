/* test_tracedat.c - trace.dat written from recorded pages is read by
 * trace-cmd report (a peer) and by nopctl report, with the same counts
 * as the kernel's own view of the capture. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"
#include "../../lib/arch/arch.h"

static const char *const kernels[] = { "fixtures/6.1", "fixtures/6.12" };
static bool dat_v6; /* files written as version 6, uncompressed */

/* a capture's pages written to out, each CPU's times over, each page
 * first given to edit (if not NULL), which returns 1 if it changed it;
 * returns how many it changed */
static int write_dat_edited(const char *kdir, const char *capture, const char *out, int times,
			    int (*edit)(unsigned char *page, int ps))
{
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kdir, &err);
	int ps = nop_decoder_page_size(d), edited = 0;
	char *page = malloc((size_t)ps), path[256], ks[256];
	struct nop_dat *w = NULL;

	snprintf(ks, sizeof(ks), "%s/kallsyms", kdir);
	assert_int_equal(nop_dat_open(&w, out, true, kdir, ks, ps, &err), 0);
	if (dat_v6)
		nop_dat_describe(w, &(struct nop_dat_desc){ .uncompressed = true });
	for (int cpu = 0; cpu < 2; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/cpu%d.raw", kdir, capture, cpu);
		assert_non_null(f = fopen(path, "r"));
		for (int i = 0; i < times; i++) {
			rewind(f);
			while (fread(page, 1, (size_t)ps, f) == (size_t)ps) {
				edited += edit ? edit((unsigned char *)page, ps) : 0;
				assert_int_equal(nop_dat_page(w, cpu, page, (size_t)ps), 0);
			}
		}
		fclose(f);
	}
	assert_true(nop_dat_count_pages(d, w, NULL, NULL, &err) >= 0); /* the symbols its events name */
	assert_int_equal(nop_dat_finish(w, &err), 0);
	nop_dat_free(w, true);
	free(page);
	nop_decoder_free(d);
	return edited;
}

static void write_dat_times(const char *kdir, const char *capture, const char *out, int times)
{
	write_dat_edited(kdir, capture, out, times, NULL);
}

static void write_dat(const char *kdir, const char *capture, const char *out)
{
	write_dat_times(kdir, capture, out, 1);
}

/* the number a shell pipeline prints */
static long count(const char *fmt, ...)
{
	char cmd[1024], buf[64] = "";
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	assert_non_null(fgets(buf, sizeof(buf), p));
	pclose(p);
	return atol(buf);
}

static const char *nopctl(void)
{
	const char *b = getenv("NOPCTL_BIN");

	return b ? b : "../build/nopctl";
}

/* A capture of each kernel written as a trace.dat: trace-cmd report and
 * nopctl report (ours: a command printing one count) find as many calls
 * as the kernel's own view of it (kernel: grep for them in trace.txt),
 * at least min of them. */
static void roundtrip(const char *capture, const char *kernel_grep, const char *peer_grep,
		      const char *ours, long min)
{
	for (size_t k = 0; k < 4; k++) {
		const char *dat = "/tmp/nopctl-test-roundtrip.dat";
		long kernel;

		dat_v6 = k >= 2; /* version 7 (zstd), then 6 */
		write_dat(kernels[k % 2], capture, dat);
		kernel = count("grep -c '%s' %s/%s/trace.txt", kernel_grep, kernels[k % 2], capture);
		assert_true(kernel >= min);
		assert_int_equal(count("trace-cmd report %s 2>/dev/null | grep -c '%s'", dat, peer_grep), kernel);
		assert_int_equal(count(ours, nopctl(), dat), kernel);
		assert_int_equal(count("head -c 11 %s | tail -c 1", dat), dat_v6 ? 6 : 7);
		unlink(dat);
	}
	dat_v6 = false;
}

static void function_capture_roundtrip(void **state)
{
	roundtrip("stack", ": do_sys_openat2 <-", "function: *do_sys_openat2",
		  "%s report -j %s | grep -c '\"type\":\"func\"'", 40);
	/* stacks travel too */
	roundtrip("stack", ": do_sys_openat2 <-", "function: *do_sys_openat2",
		  "%s report -j %s | grep -c '\"stack\":\\[\"\\[FTRACE TRAMPOLINE\\]\\|\"stack\":\\[\"0x'", 40);
}

static void graph_capture_roundtrip(void **state)
{
	roundtrip("graph", "do_sys_openat2() {", "do_sys_openat2() {",
		  "%s report --stats -j %s | jq 'select(.func == \"do_sys_openat2\") | .calls'", 20);
}

/* The machine a file was recorded on, which its user calls pair by:
 * trace-cmd's UNAME option, in trace-cmd's files (arm64's 3.1.6 in the
 * arm64 guest) and in nopctl's, whose machine is this one's. */
static void machine_from_the_file(void **state)
{
	const char *dat = "/tmp/nopctl-test-machine.dat";
	struct nop_dat_in *in = NULL;
	struct nop_error err;
	struct utsname u;

	assert_int_equal(nop_dat_in_open(&in, "fixtures/tracecmd-arm64/3.1.6-date.dat", &err), 0);
	assert_string_equal(in->machine, "aarch64");
	nop_dat_in_free(in);
	assert_int_equal(nop_arch_ret_pops("aarch64"), 0);
	assert_int_equal(nop_arch_ret_pops("x86_64"), 8);
	assert_int_equal(nop_arch_ret_pops("riscv64"), -1);
	for (int v6 = 0; v6 < 2; v6++) {
		dat_v6 = v6;
		write_dat(kernels[0], "graph", dat);
		assert_int_equal(nop_dat_in_open(&in, dat, &err), 0);
		assert_int_equal(uname(&u), 0);
		assert_string_equal(in->machine, u.machine);
		assert_int_equal(count("trace-cmd dump --options %s 2>/dev/null | grep -c '^%s %s %s %s$'", dat,
				       u.sysname, u.nodename, u.release, u.machine), 1);
		nop_dat_in_free(in);
		unlink(dat);
	}
	dat_v6 = false;
}

/* A compressed file whose CPUs' data outrun the reader's window (read
 * 64 KB at a time; tracedat_pages.c): trace-cmd's conversion of a
 * 6,000-page file nopctl wrote to version 7 with zstd reads as the file it
 * came from, chunks cut by the window's edge included. */
static void compressed_data_larger_than_a_window(void **state)
{
	const char *v6 = "/tmp/nopctl-test-w6.dat", *v7 = "/tmp/nopctl-test-w7.dat";
	struct stat sb;

	dat_v6 = true;
	write_dat_times(kernels[1], "graph", v6, 1000);
	dat_v6 = false;
	/* trace-cmd convert refused nopctl's files (no options section) */
	assert_int_equal(count("trace-cmd convert -i %s --file-version 7 --compression zstd %s"
			       " >/dev/null 2>&1; echo $?", v6, v7), 0);
	assert_int_equal(stat(v7, &sb), 0);
	assert_true(sb.st_size > 4 * 256 * 1024);
	/* each file read once: the same lines and summary, and many of them */
	assert_int_equal(count("%s report %s > /tmp/nopctl-test-w6.out 2>&1; %s report %s 2>&1 |"
			       " cmp -s - /tmp/nopctl-test-w6.out; echo $?", nopctl(), v6, nopctl(), v7), 0);
	assert_true(count("wc -l < /tmp/nopctl-test-w6.out") > 100000);
	unlink("/tmp/nopctl-test-w6.out");
	unlink(v6);
	unlink(v7);
}

/* issue 54 #7: pages compressed on the compressor's thread come back
 * whole, chunk by chunk, and its figures say what it wrote; a failure to
 * write is said at the wait and at every later batch */
static int collect(void *ctx, const char *raw, size_t len)
{
	FILE *f = ctx;

	return fwrite(raw, 1, len, f) == len ? 0 : -1;
}

static void compressor_roundtrip_and_failure(void **state)
{
	const char *tmp = "/tmp/nopctl-test-z.chunks";
	struct nop_zcpu c = { 0 };
	struct nop_zq *q = nop_zq_new(true);
	size_t total = 0, len = 16 * 4096;
	char *want = NULL, *got = NULL;
	size_t wantlen = 0, gotlen = 0;
	FILE *w = open_memstream(&want, &wantlen), *g = open_memstream(&got, &gotlen);
	int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0600);

	assert_non_null(q);
	assert_true(fd >= 0);
	for (int b = 0; b < 200; b++) {
		char *buf = malloc(len);

		for (size_t i = 0; i < len; i++)
			buf[i] = (char)((i / 64 + (size_t)b * 7) % 251);
		fwrite(buf, 1, len, w);
		total += len;
		assert_int_equal(nop_zq_push(q, fd, &c, buf, len), 0);
	}
	assert_int_equal(nop_zq_drain(q), 0);
	assert_int_equal(c.chunks, 200);
	assert_int_equal(c.raw, total);
	assert_int_equal(c.queued, 0);
	assert_int_equal((long long)lseek(fd, 0, SEEK_END), (long long)c.size);
	assert_true(c.size * 10 < total);
	assert_int_equal(nop_zchunks_each(fd, collect, g), 0);
	fclose(w);
	fclose(g);
	assert_int_equal(gotlen, wantlen);
	assert_memory_equal(got, want, wantlen);
	free(want);
	free(got);
	/* the queued estimated as the worst chunk, and a quarter more; with
	 * no chunk yet, as incompressible */
	assert_true(nop_zq_bound(q, total) >= c.size && nop_zq_bound(q, total) < total / 4);
	assert_true(nop_zq_bound(NULL, total) > total);
	/* a batch for a file that cannot be written: said at the wait, and
	 * by every later batch, not by a wait for the batches before it */
	unsigned long long before = nop_zq_mark(q);

	assert_int_equal(nop_zq_push(q, -1, &c, calloc(1, 4096), 4096), 0);
	assert_int_equal(nop_zq_drain(q), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(nop_zq_wait(q, before), 0);
	assert_int_equal(nop_zq_push(q, fd, &c, calloc(1, 4096), 4096), -1);
	assert_int_equal(c.queued, 0);
	nop_zq_free(q);
	close(fd);
	unlink(tmp);
}

/* issue 19 #14: a trace.dat keeps the symbols of the functions its events
 * name, not all of kallsyms (6.9 MB on 6.12: a 7-event recording was 8.8
 * MB); an address inside a function keeps that function's line, and
 * the next function's, which readers take as its end */
static void only_named_symbols_kept(void **state)
{
	const char ks[] = "ffffffff81000000 T _stext\n"
			  "ffffffff81000100 t helper\n"
			  "ffffffff81000200 D some_data\n"
			  "ffffffff81000300 T do_sys_openat2\n"
			  "ffffffff81000400 W weak_one\n"
			  "ffffffffc0000000 t mod_func\t[mod]\n"
			  "ffffffffc0000100 t mod_other\t[mod]";
	struct nop_addrset set = { 0 };
	size_t len;
	char *sub;

	assert_int_equal(nop_addrset_add(&set, 0xffffffff81000110ULL), 0); /* in helper */
	assert_int_equal(nop_addrset_add(&set, 0xffffffff81000300ULL), 0);
	assert_int_equal(nop_addrset_add(&set, 0xffffffff81000300ULL), 0); /* once */
	assert_int_equal(nop_addrset_add(&set, 0xffffffffc0000104ULL), 0); /* the last line */
	for (unsigned long long a = 1; a < 5000; a++) /* the set grows */
		assert_int_equal(nop_addrset_add(&set, 0xffffffff81000300ULL + a * 0x1000000000ULL), 0);
	assert_int_equal(set.n, 3 + 4999);
	sub = nop_kallsyms_subset(ks, sizeof(ks) - 1, &set, &len);
	assert_non_null(sub);
	assert_true(len > 0 && sub[len - 1] == '\n');
	sub[len - 1] = 0; /* the last line's newline, for the comparison */
	/* each with the next function, its end for a reader */
	assert_string_equal(sub, "ffffffff81000100 t helper\n"
				 "ffffffff81000300 T do_sys_openat2\n"
				 "ffffffff81000400 W weak_one\n"
				 "ffffffffc0000100 t mod_other\t[mod]");
	free(sub);
	nop_addrset_free(&set);
}

/* A trace.dat holds root's /proc/kallsyms (the KASLR layout): only its
 * owner may read it, as the symbol cache */
static void tracedat_is_private(void **state)
{
	const char *dat = "/tmp/nopctl-test-private.dat";
	struct stat st;

	write_dat(kernels[0], "stack", dat);
	assert_int_equal(stat(dat, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	unlink(dat);
}

static void not_a_tracedat(void **state)
{
	assert_int_equal(count("%s report /etc/passwd 2>/dev/null; echo $?", nopctl()), 2);
	assert_int_equal(count("%s report /nonexistent 2>/dev/null; echo $?", nopctl()), 2);
}

/* A trace.dat whose recorded event formats are damaged is refused with
 * the reason, before libtraceevent (which crashes on some) parses them;
 * a damaged page is a lost mark, not a crash (both found by fuzz_dat). */
static void damaged_tracedat(void **state)
{
	assert_int_equal(count("%s report ../fuzz/corpus/dat/regress-field-line 2>&1 | "
			       "grep -c 'the format of an event of ftrace is damaged'", nopctl()), 1);
	assert_int_equal(count("%s report ../fuzz/corpus/dat/regress-field-line >/dev/null 2>&1; echo $?",
			       nopctl()), 2);
	/* two CPUs claiming the same bytes (CPU 1's offset, at 26344, moved
	 * into CPU 0's pages): refused before any page is read */
	assert_int_equal(count("cp ../fuzz/corpus/dat/graph-6.12.dat /tmp/nopctl-test-ov.dat;"
			       " printf '\\000\\200\\000\\000\\000\\000\\000\\000' |"
			       " dd of=/tmp/nopctl-test-ov.dat bs=1 seek=26344 conv=notrunc 2>/dev/null;"
			       " %s report /tmp/nopctl-test-ov.dat 2>&1 >/dev/null | grep -c \"damaged: its CPUs' data overlap\";"
			       " rm -f /tmp/nopctl-test-ov.dat", nopctl()), 1);
	/* a damaged format of an event nopctl does not decode is not parsed */
	assert_int_equal(count("%s report ../fuzz/corpus/dat/regress-print-fmt >/dev/null 2>&1; echo $?",
			       nopctl()), 0);
	/* the seed itself reads whole: as many roots as trace-cmd report shows */
	assert_int_equal(count("%s report ../fuzz/corpus/dat/graph-6.12.dat 2>&1 | grep -c 'do_sys_openat2() {'",
			       nopctl()),
			 count("trace-cmd report ../fuzz/corpus/dat/graph-6.12.dat 2>/dev/null | "
			       "grep -c 'do_sys_openat2() {'"));
}

/* The address space a report may use; an ASan build maps terabytes of
 * shadow memory at start, which any such limit refuses (the bound is
 * checked by the plain build) */
#if defined(__SANITIZE_ADDRESS__)
#define MEMORY_BOUND ""
#else
#define MEMORY_BOUND "ulimit -v 400000;"
#endif

/* issue 13 #6, #7: hostile files (a 4-byte-word file with a CPU offset
 * past its end once crashed libtracecmd, which read what nopctl's reader
 * declined; fuzz_report found one that crashed inside its clean-up) are
 * read as far as they make sense, as a file cut short is: the first up to
 * its end (its CPU 1 lies past it), the second's pages are damaged, each
 * said as a loss (exit 5). CPUs claiming data past the end cost nothing:
 * 4,094 of them took 1 GB before (run here within 400 MB). */
static void hostile_files_refused(void **state)
{
	assert_int_equal(count("%s report ../fuzz/corpus/dat/regress-word4-cpu-offset 2>&1 | "
			       "grep -c '21 events'", nopctl()), 1);
	assert_int_equal(count("%s report ../fuzz/corpus/dat/regress-tracecmd-close-crash >/dev/null 2>&1;"
			       " echo $?", nopctl()), 5);
	/* a sound file of that layout (words of 4 bytes in user space, a
	 * 64-bit kernel's pages) is read, as trace-cmd reads it */
	assert_int_equal(count("%s report ../fuzz/corpus/dat/tracecmd-word4 2>&1 >/dev/null | grep -c '42 events'",
			       nopctl()), 1);
	/* issue 13 #10: an output that fails is said once, exit 1 */
	assert_int_equal(count("%s report ../fuzz/corpus/dat/stack-6.1.dat 2>&1 >/dev/full | grep -c .",
			       nopctl()), 1);
	assert_int_equal(count("%s report ../fuzz/corpus/dat/stack-6.1.dat >/dev/full 2>/dev/null; echo $?",
			       nopctl()), 1);
	assert_int_equal(count("%s %s report ../fuzz/corpus/dat/regress-cpus-past-end 2>/dev/null |"
			       " grep -c 'do_sys_openat2() {'", MEMORY_BOUND, nopctl()), 22);
}

/* trace-cmd 3.4's default layout (version 7, zstd) damaged three ways:
 * cut short (its options, written last, are gone: refused), a chunk whose
 * stated size is not what it decompresses to (refused, exit 2), and bytes
 * of a chunk changed (zstd frames carry no checksum there: the pages it
 * gives are damaged, each a loss, exit 5). CPU 1's data starts at 8192
 * with its chunk count, then the first chunk's sizes (40960 bytes). */
static void damaged_compressed_tracedat(void **state)
{
	const char *f = "../tests/fixtures/tracecmd/3.4-graph-zstd.dat", *t = "/tmp/nopctl-test-z.dat";

	assert_int_equal(count("head -c 15000 %s > %s; %s report %s 2>&1 >/dev/null |"
			       " grep -c 'damaged: a section lies past its end'", f, t, nopctl(), t), 1);
	assert_int_equal(count("cp %s %s; printf '\\000\\260\\000\\000' | dd of=%s bs=1 seek=8200 conv=notrunc"
			       " 2>/dev/null; %s report %s 2>&1 >/dev/null | grep -c 'chunk does not decompress'",
			       f, t, t, nopctl(), t), 1);
	assert_int_equal(count("%s report %s >/dev/null 2>&1; echo $?", nopctl(), t), 2);
	assert_int_equal(count("cp %s %s; head -c 64 /dev/zero | dd of=%s bs=1 seek=12400 conv=notrunc 2>/dev/null;"
			       " %s report %s >/dev/null 2>&1; echo $?", f, t, t, nopctl(), t), 5);
	unlink(t);
}

/* issue 54 #18: pages whose headers each claim LLONG_MAX events missed
 * (bits 31 and 30 of the commit word: missed, count stored after the data)
 * add up to no more than LLONG_MAX, never to a negative count (their
 * sum once wrapped: "lost -8576977197331513249") */
static int claim_most_lost(unsigned char *page, int ps)
{
	unsigned long long commit, most = 0x7fffffffffffffffULL;

	memcpy(&commit, page + 8, 8);
	if ((commit & 0x7ffffffULL) + 16 + 8 > (unsigned long long)ps)
		return 0; /* no room after the data for the count */
	memcpy(page + 16 + (commit & 0x7ffffffULL), &most, 8);
	commit |= 3ULL << 30;
	memcpy(page + 8, &commit, 8);
	return 1;
}

static void crafted_lost_counts_saturate(void **state)
{
	const char *t = "/tmp/nopctl-test-lost.dat";

	assert_true(write_dat_edited("fixtures/6.1", "graph", t, 1, claim_most_lost) >= 2);
	assert_int_equal(count("%s report %s >/dev/null 2>&1; echo $?", nopctl(), t), 5);
	assert_int_equal(count("%s report -j %s 2>/dev/null | grep -c '\"lost\":9223372036854775807[,}]'",
			       nopctl(), t), 1);
	assert_int_equal(count("%s report %s 2>&1 >/dev/null | grep -c 'lost 9223372036854775807 '",
			       nopctl(), t), 1);
	unlink(t);
}

/* issue 54 #14, #16: a file takes its name only once whole (nothing
 * under it before nop_dat_finish); the temporary names a nopctl killed
 * between naming and renaming left (.NAME.nopctl-part[-XXXXXX].TAG) are
 * removed by the next one writing there: regular files of a nopctl gone,
 * hidden, of this PID namespace; nothing else */
/* a test walk: a page's header time as its events' last (the span's
 * floor needs no more) */
static int walk_by_header(void *ctx, int cpu, void *page, struct nop_dat_counts *c, struct nop_addrset *syms)
{
	unsigned long long ts;

	(void)ctx;
	(void)cpu;
	(void)syms;
	memcpy(&ts, page, sizeof(ts));
	if (!c->first_ts || ts < c->first_ts)
		c->first_ts = ts;
	if (ts > c->last_ts)
		c->last_ts = ts;
	return 0;
}

/* hands on n pages of cpu whose headers say from, from + 10, ... */
static void hand_pages(struct nop_dat *w, int cpu, char *page, size_t ps, unsigned long long from, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned long long ts = from + 10ULL * (unsigned long long)i;

		memcpy(page, &ts, sizeof(ts));
		assert_int_equal(nop_dat_page(w, cpu, page, ps), 0);
	}
}

/* the complete span a file of a rotation says it has */
static void span_of(const char *path, unsigned long long *from, unsigned long long *to)
{
	struct nop_dat_in *in = NULL;
	struct nop_error err;

	assert_int_equal(nop_dat_in_open(&in, path, &err), 0);
	*from = in->complete_from;
	*to = in->complete_to;
	nop_dat_in_free(in);
}

/* A rotation's CPUs are cut as each is handed on: a file claims every
 * CPU's events only between the latest of their starts and the earliest
 * of their ends. A CPU with no page in a file bounds it too: CPU 1's
 * pages from file 1's time, handed on after the cut (a later round,
 * a CPU later in the round), put file 1's end at CPU 1's last time known
 * (read empty before any page); CPU 1's pages in file 1 later than file
 * 2's first put file 2's beginning after them. */
static void rotation_span_bounded_by_every_cpu(void **state)
{
	char dir[] = "/tmp/nopctl-test-span-XXXXXX", base[256], path[300], ks[256];
	const char *kdir = kernels[1];
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kdir, &err);
	size_t ps = (size_t)nop_decoder_page_size(d);
	char *page = calloc(1, ps);
	unsigned long long from, to;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/graph/cpu0.raw", kdir);
	assert_non_null(f = fopen(path, "r"));
	assert_int_equal(fread(page, 1, ps, f), ps);
	fclose(f);
	snprintf(ks, sizeof(ks), "%s/kallsyms", kdir);
	assert_non_null(mkdtemp(dir));
	for (int order = 0; order < 2; order++) {
		struct nop_dat *w = NULL;

		snprintf(base, sizeof(base), "%s/r%d.dat", dir, order);
		snprintf(path, sizeof(path), "%s.1", base);
		assert_int_equal(nop_dat_open(&w, path, false, kdir, ks, (int)ps, &err), 0);
		nop_dat_describe(w, &(struct nop_dat_desc){ .uncompressed = true });
		assert_int_equal(nop_dat_bound(w, base, 1 << 20, true, 0, false, &err), 0);
		nop_dat_walk_with(w, walk_by_header, NULL);
		nop_dat_cpu_empty(w, 0); /* the first round's reads: nothing yet */
		nop_dat_cpu_empty(w, 1);
		if (order == 1) /* CPU 1 first, later than all of CPU 0 */
			hand_pages(w, 1, page, ps, 5000, 10);
		hand_pages(w, 0, page, ps, 1000, 300); /* past one file: a cut */
		if (order == 0) /* CPU 1 after the cut, from file 1's time */
			hand_pages(w, 1, page, ps, 1005, 10);
		nop_dat_wait(w);
		assert_int_equal(nop_dat_finish(w, &err), 0);
		nop_dat_free(w, true);
		snprintf(path, sizeof(path), "%s.1", base);
		span_of(path, &from, &to);
		if (order == 0)
			assert_true(to && to <= 1005);
		snprintf(path, sizeof(path), "%s.2", base);
		span_of(path, &from, &to);
		if (order == 1)
			assert_true(from >= 5090);
	}
	assert_int_equal(count("rm -rf %s; echo 0", dir), 0);
	free(page);
	nop_decoder_free(d);
}

/* A catch file is a slice of the pages each CPU kept: a busy CPU's ring
 * begins after the slice's from and holds its newest pages only. The file
 * says it is whole from the latest of the CPUs' first events to the
 * earliest of their last, so that a call it cuts is no loss to report. */
static void catch_file_span_bounded_by_every_cpu(void **state)
{
	char dir[] = "/tmp/nopctl-test-excerpt-XXXXXX", path[300], ks[256];
	const char *kdir = kernels[1];
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kdir, &err);
	size_t ps = (size_t)nop_decoder_page_size(d);
	struct nop_pagering *r = nop_pagering_new(2, ps, 4);
	char *page = calloc(1, ps);
	struct nop_dat *w = NULL;
	unsigned long long from, to;

	(void)state;
	snprintf(ks, sizeof(ks), "%s/kallsyms", kdir);
	assert_non_null(mkdtemp(dir));
	/* CPU 0: 10 pages from 1000, the ring keeps 1060-1090; CPU 1: two
	 * pages from 900, both kept, the second ending at 1100 */
	for (int i = 0; i < 10; i++) {
		assert_int_equal(nop_pagering_put(r, 0, page, ps), 0);
		nop_pagering_span(r, 0, 1000 + 10ULL * (unsigned long long)i, 1009 + 10ULL * (unsigned long long)i);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(nop_pagering_put(r, 1, page, ps), 0);
		nop_pagering_span(r, 1, 900 + 100ULL * (unsigned long long)i, 1000 + 100ULL * (unsigned long long)i);
	}
	snprintf(path, sizeof(path), "%s/catch-0001.dat", dir);
	assert_int_equal(nop_dat_open(&w, path, false, kdir, ks, (int)ps, &err), 0);
	nop_dat_describe(w, &(struct nop_dat_desc){ .uncompressed = true });
	assert_int_equal(nop_pagering_write(r, w, 950), 0); /* asked from 950 */
	assert_int_equal(nop_dat_finish(w, &err), 0);
	nop_dat_free(w, true);
	span_of(path, &from, &to);
	assert_int_equal(from, 1060); /* CPU 0's oldest kept page */
	assert_int_equal(to, 1099);   /* CPU 0's last event */
	assert_int_equal(count("rm -rf %s; echo 0", dir), 0);
	nop_pagering_free(r);
	free(page);
	nop_decoder_free(d);
}

static void whole_under_its_name_stale_parts_removed(void **state)
{
	char dir[] = "/tmp/nopctl-test-parts-XXXXXX", path[512], tag[64], dead[64], ks[256];
	const char *kdir = kernels[0];
	static const char *const gone[] = { ".r.dat.3.nopctl-part-AbC123.%s", ".r.dat.4.nopctl-part.%s" };
	static const char *const kept[] = { ".x.nopctl-part.%s", "y.nopctl-part.%s", ".l.nopctl-part.%s" };
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kdir, &err);
	struct nop_dat *w = NULL;
	struct stat st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0); /* a pid no process has now */
	nop_owner_tag(dead, sizeof(dead), pid);
	nop_owner_tag(tag, sizeof(tag), getpid());
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/", dir);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), gone[i], dead);
		fclose(fopen(path, "w"));
	}
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/", dir);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), kept[i], i ? dead : tag);
		if (i == 2)
			assert_int_equal(symlink("/etc/hostname", path), 0);
		else
			fclose(fopen(path, "w"));
	}
	snprintf(ks, sizeof(ks), "%s/kallsyms", kdir);
	snprintf(path, sizeof(path), "%s/r.dat.5", dir);
	assert_int_equal(nop_dat_open(&w, path, false, kdir, ks, nop_decoder_page_size(d), &err), 0);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(count("ls -A %s | wc -l", dir), 3);
	assert_int_equal(count("ls -A %s | grep -c '^\\.x\\.nopctl-part\\.%s$'", dir, tag), 1);
	assert_int_equal(nop_dat_finish(w, &err), 0);
	nop_dat_free(w, true);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(count("%s report %s >/dev/null 2>&1; echo $?", nopctl(), path), 0);
	assert_int_equal(count("ls -A %s | wc -l", dir), 4);
	assert_int_equal(count("rm -rf %s; echo 0", dir), 0);
	nop_decoder_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(function_capture_roundtrip), cmocka_unit_test(only_named_symbols_kept),
		cmocka_unit_test(machine_from_the_file),
		cmocka_unit_test(graph_capture_roundtrip), cmocka_unit_test(compressed_data_larger_than_a_window),
		cmocka_unit_test(tracedat_is_private), cmocka_unit_test(damaged_compressed_tracedat),
		cmocka_unit_test(crafted_lost_counts_saturate),
		cmocka_unit_test(compressor_roundtrip_and_failure),
		cmocka_unit_test(not_a_tracedat),
		cmocka_unit_test(damaged_tracedat),
		cmocka_unit_test(hostile_files_refused),
		cmocka_unit_test(whole_under_its_name_stale_parts_removed),
		cmocka_unit_test(rotation_span_bounded_by_every_cpu),
		cmocka_unit_test(catch_file_span_bounded_by_every_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_doctor.c - what doctor and inspect build on: kallsyms lookups (exact
 * name, compiler clones, the symbol at an address) on the symbols recorded
 * from 6.12, and reading kernel memory through an ELF core like
 * /proc/kcore (a small one written here). */
#include <ctype.h>
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

static void lookup_exact_and_clones(void **state)
{
	struct nop_error err;
	struct nop_ksym k;

	nop_kallsyms_path = "fixtures/6.12/kallsyms";
	assert_int_equal(nop_ksym_lookup("do_sys_openat2", &k, &err), 0);
	assert_true(k.found);
	assert_int_equal(k.type, 't');
	assert_true(k.addr == 0xffffffffbb242060ULL);
	assert_int_equal(k.nclones, 0);
	/* only the clone is in the kernel: doctor points at it */
	assert_int_equal(nop_ksym_lookup("getname_flags", &k, &err), 0);
	assert_false(k.found);
	assert_int_equal(k.nclones, 1);
	assert_string_equal(k.clones[0], "getname_flags.part.0");
	/* a prefix is not a clone: "do_sys_open" is not a clone of "do_sys_openat2" */
	assert_int_equal(nop_ksym_lookup("do_sys_open", &k, &err), 0);
	for (int i = 0; i < k.nclones; i++)
		assert_int_equal(strncmp(k.clones[i], "do_sys_open.", 12), 0);
	nop_kallsyms_path = "fixtures/no-such-file";
	assert_int_equal(nop_ksym_lookup("x", &k, &err), -1);
	nop_kallsyms_path = "/proc/kallsyms";
}

/* kallsyms' line format: a module's symbol, the last line without its
 * newline, and lines of other forms skipped */
static void kallsyms_lines(void **state)
{
	static const char text[] = "ffffffffc0a01000 t mod_fn\t[virtio_net]\n"
				   "garbage\n"
				   "ffffffff81000000 Tno_space\n"
				   "\n"
				   "ffffffff81000010 T _stext";
	const char *p = text, *end = text + sizeof(text) - 1;
	struct nop_kline l;

	assert_true(nop_kallsyms_line(&p, end, &l));
	assert_true(l.addr == 0xffffffffc0a01000ULL);
	assert_int_equal(l.type, 't');
	assert_int_equal(l.nlen, 6);
	assert_memory_equal(l.name, "mod_fn", 6);
	assert_int_equal(l.mlen, 10);
	assert_memory_equal(l.mod, "virtio_net", 10);
	assert_false(nop_kallsyms_line(&p, end, &l));
	assert_false(nop_kallsyms_line(&p, end, &l));
	assert_false(nop_kallsyms_line(&p, end, &l));
	assert_true(nop_kallsyms_line(&p, end, &l));
	assert_true(l.addr == 0xffffffff81000010ULL);
	assert_int_equal(l.nlen, 6);
	assert_memory_equal(l.name, "_stext", 6);
	assert_int_equal(l.mlen, 0);
	assert_true(p == end);
}

/* a line skipped before it is parsed (nop_kallsyms_skip_other) is one
 * the parse fails on or finds no text symbol in, and the next line is
 * the same; text symbols and lines it cannot judge are left to the parse */
static void kallsyms_other_lines_skipped(void **state)
{
	static const char *const lines[] = {
		"ffffffff82000000 d some_data\n",     /* skipped: data */
		"ffffffff82000000 r ro\tx\n",         /* skipped: read-only */
		"ffffffff82000000 b bss",              /* skipped: the last line */
		"zzzzzzzzzzzzzzzz D nothex\n",         /* skipped: the parse fails too */
		"ffffffff82000000 \n d x\n",           /* skipped: the type is the newline */
		"ffffffff81000000 T text_fn\n",        /* parsed: text */
		"ffffffff81000000 w weak_fn\n",        /* parsed: text */
		"x\nffffffff810000 d name\n",          /* parsed: a short line first */
		"ffff ffff8100000 d spaced\n",         /* parsed: a space among the digits */
		"ffffffff8100 d x\n",                  /* parsed: 32-bit form */
		"ffffffff82000000 d",                  /* parsed: too short to judge */
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *text = lines[i], *end = text + strlen(text), *p = text, *q = text;
		struct nop_kline l;
		bool skipped = nop_kallsyms_skip_other(&p, end);
		bool parsed = nop_kallsyms_line(&q, end, &l);

		assert_int_equal(skipped, i < 5);
		if (skipped) {
			assert_false(parsed && nop_ksym_is_text(l.type));
			assert_ptr_equal(p, q);
		} else {
			assert_ptr_equal(p, text);
		}
	}
}

/* the reference: kallsyms' address digit by digit, as the parser's slow path */
static bool ref_addr(const char *p, const char *nl, unsigned long long *addr, const char **after)
{
	const char *d = p;

	*addr = 0;
	for (; p < nl && isxdigit((unsigned char)*p); p++)
		*addr = *addr << 4 | (unsigned long long)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 32) - 'a' + 10);
	*after = p;
	return p != d && p + 3 <= nl && *p == ' ' && p[2] == ' ';
}

/* 16 digits are read 8 at a time: every hex digit in either case, and
 * a character just outside the hex ranges at every place, read as the
 * digit-by-digit reference reads them */
static void kallsyms_address_digits(void **state)
{
	static const char edge[] = "09afAF/:@G`g \t\x80\xff";
	char line[64];

	srand(7);
	for (int i = 0; i < 20000; i++) {
		int n = i % 3 ? 16 : 8 + rand() % 10;
		const char *p = line, *after;
		struct nop_kline l;
		unsigned long long want;
		bool ok;

		for (int k = 0; k < n; k++)
			line[k] = "0123456789abcdefABCDEF"[rand() % 22];
		if (i % 2)
			line[rand() % n] = edge[rand() % (sizeof(edge) - 1)];
		snprintf(line + n, sizeof(line) - (size_t)n, " T fn_%d\n", i);
		ok = ref_addr(line, strchr(line, '\n'), &want, &after);
		assert_int_equal(nop_kallsyms_line(&p, line + strlen(line), &l), ok);
		if (ok) {
			assert_true(l.addr == want);
			assert_ptr_equal(l.name, after + 3);
		}
	}
}

static void symbol_at_address(void **state)
{
	char name[128];
	unsigned long long off;

	nop_kallsyms_path = "fixtures/6.12/kallsyms";
	assert_int_equal(nop_ksym_at(0xffffffffbb242060ULL + 5, name, sizeof(name), &off), 0);
	assert_string_equal(name, "do_sys_openat2");
	assert_true(off == 5);
	assert_int_equal(nop_ksym_at(0x1000, name, sizeof(name), &off), -1);
	nop_kallsyms_path = "/proc/kallsyms";
}

/* an ELF64 core with one PT_LOAD: 64 bytes at vaddr 0xffffffff81000000 */
static void kcore_segments(void **state)
{
	char path[] = "/tmp/nopctl-kcore-XXXXXX";
	int fd = mkstemp(path);
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				       EV_CURRENT },
			  .e_type = ET_CORE, .e_machine = EM_X86_64, .e_phoff = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_offset = 4096, .p_vaddr = 0xffffffff81000000ULL,
			  .p_filesz = 64, .p_memsz = 64 };
	unsigned char text[64], buf[5];
	struct nop_error err;

	for (int i = 0; i < 64; i++)
		text[i] = (unsigned char)i;
	memcpy(text + 4, "\x0f\x1f\x44\x00\x00", 5);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), sizeof(eh));
	assert_int_equal(pwrite(fd, &ph, sizeof(ph), sizeof(eh)), sizeof(ph));
	assert_int_equal(pwrite(fd, text, sizeof(text), 4096), sizeof(text));
	close(fd);
	nop_kcore_path = path;
	assert_int_equal(nop_kcore_read(0xffffffff81000004ULL, buf, 5, &err), 0);
	assert_memory_equal(buf, "\x0f\x1f\x44\x00\x00", 5);
	/* past the segment's end, or outside any: an error naming the address */
	assert_int_equal(nop_kcore_read(0xffffffff8100003eULL, buf, 5, &err), -1);
	assert_non_null(strstr(err.msg, "not mapped"));
	assert_int_equal(nop_kcore_read(0x1000, buf, 5, &err), -1);
	unlink(path);
	assert_int_equal(nop_kcore_read(0xffffffff81000004ULL, buf, 5, &err), -1);
	assert_int_equal(err.status, NOP_EKERNEL);
	assert_non_null(strstr(err.msg, "CONFIG_PROC_KCORE"));
	nop_kcore_path = "/proc/kcore";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lookup_exact_and_clones),
		cmocka_unit_test(kallsyms_lines),
		cmocka_unit_test(kallsyms_other_lines_skipped),
		cmocka_unit_test(kallsyms_address_digits),
		cmocka_unit_test(symbol_at_address),
		cmocka_unit_test(kcore_segments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

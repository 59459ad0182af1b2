/* uwhy - 20 planted failures, the truth `nopctl why` is held to (issue
 * 58). Each case_NN() is a root called CALLS times (2 to 4: case NN % 3
 * + 2); every call but the first fails. A failure begins in one function
 * (its origin), at the line marked "origin NN" in these sources, and is
 * passed up unchanged, translated to another value, or returned through
 * one shared `ret`; NULL is a failure of a function returning a pointer.
 * Cases 11 and 12 begin in a shared library (uwhylib.c), 13 and 14 in C++
 * (uwhyxx.cpp), 19 in a thread, 20 in a forked child.
 * It prints, per case, "case NN calls C failed F origin FUNC", the truth
 * of its own runs. Built -O0 and -O2; noinline keeps every call a call,
 * and no failing call is in tail position (a tail call leaves its
 * caller before the callee runs: its value is not the caller's to give). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

int lib_open_config(int fail);
int lib_check(int fail);
int case_13(int fail);
int case_14(int fail);

volatile int sink;

/* 01: the root itself */
NOINLINE int case_01(int fail)
{
	sink++;
	if (fail)
		return -1; /* origin 01 */
	return 0;
}

/* 02: one level down, passed up unchanged */
NOINLINE int d2_inner(int fail)
{
	sink++;
	if (fail)
		return -2; /* origin 02 */
	return 0;
}

NOINLINE int case_02(int fail)
{
	int r = d2_inner(fail);

	sink += r;
	return r;
}

/* 03: two levels down */
NOINLINE int d3_leaf(int fail)
{
	sink++;
	return fail ? -3 : 1; /* origin 03 */
}

NOINLINE int d3_mid(int fail)
{
	int r = d3_leaf(fail);

	sink += r;
	return r < 0 ? r : 0;
}

NOINLINE int case_03(int fail)
{
	int r = d3_mid(fail);

	sink += r;
	return r;
}

/* 04: recursion, five deep; the deepest instance fails */
NOINLINE int rec4(int n, int fail)
{
	int r;

	sink++;
	if (n == 0) {
		if (fail)
			return -4; /* origin 04 */
		return 0;
	}
	r = rec4(n - 1, fail);
	sink += r;
	return r;
}

NOINLINE int case_04(int fail)
{
	int r = rec4(4, fail);

	sink += r;
	return r;
}

/* 05: translated: ENOENT below, EIO above */
NOINLINE int tr_inner(int fail)
{
	sink++;
	if (fail)
		return -ENOENT; /* origin 05 */
	return 0;
}

NOINLINE int case_05(int fail)
{
	int r = tr_inner(fail);

	sink += r;
	if (r < 0)
		return -EIO;
	return 0;
}

/* 06: a failure handled (h_try), then another passed up (h_real) */
NOINLINE int h_try(int fail)
{
	sink++;
	return fail ? -1 : 0;
}

NOINLINE int h_real(int fail)
{
	sink++;
	if (fail)
		return -6; /* origin 06 */
	return 0;
}

NOINLINE int case_06(int fail)
{
	int r = h_try(fail);

	if (r < 0)
		sink++; /* handled: tried another way */
	r = h_real(fail);
	sink += r;
	return r;
}

/* 07: NULL from a function returning a pointer, translated to -1 */
static char table[4] = "abc";

NOINLINE char *np_find(int fail)
{
	sink++;
	if (fail)
		return NULL; /* origin 07 */
	return table;
}

NOINLINE int case_07(int fail)
{
	char *p = np_find(fail);

	sink++;
	if (!p)
		return -1;
	return 0;
}

/* 08: NULL passed up through two pointer-returning functions */
NOINLINE char *np_alloc(int fail)
{
	sink++;
	if (fail)
		return NULL; /* origin 08 */
	return table + 1;
}

NOINLINE char *np_lookup(int fail)
{
	char *p = np_alloc(fail);

	sink++;
	return p;
}

NOINLINE char *case_08(int fail)
{
	char *p = np_lookup(fail);

	sink++;
	return p;
}

/* 09, 10: three error returns in one function (at -O2 one shared `ret`);
 * 09 takes the second, 10 the third */
NOINLINE int sr_check(int how)
{
	sink++;
	if (how == 1)
		return -11;
	if (how == 2)
		return -12; /* origin 09 */
	if (how == 3)
		return -13; /* origin 10 */
	return 0;
}

NOINLINE int case_09(int fail)
{
	int r = sr_check(fail ? 2 : 0);

	sink += r;
	return r;
}

NOINLINE int case_10(int fail)
{
	int r = sr_check(fail ? 3 : 0);

	sink += r;
	return r;
}

/* 11: in the shared library, passed up through it */
NOINLINE int case_11(int fail)
{
	int r = lib_open_config(fail);

	sink += r;
	return r;
}

/* 12: in the shared library, translated by the program */
NOINLINE int case_12(int fail)
{
	int r = lib_check(fail);

	sink += r;
	return r < 0 ? -12 : 0;
}

/* 15: after callees that succeeded (0 and a positive count) */
NOINLINE int ok_zero(void)
{
	sink++;
	return 0;
}

NOINLINE int ok_count(void)
{
	sink++;
	return 3;
}

NOINLINE int bad15(int fail)
{
	sink++;
	if (fail)
		return -15; /* origin 15 */
	return 0;
}

NOINLINE int case_15(int fail)
{
	int r = ok_zero() + ok_count();

	sink += r;
	r = bad15(fail);
	sink += r;
	return r;
}

/* 16: a failure in a callee's callee while a sibling succeeded */
NOINLINE int s16_ok(void)
{
	sink++;
	return 1;
}

NOINLINE int s16_bad(int fail)
{
	sink++;
	if (fail)
		return -16; /* origin 16 */
	return 0;
}

NOINLINE int s16_mid(int fail)
{
	int r = s16_ok();

	sink += r;
	r = s16_bad(fail);
	sink += r;
	return r;
}

NOINLINE int case_16(int fail)
{
	int r = s16_mid(fail);

	sink += r;
	return r;
}

/* 17: eight levels down */
NOINLINE int l8(int fail)
{
	sink++;
	if (fail)
		return -17; /* origin 17 */
	return 0;
}
#define LEVEL(name, below)                    \
	NOINLINE int name(int fail)           \
	{                                     \
		int r = below(fail);          \
		sink += r;                    \
		return r;                     \
	}
LEVEL(l7, l8)
LEVEL(l6, l7)
LEVEL(l5, l6)
LEVEL(l4, l5)
LEVEL(l3, l4)
LEVEL(l2, l3)
LEVEL(l1, l2)

NOINLINE int case_17(int fail)
{
	int r = l1(fail);

	sink += r;
	return r;
}

/* 18: the failing callee called in a loop; its third call fails */
NOINLINE int item18(int i, int fail)
{
	sink++;
	if (fail && i == 2)
		return -18; /* origin 18 */
	return 0;
}

NOINLINE int case_18(int fail)
{
	for (int i = 0; i < 5; i++) {
		int r = item18(i, fail);

		sink += r;
		if (r < 0)
			return r;
	}
	return 0;
}

/* 19: in a thread of its own */
NOINLINE int t19_leaf(int fail)
{
	sink++;
	if (fail)
		return -19; /* origin 19 */
	return 0;
}

NOINLINE int case_19(int fail)
{
	int r = t19_leaf(fail);

	sink += r;
	return r;
}

static void *t19_main(void *arg)
{
	sink += case_19((int)(long)arg);
	return NULL;
}

/* 20: in a forked child */
NOINLINE int f20_leaf(int fail)
{
	sink++;
	if (fail)
		return -20; /* origin 20 */
	return 0;
}

NOINLINE int case_20(int fail)
{
	int r = f20_leaf(fail);

	sink += r;
	return r;
}

static const char *origin[21] = { "",	  "case_01",	   "d2_inner", "d3_leaf",	 "rec4",
				  "tr_inner", "h_real",	   "np_find",  "np_alloc",	 "sr_check",
				  "sr_check", "lib_parse",    "lib_validate", "ns::Parser::parse(int)",
				  "ns::Store<int>::get(int)", "bad15", "s16_bad", "l8", "item18", "t19_leaf",
				  "f20_leaf" };

static int run(int k, int fail)
{
	pthread_t th;
	pid_t pid;
	int st;

	switch (k) {
	case 1: return case_01(fail) < 0;
	case 2: return case_02(fail) < 0;
	case 3: return case_03(fail) < 0;
	case 4: return case_04(fail) < 0;
	case 5: return case_05(fail) < 0;
	case 6: return case_06(fail) < 0;
	case 7: return case_07(fail) < 0;
	case 8: return case_08(fail) == NULL;
	case 9: return case_09(fail) < 0;
	case 10: return case_10(fail) < 0;
	case 11: return case_11(fail) < 0;
	case 12: return case_12(fail) < 0;
	case 13: return case_13(fail) < 0;
	case 14: return case_14(fail) < 0;
	case 15: return case_15(fail) < 0;
	case 16: return case_16(fail) < 0;
	case 17: return case_17(fail) < 0;
	case 18: return case_18(fail) < 0;
	case 19:
		if (pthread_create(&th, NULL, t19_main, (void *)(long)fail))
			exit(1);
		pthread_join(th, NULL);
		return fail; /* the thread's case fails when told to */
	case 20:
		if ((pid = fork()) < 0)
			exit(1);
		if (!pid)
			_exit(case_20(fail) < 0);
		waitpid(pid, &st, 0);
		return WIFEXITED(st) && WEXITSTATUS(st);
	}
	return 0;
}

int main(void)
{
	for (int k = 1; k <= 20; k++) {
		int calls = k % 3 + 2, failed = 0;

		for (int c = 0; c < calls; c++)
			failed += run(k, c > 0);
		printf("case %02d calls %d failed %d origin %s\n", k, calls, failed, origin[k]);
	}
	return 0;
}

/* ureal MODE N - C functions where real programs break tracers, each
 * counting its own calls and printing "calls NAME COUNT" lines at exit,
 * the truth a tracer's counts are held to (issue 39):
 *   recurse N  rec() N deep (past the kernel's 64 nested return probes)
 *   longjmp N  N times: outer() -> mid() -> jumper() longjmp back to main,
 *              leaving mid and jumper without their returns
 *   cold N     work() N times; every 4th takes its unlikely branch, which
 *              GCC moves to a work.cold fragment reached by a jump; and
 *              say("cold", i) N times (a string and an int, --args)
 *   lock N     lockfn() N times: its first instruction is one the kernel's
 *              uprobes refuse to probe (x86-64: a lock prefix)
 *   fork N     leaf() N times in the parent and N times in a child
 *   exec N     leaf() N times, then exec of itself, which calls it N times
 *   all N      each of the above
 * Built -O0 and -O2 (tests/tests.mk); noinline keeps every call a call. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static long n_rec, n_outer, n_mid, n_jumper, n_work, n_rare;
long n_lockfn, n_leaf, n_say;
static jmp_buf env;
static volatile int sink;

/* the first instruction is one uprobes refuse: x86-64's locks (a lock
 * prefix); arm64's reads a system register (MRS, but of DAIF), and an
 * exclusive load and store, refused too, count the call */
void lockfn(void);
#if defined(__aarch64__)
__asm__(".text\n"
	".globl lockfn\n"
	".type lockfn, %function\n"
	"lockfn:\n"
	"	mrs x16, tpidr_el0\n"
	"	adrp x16, n_lockfn\n"
	"	add x16, x16, :lo12:n_lockfn\n"
	"1:	ldxr x17, [x16]\n"
	"	add x17, x17, #1\n"
	"	stxr w15, x17, [x16]\n"
	"	cbnz w15, 1b\n"
	"	ret\n"
	".size lockfn, .-lockfn\n");
#else
__asm__(".text\n"
	".globl lockfn\n"
	".type lockfn, @function\n"
	"lockfn:\n"
	"	lock incq n_lockfn(%rip)\n"
	"	ret\n"
	".size lockfn, .-lockfn\n");
#endif

NOINLINE long rec(int n)
{
	n_rec++;
	return n <= 1 ? 1 : 1 + rec(n - 1) + (sink & 1);
}

NOINLINE void jumper(int i)
{
	n_jumper++;
	sink = i;
	longjmp(env, 1);
}

NOINLINE int mid(int i)
{
	n_mid++;
	jumper(i);
	return sink;
}

NOINLINE int outer(int i)
{
	n_outer++;
	return mid(i) + 1;
}

__attribute__((cold)) NOINLINE void rare(int x)
{
	n_rare++;
	fprintf(stderr, "rare %d\n", x);
}

NOINLINE int work(int x)
{
	n_work++;
	if (__builtin_expect(x % 4 == 3, 0)) {
		rare(x);
		sink += x;
		return -1;
	}
	return x * 2;
}

/* a string and an integer parameter (--args) */
NOINLINE int say(const char *what, int n)
{
	n_say++;
	return (int)strlen(what) + n + sink;
}

NOINLINE int leaf(int x)
{
	n_leaf++;
	return x + sink;
}

static void report(const char *who)
{
	printf("calls%s rec %ld\ncalls%s outer %ld\ncalls%s mid %ld\ncalls%s jumper %ld\n"
	       "calls%s work %ld\ncalls%s rare %ld\ncalls%s lockfn %ld\ncalls%s leaf %ld\ncalls%s say %ld\n",
	       who, n_rec, who, n_outer, who, n_mid, who, n_jumper, who, n_work, who, n_rare, who,
	       n_lockfn, who, n_leaf, who, n_say);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	int n = argc > 2 ? atoi(argv[2]) : 10, all = !strcmp(mode, "all");

	if (all || !strcmp(mode, "recurse"))
		rec(n);
	if (all || !strcmp(mode, "longjmp"))
		for (volatile int i = 0; i < n; i++)
			if (!setjmp(env))
				outer(i);
	if (all || !strcmp(mode, "cold"))
		for (int i = 0; i < n; i++)
			(void)(work(i) + say("cold", i));
	if (all || !strcmp(mode, "lock"))
		for (int i = 0; i < n; i++)
			lockfn();
	if (!strcmp(mode, "exec")) { /* leaf N times, then again in a new image */
		for (int i = 0; i < n; i++)
			leaf(i);
		printf("calls leaf %d\n", n);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "leafs", argv[2], (char *)NULL);
		return 127;
	}
	if (!strcmp(mode, "leafs"))
		for (int i = 0; i < n; i++)
			leaf(i);
	if (all || !strcmp(mode, "fork")) {
		pid_t c = fork();

		for (int i = 0; i < n; i++)
			leaf(i);
		if (c == 0) { /* what the child did itself */
			printf("calls child leaf %d\n", n);
			fflush(stdout);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	report("");
	return 0;
}

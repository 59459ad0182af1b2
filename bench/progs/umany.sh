#!/bin/sh
# umany.sh - writes umany.c: 10,000 functions f00000..f09999 (bench B6':
# start and stop of many probes; the globs f0000?, f000??, f00???, f0????
# name 10, 100, 1,000 and 10,000 of them), each called once through a
# table, with the time main starts and the time it is done on stderr
# ("main S.NS", "done S.NS", CLOCK_BOOTTIME: the clock of /proc/uptime).
n=10000
i=0
echo '#include <stdio.h>'
echo '#include <time.h>'
while [ $i -lt $n ]; do
	printf '__attribute__((noinline)) int f%05d(int x) { return x + %d; }\n' $i $i
	i=$((i + 1))
done
echo 'static int (*const tab[])(int) = {'
i=0
while [ $i -lt $n ]; do
	printf 'f%05d,\n' $i
	i=$((i + 1))
done
cat <<'MAIN'
};
static void stamp(const char *what)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	fprintf(stderr, "%s %lld.%09ld\n", what, (long long)t.tv_sec, t.tv_nsec);
}
int main(void)
{
	int s = 0;

	stamp("main");
	for (unsigned i = 0; i < sizeof(tab) / sizeof(*tab); i++)
		s += tab[i]((int)i);
	stamp("done");
	return s == 1;
}
MAIN

build-asan/lib/cpuset.o: lib/cpuset.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/util.o: lib/util.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/error.o: lib/error.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

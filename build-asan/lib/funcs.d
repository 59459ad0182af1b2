build-asan/lib/funcs.o: lib/funcs.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

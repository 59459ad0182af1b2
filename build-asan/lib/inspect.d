build-asan/lib/inspect.o: lib/inspect.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

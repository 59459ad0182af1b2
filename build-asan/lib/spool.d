build-asan/lib/spool.o: lib/spool.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/journal.o: lib/journal.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

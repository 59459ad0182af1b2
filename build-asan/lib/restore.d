build-asan/lib/restore.o: lib/restore.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

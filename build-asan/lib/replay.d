build-asan/lib/replay.o: lib/replay.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/mounts.o: lib/mounts.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/stream.o: lib/stream.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

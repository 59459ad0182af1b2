build-asan/lib/fileio.o: lib/fileio.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

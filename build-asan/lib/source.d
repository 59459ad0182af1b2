build-asan/lib/source.o: lib/source.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

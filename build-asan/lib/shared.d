build-asan/lib/shared.o: lib/shared.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

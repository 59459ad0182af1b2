build-asan/lib/kcore.o: lib/kcore.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

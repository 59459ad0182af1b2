build-asan/lib/bufstats.o: lib/bufstats.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

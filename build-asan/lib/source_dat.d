build-asan/lib/source_dat.o: lib/source_dat.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/strmap.o: lib/strmap.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

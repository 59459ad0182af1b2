build-asan/lib/owners.o: lib/owners.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/lockdown.o: lib/lockdown.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

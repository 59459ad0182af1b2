build-asan/lib/pattern.o: lib/pattern.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

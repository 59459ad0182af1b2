build-asan/lib/resolver.o: lib/resolver.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

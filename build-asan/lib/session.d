build-asan/lib/session.o: lib/session.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

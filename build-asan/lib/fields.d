build-asan/lib/fields.o: lib/fields.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/ksyms.o: lib/ksyms.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

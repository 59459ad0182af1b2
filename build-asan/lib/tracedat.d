build-asan/lib/tracedat.o: lib/tracedat.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

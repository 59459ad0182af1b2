build-asan/lib/tracedat_syms.o: lib/tracedat_syms.c lib/internal.h \
 lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

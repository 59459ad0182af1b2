build-asan/lib/tracedat_check.o: lib/tracedat_check.c lib/internal.h \
 lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

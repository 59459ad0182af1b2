build-asan/lib/tracedat_read.o: lib/tracedat_read.c lib/internal.h \
 lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

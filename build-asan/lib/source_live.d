build-asan/lib/source_live.o: lib/source_live.c lib/internal.h \
 lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

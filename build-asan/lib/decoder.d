build-asan/lib/decoder.o: lib/decoder.c lib/decoder.h lib/internal.h \
 lib/nopctl.h
lib/decoder.h:
lib/internal.h:
lib/nopctl.h:

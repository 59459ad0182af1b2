build-asan/lib/decode.o: lib/decode.c lib/decoder.h lib/internal.h \
 lib/nopctl.h
lib/decoder.h:
lib/internal.h:
lib/nopctl.h:

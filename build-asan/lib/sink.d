build-asan/lib/sink.o: lib/sink.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

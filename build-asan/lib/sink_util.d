build-asan/lib/sink_util.o: lib/sink_util.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/sink_dot.o: lib/sink_dot.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/sink_stats.o: lib/sink_stats.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

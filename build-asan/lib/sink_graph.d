build-asan/lib/sink_graph.o: lib/sink_graph.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/callgraph.o: lib/callgraph.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

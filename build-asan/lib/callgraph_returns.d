build-asan/lib/callgraph_returns.o: lib/callgraph_returns.c \
 lib/callgraph.h lib/internal.h lib/nopctl.h
lib/callgraph.h:
lib/internal.h:
lib/nopctl.h:

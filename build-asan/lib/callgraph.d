build-asan/lib/callgraph.o: lib/callgraph.c lib/callgraph.h \
 lib/internal.h lib/nopctl.h
lib/callgraph.h:
lib/internal.h:
lib/nopctl.h:

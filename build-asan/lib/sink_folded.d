build-asan/lib/sink_folded.o: lib/sink_folded.c lib/internal.h \
 lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

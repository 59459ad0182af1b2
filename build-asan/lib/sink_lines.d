build-asan/lib/sink_lines.o: lib/sink_lines.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

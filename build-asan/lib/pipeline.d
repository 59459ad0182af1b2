build-asan/lib/pipeline.o: lib/pipeline.c lib/internal.h lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

build-asan/lib/funcs_cache.o: lib/funcs_cache.c lib/internal.h \
 lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

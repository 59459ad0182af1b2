build-asan/tests/test_tracedat: tests/unit/test_tracedat.c \
 tests/unit/../../lib/internal.h tests/unit/../../lib/nopctl.h
tests/unit/../../lib/internal.h:
tests/unit/../../lib/nopctl.h:

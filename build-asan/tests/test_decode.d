build-asan/tests/test_decode: tests/unit/test_decode.c \
 tests/unit/../../lib/internal.h tests/unit/../../lib/nopctl.h
tests/unit/../../lib/internal.h:
tests/unit/../../lib/nopctl.h:

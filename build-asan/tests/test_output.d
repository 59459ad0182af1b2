build-asan/tests/test_output: tests/unit/test_output.c \
 tests/unit/../../lib/internal.h tests/unit/../../lib/nopctl.h
tests/unit/../../lib/internal.h:
tests/unit/../../lib/nopctl.h:

build-asan/tests/test_alloc: tests/unit/test_alloc.c \
 tests/unit/../../cmd/cmd.h tests/unit/../../cmd/../lib/nopctl.h
tests/unit/../../cmd/cmd.h:
tests/unit/../../cmd/../lib/nopctl.h:

build-asan/tests/test_options: tests/unit/test_options.c \
 tests/unit/../../cmd/cmd.h tests/unit/../../cmd/../lib/nopctl.h
tests/unit/../../cmd/cmd.h:
tests/unit/../../cmd/../lib/nopctl.h:

build-asan/tests/test_journal: tests/unit/test_journal.c \
 tests/unit/../../lib/internal.h tests/unit/../../lib/nopctl.h
tests/unit/../../lib/internal.h:
tests/unit/../../lib/nopctl.h:

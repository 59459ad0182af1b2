build-asan/tests/test_graph: tests/unit/test_graph.c \
 tests/unit/../../lib/internal.h tests/unit/../../lib/nopctl.h
tests/unit/../../lib/internal.h:
tests/unit/../../lib/nopctl.h:

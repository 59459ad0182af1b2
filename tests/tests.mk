# tests.mk - make check: host unit tests, then the VM suites on real kernels.
HELPERS := build/tests/helpers/opener

build/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -static -o $@ $<

vm-check: all $(HELPERS)
	sh tests/vm/run.sh trace

host-check: all
	sh tests/host/check-docs.sh
	sh tests/host/t-host-kernel.sh

check: unit-check host-check vm-check

.PHONY: check vm-check host-check

# host unit tests: pure logic and recorded kernel pages, no root
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
UNIT_CMD  := $(filter-out build/cmd/main.o,$(CMD_OBJ))

build/tests/test_%: tests/unit/test_%.c $(LIB) $(UNIT_CMD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(UNIT_CMD) $(LIB) $(PKG_LIBS) -lcmocka $(LDFLAGS)

unit-check: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; ( cd tests && ../$$t ); done
.PHONY: unit-check

demo: all
	sh tests/demo.sh
.PHONY: demo

# tests.mk - make check: host unit tests, then the VM suites on real kernels.
HELPERS := build/tests/helpers/opener

build/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -static -o $@ $<

vm-check: all $(HELPERS)
	sh tests/vm/run.sh trace

check: vm-check

.PHONY: check vm-check

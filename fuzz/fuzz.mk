# fuzz.mk - make fuzz: libFuzzer targets built with clang, ASan and UBSan.
# FUZZ_TIME seconds per target (the closing note of issue 4 records 600).
FUZZ_BUILD := build/fuzz
FUZZ_TIME  ?= 60
FUZZ_CC    := clang
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	      -fno-sanitize-recover=undefined -std=gnu11 -D_GNU_SOURCE -Ilib $(PKG_CFLAGS)
FUZZ_TARGETS := $(patsubst fuzz/%.c,$(FUZZ_BUILD)/%,$(wildcard fuzz/fuzz_*.c))
FUZZ_OBJ   := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(LIB_SRC) $(filter-out cmd/main.c,$(CMD_SRC)))

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(DEPFLAGS) -c -o $@ $<

-include $(FUZZ_OBJ:.o=.d)

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS)

fuzz-build: $(FUZZ_TARGETS)

# each target from its committed seeds (fuzz/corpus/NAME; report: the
# trace.dat seeds, fuzz/corpus/dat); new finds go
# to build/fuzz/corpus/NAME, crashes to build/fuzz/crash-*
fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do n=$${t##*/fuzz_}; \
		seeds=fuzz/corpus/$$n; [ $$n != report ] || seeds=fuzz/corpus/dat; \
		mkdir -p $(FUZZ_BUILD)/corpus/$$n; echo "== $$t ($(FUZZ_TIME) s)"; \
		LSAN_OPTIONS=suppressions=fuzz/lsan.supp \
		$$t -max_total_time=$(FUZZ_TIME) -close_fd_mask=3 -print_final_stats=1 \
		    -artifact_prefix=$(FUZZ_BUILD)/crash- $(FUZZ_BUILD)/corpus/$$n $$seeds; done

.PHONY: fuzz fuzz-build
.SECONDARY: $(FUZZ_OBJ)

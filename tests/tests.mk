# tests.mk - make check: host unit tests, then the VM suites on real kernels.
# static programs the guests run: opener (tests/progs: known system calls
# at a known rate), ucallers (one function from two known paths), latency, readcost, rusage, stamp (bench/progs)
HELPERS := $(addprefix $(BUILD)/tests/helpers/,opener ucallers latency readcost rusage stamp)
$(addprefix $(BUILD)/tests/helpers/,opener ucallers): $(BUILD)/tests/helpers/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -static -o $@ $<
$(addprefix $(BUILD)/tests/helpers/,latency readcost rusage stamp): $(BUILD)/tests/helpers/%: bench/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -static -o $@ $<

UPROG := $(addprefix $(BUILD)/tests/helpers/,ufuncs-static ufuncs-pie ufuncs-nopie \
	ufuncs-stripped ufuncs-go libnopdemo.so ucxx udlopen ubench libubench.so libuwrap.so ubench-finstr \
	uopen uopen-static ureal-O0 ureal-O2 uexc-O0 uexc-O2 ureal-dbglink ureal-buildid umany uslow uoff uwho uwho-nofp udiff-a udiff-b uexec1 uexec2 \
	libuwhy.so uwhy-O0 uwhy-O2)
HELPERS += $(UPROG)
UPROG_CFLAGS := -O0 -g -fno-omit-frame-pointer -pthread
$(BUILD)/tests/helpers/libnopdemo.so: tests/progs/nopdemo.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -shared -fPIC -o $@ $<
$(BUILD)/tests/helpers/ufuncs-static: tests/progs/ufuncs.c tests/progs/nopdemo.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -static -no-pie -o $@ $^
$(BUILD)/tests/helpers/ufuncs-pie: tests/progs/ufuncs.c $(BUILD)/tests/helpers/libnopdemo.so
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -fPIE -pie -o $@ $< -L$(BUILD)/tests/helpers -lnopdemo -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/helpers/ufuncs-nopie: tests/progs/ufuncs.c $(BUILD)/tests/helpers/libnopdemo.so
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -no-pie -o $@ $< -L$(BUILD)/tests/helpers -lnopdemo -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/helpers/ufuncs-stripped: $(BUILD)/tests/helpers/ufuncs-pie
	@mkdir -p $(dir $@)
	$(STRIP) --strip-all -o $@ $<
# what nopctl takes for a Go program: a .go.buildinfo section
$(BUILD)/tests/helpers/ufuncs-go: $(BUILD)/tests/helpers/ufuncs-pie
	@mkdir -p $(dir $@)
	printf 'go1.22' > $@.buildinfo
	$(OBJCOPY) --add-section .go.buildinfo=$@.buildinfo $< $@
	rm -f $@.buildinfo
# a known few slow or failing calls (issue 42); dynamic: a graph of a
# user root probes every function of the binary, a static one's libc too
$(BUILD)/tests/helpers/uslow: tests/progs/uslow.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -o $@ $<
# one function from two known paths (issue 43): user stacks need frame
# pointers, which uwho-nofp lacks
$(BUILD)/tests/helpers/uwho: tests/progs/uwho.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -o $@ $<
$(BUILD)/tests/helpers/uwho-nofp: tests/progs/uwho.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fomit-frame-pointer -o $@ $<
# known waits and a known run (issue 43): kernel events, off-CPU time
$(BUILD)/tests/helpers/uoff: tests/progs/uoff.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -o $@ $<
# one source built twice, three known changes (issue 44)
$(BUILD)/tests/helpers/udiff-a: tests/progs/udiff.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -o $@ $<
$(BUILD)/tests/helpers/udiff-b: tests/progs/udiff.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -DVERSION_B -o $@ $<
# one source built twice, the same names in both (issue 54 #1): uexec1
# execs uexec2
$(BUILD)/tests/helpers/uexec1: tests/progs/uexec.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -o $@ $<
$(BUILD)/tests/helpers/uexec2: tests/progs/uexec.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -DSECOND -o $@ $<
# known system calls (issue 15): PIE for the joined user/kernel trees,
# static for exact counts of opens (a dynamic program's loader opens too)
$(BUILD)/tests/helpers/uopen: tests/progs/uopen.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -fPIE -pie -o $@ $<
$(BUILD)/tests/helpers/uopen-static: tests/progs/uopen.c
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -static -o $@ $<
# where real programs broke return probes (issue 39): exceptions, longjmp,
# deep recursion, .cold fragments, a lock prefix, fork; -O0 and -O2, each
# counting its own calls
$(BUILD)/tests/helpers/ureal-O%: tests/progs/ureal.c
	@mkdir -p $(dir $@)
	$(CC) -O$* -g -o $@ $<
$(BUILD)/tests/helpers/uexc-O%: tests/progs/uexc.cpp
	@mkdir -p $(dir $@)
	$(CXX) -O$* -g -o $@ $<
# stripped, their symbols in a debug file: found by .gnu_debuglink beside
# it, or by build ID under /usr/lib/debug/.build-id (where the test puts
# ureal-buildid.symbols for its run; not beside it as NAME.debug, which
# elfutils would find too)
$(BUILD)/tests/helpers/ureal-dbglink: $(BUILD)/tests/helpers/ureal-O2
	$(OBJCOPY) --only-keep-debug $< $@.debug
	$(STRIP) --strip-all -o $@ $<
	cd $(dir $@) && $(OBJCOPY) --add-gnu-debuglink=ureal-dbglink.debug ureal-dbglink
$(BUILD)/tests/helpers/ureal-buildid: $(BUILD)/tests/helpers/ureal-O0
	$(OBJCOPY) --only-keep-debug $< $@.symbols
	$(STRIP) --strip-all -o $@ $<
# 20 planted failures at known lines (issue 58): -O0 (one `ret` a
# function) and -O2 (returns merged or not), C and C++, a library
$(BUILD)/tests/helpers/libuwhy.so: tests/progs/uwhylib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -o $@ $<
$(BUILD)/tests/helpers/uwhy-O%: tests/progs/uwhy.c tests/progs/uwhyxx.cpp $(BUILD)/tests/helpers/libuwhy.so
	@mkdir -p $(dir $@)
	$(CC) -O$* -g -c -o $@.o tests/progs/uwhy.c
	$(CXX) -O$* -g -c -o $@.xx.o tests/progs/uwhyxx.cpp
	$(CXX) -o $@ $@.o $@.xx.o -pthread -L$(BUILD)/tests/helpers -luwhy -Wl,-rpath,'$$ORIGIN'
	rm -f $@.o $@.xx.o
# bench B6': 10,000 functions, each called once (bench/progs/umany.sh)
$(BUILD)/tests/helpers/umany: bench/progs/umany.sh
	@mkdir -p $(dir $@)
	sh $< > $@.c
	$(CC) -O1 -g -o $@ $@.c
	rm -f $@.c
$(BUILD)/tests/helpers/udlopen: tests/progs/udlopen.c $(BUILD)/tests/helpers/libnopdemo.so
	@mkdir -p $(dir $@)
	$(CC) $(UPROG_CFLAGS) -o $@ $< -ldl -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/helpers/ucxx: tests/progs/ucxx.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(UPROG_CFLAGS) -fPIE -pie -o $@ $<
# bench B6: one function called N times, in a shared library (traced by
# uprobes, perf probe, or wrapped by LD_PRELOAD), or compiled in with
# -finstrument-functions; -O2 as a program is built
$(BUILD)/tests/helpers/libubench.so: bench/progs/ubench_fn.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -o $@ $<
$(BUILD)/tests/helpers/libuwrap.so: bench/progs/uwrap.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -shared -fPIC -o $@ $< -ldl
$(BUILD)/tests/helpers/ubench: bench/progs/ubench.c $(BUILD)/tests/helpers/libubench.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $< -L$(BUILD)/tests/helpers -lubench -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/helpers/ubench-finstr: bench/progs/ubench.c bench/progs/ubench_fn.c bench/progs/finstr.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fno-inline -finstrument-functions -finstrument-functions-exclude-file-list=finstr.c \
		-o $@ $^

# Which suites run on which kernel: every suite on at least two kernels
# where the kernels differ for it, once where they do not, so that the
# guests of both machines fit CI's two cores (tests/README.md: the times;
# an arm64 guest under TCG runs a suite in about two thirds of an x86
# one's time). x86's 6.1 (Debian 12's own: kprobes, no fprobe events)
# and 6.19, the newest, run the suites that drive the kernel's tracers
# (trace, graph, catch, doctor, retval; hardening and valgrind on 6.1,
# events and report on 6.19); x86's 6.12 (fprobe events before 6.14 moved them onto
# fgraph) retval and doctor again, and the suites whose kernel side is
# another's (diff: graph's trees; live: trace's and record's, with tmux);
# 5.10 what differs there (no hist triggers, fprobe events or _addrs
# file; K8 NOPs; kprobe $argN): trace, doctor and retval, and catch's
# tests that need no kernel gate, which 5.10 cannot have; arm64's 6.12
# every suite its root can (no tmux, valgrind or newer trace-cmd: not
# live or valgrind), in two boots; arm64's 6.1 (no CALL_OPS: another
# patch site; kprobes without ftrace) doctor, retval, and stats
# --callers (no user stacks there). uprobes (user space, which the host
# tests natively too) on arm64 (on 6.1 with report under SANITIZE, which
# has no arm64 build); valgrind (nopctl's own memory: the most
# paths of its own on the oldest kernel; not under SANITIZE, whose
# binary valgrind cannot run) and the sustained load (t-load.sh: a
# million function_graph events printed a capture) on x86's 6.1.
VM_SUITES := trace graph catch events diff report doctor hardening uprobes retval live valgrind load
VM_61 := trace graph catch doctor hardening retval $(if $(filter 1,$(SANITIZE)),report uprobes,valgrind)
VM_619 := trace graph catch events report doctor retval
VM_612 := doctor retval diff live
VM_510 := trace doctor retval blackbox
VM_CATCH_510 := catch_(exact|files|outliers)
VM_A612 := trace doctor retval uprobes
VM_A612_GRAPHS := graph catch events report hardening
VM_A61 := doctor retval
VM_A61_TRACE := t_callers_exact
# the black box (t-blackbox.sh): the persistent instance on the command
# line, each guest rebooted in the same machine (its memory kept) by the
# tests that take it down; 6.1 and 5.10 (VM_510) check the refusal. At a
# fixed address (memmap=): reserve_mem's region moved between 6.19's boots
# where the randomized kernel took its place (2 boots of 9 lost the box)
VM_BBOX := memmap=12M$$0x30000000 trace_instance=nopctl@0x30000000:12M
# what arm64's root does not hold: trace-cmd's newer releases
VM_SKIP_ARM64 := t_each_tracecmd_release_read_by_nopctl

# the guests and the host's checks, one line each, longest first: two
# workers (one guest per core: -accel tcg,thread=single) take the next
# line as they come free (tests/vm/queue.sh). Each guest its own work
# directory: two lines' initramfs never share a name
VM_X = NOPCTL_BUILD=$(BUILD) NOPCTL_VM_JOBS=1 NOPCTL_VM_FAILED=$(abspath $(BUILD))/vm-failed.txt
# arm64's lines (not under SANITIZE, which has no arm64 build: their
# lines then start with #, which queue.sh does not run)
VM_A = $(if $(filter 1,$(SANITIZE)),# )NOPCTL_VM_ARCH=arm64 NOPCTL_BUILD=$(CURDIR)/build/aarch64-linux-gnu \
	NOPCTL_VM_SKIP='$(VM_SKIP_ARM64)' NOPCTL_VM_FAILED=$(abspath $(BUILD))/vm-failed.txt
define VM_PLAN
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/61 NOPCTL_VM_ONLY=6.1 sh tests/vm/run.sh $(VM_61)
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/619 NOPCTL_VM_ONLY=6.19 sh tests/vm/run.sh $(VM_619)
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/612 NOPCTL_VM_ONLY=6.12 sh tests/vm/run.sh $(VM_612)
$(VM_A) NOPCTL_VM_WORK=$(BUILD)/vm/a612g NOPCTL_VM_ONLY=6.12 sh tests/vm/run.sh $(VM_A612_GRAPHS)
$(VM_A) NOPCTL_VM_WORK=$(BUILD)/vm/a612 NOPCTL_VM_ONLY=6.12 sh tests/vm/run.sh $(VM_A612)
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/510 NOPCTL_VM_ONLY=5.10 sh tests/vm/run.sh $(VM_510)
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/bbox NOPCTL_VM_REBOOT=1 NOPCTL_VM_APPEND='$(VM_BBOX)' sh tests/vm/run.sh blackbox
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/load NOPCTL_VM_ONLY=6.1 sh tests/vm/run.sh load
$(if $(VM_HOST),$(MAKE) --no-print-directory host-check)
$(VM_A) NOPCTL_VM_WORK=$(BUILD)/vm/a61 NOPCTL_VM_ONLY=6.1 sh tests/vm/run.sh $(VM_A61)
$(if $(filter 1,$(SANITIZE)),,$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/static NOPCTL_VM_STATIC=1 sh tests/vm/run.sh static)
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/510c NOPCTL_VM_ONLY=5.10 NOPCTL_VM_TESTS='$(VM_CATCH_510)' sh tests/vm/run.sh catch
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/lock NOPCTL_VM_APPEND=lockdown=confidentiality sh tests/vm/run.sh lockdown
$(VM_X) NOPCTL_VM_WORK=$(BUILD)/vm/lock2 NOPCTL_VM_APPEND='lockdown=confidentiality nopctl.nosecurityfs' sh tests/vm/run.sh lockdown
$(VM_A) NOPCTL_VM_WORK=$(BUILD)/vm/a61t NOPCTL_VM_ONLY=6.1 NOPCTL_VM_TESTS='$(VM_A61_TRACE)' sh tests/vm/run.sh trace
$(VM_A) NOPCTL_VM_WORK=$(BUILD)/vm/astatic NOPCTL_VM_STATIC=1 sh tests/vm/run.sh static
endef
export VM_PLAN

# the arm64 build the arm64 guests boot: a sub-make for the triplet
# (tests/deps.sh installs its compilers and :arm64 libraries)
vm-arm64-build:
	$(MAKE) --no-print-directory CROSS_COMPILE=aarch64-linux-gnu- all helpers static

# every line of VM_PLAN (with VM_HOST=1, as check runs it, host-check
# too, beside the first guests). The kernels and the newer trace-cmd
# releases are fetched first, once. Every line runs even after a
# failure, and the failures are repeated at the very end: CI shows only
# a log's tail.
vm-check: all $(HELPERS) $(if $(filter 1,$(SANITIZE)),,static vm-arm64-build)
	sh tests/vm/kernels.sh > /dev/null
	$(if $(filter 1,$(SANITIZE)),,NOPCTL_VM_ARCH=arm64 sh tests/vm/kernels.sh > /dev/null)
	sh tests/vm/peers.sh > /dev/null
	rm -f $(BUILD)/vm-failed.txt
	printf '%s\n' "$$VM_PLAN" > $(BUILD)/vm-plan
	sh tests/vm/queue.sh 2 $(BUILD)/vm-plan $(BUILD)/vm-queue && exit 0; \
	echo "vm-check failed; the failures (the log above has all of each):"; cat $(BUILD)/vm-failed.txt 2>/dev/null; exit 1

host-check: all $(UPROG)
	NOPCTL_BUILD=$(BUILD) sh tests/host/check-docs.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-golden.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-tracecmd.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-diff.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-cli.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-host-kernel.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-host-uprobes.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-files.sh
	NOPCTL_BUILD=$(BUILD) sh tests/host/t-why.sh

# the host's checks run as one line of vm-check's queue, beside a guest
check: unit-check
	$(MAKE) --no-print-directory vm-check VM_HOST=1

# the helpers alone, for a sub-make that builds them for another machine
helpers: $(HELPERS)

# the arm64 lines of VM_PLAN alone
vm-check-arm64: vm-arm64-build
	NOPCTL_VM_ARCH=arm64 sh tests/vm/kernels.sh > /dev/null
	rm -f $(BUILD)/vm-failed.txt
	printf '%s\n' "$$VM_PLAN" | grep NOPCTL_VM_ARCH=arm64 > $(BUILD)/vm-plan-arm64
	sh tests/vm/queue.sh 1 $(BUILD)/vm-plan-arm64 $(BUILD)/vm-queue-arm64

.PHONY: check vm-check host-check helpers vm-check-arm64 vm-arm64-build

# host unit tests: pure logic and recorded kernel pages, no root
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_CMD  := $(filter-out $(BUILD)/cmd/main.o,$(CMD_OBJ))

$(BUILD)/tests/test_%: tests/unit/test_%.c $(LIB) $(UNIT_CMD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(UNIT_CMD) $(LIB) $(PKG_LIBS) -lcmocka $(LDFLAGS)

-include $(UNIT_BIN:=.d)

# the walk of a recording's pages after its capture, for tests/cost.sh
COST_WALK := $(BUILD)/tests/cost-walk
$(COST_WALK): tests/cost/walk.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) $(LDFLAGS)
-include $(COST_WALK).d

# test_alloc makes nopctl's own allocations fail one at a time
$(BUILD)/tests/test_alloc: LDFLAGS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup

# the library's areas call one way (tests/layers.sh, lib/README.md);
# report's instructions per call within their budgets (tests/cost.sh:
# callgrind cannot run an ASan binary, nor another machine's). Built with
# CROSS_COMPILE, the tests and the nopctl they run go through qemu-user
# (qemu-aarch64 for aarch64-linux-gnu-: tests/deps.sh --cross), and that
# nopctl reads x86-64's trace.dat files (t-tracecmd.sh)
UNIT_RUN  := $(if $(TRIPLET),qemu-$(firstword $(subst -, ,$(TRIPLET))))
unit-check: $(UNIT_BIN) $(BIN) $(UPROG) $(if $(TRIPLET),,$(COST_WALK))
	NM=$(NM) sh tests/layers.sh $(BUILD)
	$(if $(filter 1,$(SANITIZE))$(TRIPLET),,sh tests/cost.sh $(BUILD))
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; ( cd tests && \
		NOPCTL_BIN="$(strip $(UNIT_RUN) $(abspath $(BIN)))" \
		NOPCTL_HELPERS=$(abspath $(BUILD)/tests/helpers) $(UNIT_RUN) ../$$t ); done
	$(if $(TRIPLET),NOPCTL_RUN=$(UNIT_RUN) NOPCTL_BUILD=$(BUILD) sh tests/host/t-tracecmd.sh)
.PHONY: unit-check

demo: all $(HELPERS)
	NOPCTL_BUILD=$(BUILD) sh tests/demo.sh
.PHONY: demo

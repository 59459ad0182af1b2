# bench.mk - make bench: nopctl against trace-cmd and perf, in the VM.
bench: all $(HELPERS)
	NOPCTL_BUILD=$(BUILD) sh bench/run.sh

.PHONY: bench

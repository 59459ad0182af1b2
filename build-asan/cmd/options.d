build-asan/cmd/options.o: cmd/options.c cmd/cmd.h cmd/../lib/nopctl.h
cmd/cmd.h:
cmd/../lib/nopctl.h:

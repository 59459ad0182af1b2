build-asan/cmd/inspect.o: cmd/inspect.c cmd/cmd.h cmd/../lib/nopctl.h
cmd/cmd.h:
cmd/../lib/nopctl.h:

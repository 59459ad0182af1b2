build-asan/cmd/common.o: cmd/common.c cmd/cmd.h cmd/../lib/nopctl.h
cmd/cmd.h:
cmd/../lib/nopctl.h:

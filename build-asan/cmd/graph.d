build-asan/cmd/graph.o: cmd/graph.c cmd/cmd.h cmd/../lib/nopctl.h
cmd/cmd.h:
cmd/../lib/nopctl.h:

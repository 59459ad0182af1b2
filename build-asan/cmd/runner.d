build-asan/cmd/runner.o: cmd/runner.c cmd/run.h cmd/cmd.h \
 cmd/../lib/nopctl.h
cmd/run.h:
cmd/cmd.h:
cmd/../lib/nopctl.h:

build-asan/cmd/process.o: cmd/process.c cmd/run.h cmd/cmd.h \
 cmd/../lib/nopctl.h
cmd/run.h:
cmd/cmd.h:
cmd/../lib/nopctl.h:

build-asan/cmd/doctor.o: cmd/doctor.c cmd/cmd.h cmd/../lib/nopctl.h
cmd/cmd.h:
cmd/../lib/nopctl.h:

build-asan/lib/doctor.o: lib/doctor.c lib/doctor.h lib/internal.h \
 lib/nopctl.h
lib/doctor.h:
lib/internal.h:
lib/nopctl.h:

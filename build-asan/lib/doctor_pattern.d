build-asan/lib/doctor_pattern.o: lib/doctor_pattern.c lib/doctor.h \
 lib/internal.h lib/nopctl.h
lib/doctor.h:
lib/internal.h:
lib/nopctl.h:

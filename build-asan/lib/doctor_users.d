build-asan/lib/doctor_users.o: lib/doctor_users.c lib/doctor.h \
 lib/internal.h lib/nopctl.h
lib/doctor.h:
lib/internal.h:
lib/nopctl.h:

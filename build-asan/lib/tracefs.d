build-asan/lib/tracefs.o: lib/tracefs.c /usr/include/tracefs/tracefs.h \
 /usr/include/traceevent/event-parse.h \
 /usr/include/traceevent/trace-seq.h lib/internal.h lib/nopctl.h
/usr/include/tracefs/tracefs.h:
/usr/include/traceevent/event-parse.h:
/usr/include/traceevent/trace-seq.h:
lib/internal.h:
lib/nopctl.h:

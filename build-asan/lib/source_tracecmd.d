build-asan/lib/source_tracecmd.o: lib/source_tracecmd.c \
 /usr/include/trace-cmd/trace-cmd.h /usr/include/traceevent/event-parse.h \
 /usr/include/traceevent/trace-seq.h /usr/include/tracefs/tracefs.h \
 lib/internal.h lib/nopctl.h
/usr/include/trace-cmd/trace-cmd.h:
/usr/include/traceevent/event-parse.h:
/usr/include/traceevent/trace-seq.h:
/usr/include/tracefs/tracefs.h:
lib/internal.h:
lib/nopctl.h:

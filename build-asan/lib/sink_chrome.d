build-asan/lib/sink_chrome.o: lib/sink_chrome.c lib/internal.h \
 lib/nopctl.h
lib/internal.h:
lib/nopctl.h:

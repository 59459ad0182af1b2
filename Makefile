# nopctl - a command-line front end to ftrace.
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR   ?=

CC        ?= cc
# make CROSS_COMPILE=aarch64-linux-gnu-: built for that triplet by its
# compiler and binutils, against Debian's multiarch libraries of it (the
# :arm64 -dev packages, tests/deps.sh --cross), into build/TRIPLET; a
# native build (none) is as on any machine
CROSS_COMPILE ?=
TRIPLET   := $(notdir $(patsubst %-,%,$(CROSS_COMPILE)))
ifneq ($(CROSS_COMPILE),)
ifeq ($(origin CC),default)
CC        := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin CXX),default)
CXX       := $(CROSS_COMPILE)g++
endif
ifeq ($(origin AR),default)
AR        := $(CROSS_COMPILE)ar
endif
PKG_CONFIG ?= PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig pkg-config
endif
PKG_CONFIG ?= pkg-config
NM        ?= $(CROSS_COMPILE)nm
OBJCOPY   ?= $(CROSS_COMPILE)objcopy
STRIP     ?= $(CROSS_COMPILE)strip
PKGS      := libtracefs libtraceevent libelf libdw libbpf libzstd zlib capstone json-c ncursesw
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS  := $(shell $(PKG_CONFIG) --libs $(PKGS)) -lstdc++ -lm
# -O3 and link-time optimization: the decoder, call-graph engine and
# sinks are separate files, each called once per event
CFLAGS    ?= -O3 -g -flto=auto
CFLAGS    += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Ilib $(PKG_CFLAGS)
# each object's header dependencies, written by the compiler (.d beside it)
DEPFLAGS  := -MMD -MP
BUILD     ?= build$(if $(TRIPLET),/$(TRIPLET))
ifeq ($(SANITIZE),1)
BUILD     := build$(if $(TRIPLET),/$(TRIPLET))/sanitize
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
endif

LIB_SRC   := $(wildcard lib/*/*.c)
CMD_SRC   := $(wildcard cmd/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ   := $(CMD_SRC:%.c=$(BUILD)/%.o)
LIB       := $(BUILD)/libnopctl.a
BIN       := $(BUILD)/nopctl
MANPAGES  := $(patsubst man/%.scd,$(BUILD)/man/%,$(wildcard man/*.scd))

all: $(BIN) $(MANPAGES)

# a recipe that fails leaves no target behind (scdoc writes through a
# redirection: its half page would otherwise count as built)
.DELETE_ON_ERROR:

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BIN): $(CMD_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(LIB) $(PKG_LIBS)

# make static: one binary with libtracefs, libtraceevent, libbpf, elfutils,
# the compression libraries, libstdc++ and glibc linked in (Debian's .a
# files), for a box that has none of them. glibc's own warnings (dlopen
# for libtraceevent's plugins, which nopctl does not load; getpwnam and
# initgroups for 'nopctl trace -u USER', which then need the box's NSS
# modules) are left out of the output; any other message is shown.
STATIC_LIBS := -ltracefs -ltraceevent -lbpf -lcapstone -ljson-c -lncursesw -ltinfo -ldw -lelf -lzstd -lz -lbz2 -llzma -lstdc++ -lpthread -ldl -lm
static: $(BUILD)/nopctl-static

$(BUILD)/nopctl-static: $(CMD_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -o $@ $(CMD_OBJ) $(LIB) $(STATIC_LIBS) 2> $@.log || \
		{ cat $@.log; exit 1; }
	@grep -v -e 'in statically linked applications requires at runtime' -e ': in function' $@.log || true
	@rm -f $@.log

$(BUILD)/man/%: man/%.scd
	@mkdir -p $(BUILD)/man
	scdoc < $< > $@

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)

include tests/tests.mk
include fuzz/fuzz.mk
include bench/bench.mk

install: all
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/nopctl
	for m in $(MANPAGES); do \
		s=$${m##*.}; install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done
	install -D -m 0644 completions/nopctl.bash $(DESTDIR)$(BASHCOMPDIR)/nopctl

clean:
	rm -rf build

.PHONY: all install clean static

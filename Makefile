# dashsim: one Makefile. `make run` and `make test` install missing Debian packages first.
# Targets: all (bin/sim, lib/libdashsim.a, lib/libdashsim.so), run, test, check-asan, bench, figures, fuzz,
# gpu, install, uninstall, clean. Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, PREFIX, DESTDIR; V=1 shows commands.
# Layers (docs/architecture.md) are enforced here: each folder compiles with the include paths of the
# layers below it only, so an upward #include does not build.
VERSION := 0.2.0
# The ABI's number (include/dashsim/version.h, docs/api.md): the shared library's soname is libdashsim.so.N.
SOVERSION := 1
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
PKGS := igraph glib-2.0 libcjson zlib
BUILD ?= build
BIN ?= bin
LIB ?= lib

# What dashsim itself needs, whatever the user's CFLAGS say. Hidden visibility: the shared library exports
# only what include/dashsim/dashsim.h marks DASHSIM_API.
DASH_CFLAGS = -std=c11 -fPIC -fvisibility=hidden -Wall -Wextra -Werror $(WARN_STRICT) -MMD -MP
# Warnings beyond -Wall -Wextra that the tree builds clean with (issue 36), so a new file keeps to them: the
# first line gcc and clang both know; the second gcc's own, added when $(CC) is gcc (clang would refuse them).
WARN_STRICT := -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition -Wpointer-arith -Wvla \
               -Wformat=2 -Wimplicit-fallthrough -Wredundant-decls -Wnested-externs -Winit-self
WARN_GCC := -Wlogical-op -Wduplicated-cond -Wduplicated-branches -Wjump-misses-init -Wformat-signedness
WARN_STRICT += $(if $(shell $(CC) --version 2>/dev/null | grep -q 'Free Software Foundation' && echo gcc),$(WARN_GCC))
DASH_CPPFLAGS = -D_DEFAULT_SOURCE -DDASHSIM_DATADIR='"$(PREFIX)/share/dashsim/configs"' $(shell pkg-config --cflags $(PKGS))
DASH_LDLIBS = $(shell pkg-config --libs $(PKGS)) -lm -lpthread

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Include paths per layer: a layer sees itself and the layers below it. include/ holds the installed headers:
# every layer reads <dashsim/version.h> there; only sim/api implements <dashsim/dashsim.h> (tests/cli_install.sh
# checks that nothing below it includes that one).
INC_core := -Isim/core -Iinclude
INC_policies := $(INC_core) -Ipolicies/attention -Ipolicies/pipeline -Ipolicies/decode
INC_dag := $(INC_core) -Idag
# sim/model's subfolders (attention, cost, decode, pipeline, search, validate): one layer, each folder on the path.
MODEL_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard sim/model/*/*.h))))
INC_model := $(INC_policies) -Idag $(addprefix -I,$(MODEL_DIRS))
INC_io := $(INC_model) -Isim/io
INC_run := $(INC_io) -Isim/run
INC_api := $(INC_run) -Isim/api
INC_cli := $(INC_run) -Isim/cli
INC_tests := $(INC_api) -Itests
layer_of = $(if $(filter sim/core/%,$1),core,$(if $(filter policies/%,$1),policies,$(if $(filter dag/%,$1),dag,$(if \
           $(filter sim/model/%,$1),model,$(if $(filter sim/io/%,$1),io,$(if $(filter sim/run/%,$1),run,$(if \
           $(filter sim/api/%,$1),api,$(if $(filter sim/cli/%,$1),cli,tests))))))))

LIB_SRC := $(wildcard sim/core/*.c) $(wildcard policies/*/*.c) $(wildcard dag/*.c) $(wildcard sim/model/*/*.c) \
           $(wildcard sim/io/*.c) $(wildcard sim/run/*.c) $(wildcard sim/api/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_SRC := $(wildcard sim/cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
STATIC_LIB := $(LIB)/libdashsim.a
SHARED_LIB := $(LIB)/libdashsim.so
# The tree's own programs (bin/sim, the tests, bench/) use every module, so they link this archive; the
# installed one is the same objects joined into one (ld -r) with every global but dashsim_* made local (as
# sim/api/exports.map does for the shared library, whatever flags the objects were built with).
INTERNAL_LIB := $(BUILD)/libdashsim-internal.a
OBJCOPY ?= objcopy
# The installed headers, in PREFIX/include/dashsim/ (clients include <dashsim/dashsim.h>; docs/api.md).
PUBLIC_HEADERS := include/dashsim/dashsim.h include/dashsim/version.h

.PHONY: all deps run test check check-asan sanitize validate docs bench figures gpu install uninstall clean
all: $(BIN)/sim $(STATIC_LIB) $(SHARED_LIB)

deps:
	$(Q)scripts/install-deps.sh

$(INTERNAL_LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(STATIC_LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  AR      $@")
	$(Q)$(LD) -r -o $(BUILD)/libdashsim.o $^ && $(OBJCOPY) --wildcard --keep-global-symbol='dashsim_*' $(BUILD)/libdashsim.o && \
	    rm -f $@ && $(AR) rcs $@ $(BUILD)/libdashsim.o

$(SHARED_LIB): $(LIB_OBJ) sim/api/exports.map
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libdashsim.so.$(SOVERSION) \
	    -Wl,--version-script,sim/api/exports.map -o $@ $(LIB_OBJ) $(DASH_LDLIBS)

$(BIN)/sim: $(CLI_OBJ) $(INTERNAL_LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(INTERNAL_LIB) $(DASH_LDLIBS)

$(BIN)/test-sim: $(TEST_OBJ) $(INTERNAL_LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJ) $(INTERNAL_LIB) $(shell pkg-config --libs check) $(DASH_LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(DASH_CPPFLAGS) $(INC_$(call layer_of,$<)) $(if $(filter tests/%,$<),$(shell pkg-config --cflags \
	    check)) $(CPPFLAGS) $(DASH_CFLAGS) $(CFLAGS) -c -o $@ $<

# The main job: every policy on the built-in H100 preset, outputs under out/.
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/run-main.sh

# Every test: the Check suites (unit, closed forms, conformance), the CLI tests, the validation baseline.
test: deps
	$(Q)$(MAKE) --no-print-directory check

# gpu/ is compiled (not run) wherever nvcc exists: tests/cli_gpu.sh dry-runs plans through it.
HAS_NVCC := $(shell command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc && echo yes)
check: all $(BIN)/test-sim $(if $(HAS_NVCC),gpu)
	$(Q)tests/cli.sh --all $(BIN)/sim

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (float-cast-overflow included),
# built in build-san/, bin-san/, lib-san/ (a documented command may take 600 s there, not 120: calibrate --kernel
# --baseline takes 10 s unsanitized); but tests/cli_extend.sh, whose copy of the tree is built without
# sanitizers whatever runs it (make test runs it).
SAN_FLAGS := -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
             -fno-omit-frame-pointer
check-asan: deps
	$(Q)ASAN_OPTIONS=detect_leaks=0 DASHSIM_SKIP_EXTEND=1 DOCS_TIMEOUT=600 $(MAKE) --no-print-directory BUILD=build-san BIN=bin-san LIB=lib-san \
	    CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" HAS_NVCC= check
sanitize: check-asan

# The model's error on the committed H100 traces; exit 1 on a regression (see scripts/validate.sh).
validate: $(BIN)/sim
	$(Q)scripts/validate.sh $(BIN)/sim

# Generated documentation: README.md's policy table from the registry, the man page from every --help.
docs: $(BIN)/sim
	$(Q)scripts/docs-policies.sh $(BIN)/sim
	$(Q)scripts/man-page.py $(BIN)/sim >docs/dashsim.1.tmp && mv docs/dashsim.1.tmp docs/dashsim.1

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/bench.sh bin/sim

# Installed as `dashsim`, with the library, its headers (in include/dashsim/), a pkg-config file, the man
# page, the configs (share/dashsim/configs, where `dashsim run` finds presets named without a path) and the
# documents the man page and --help name (share/doc/dashsim: README.md, docs/*.md).
# Every path is quoted in the recipes ($(QP): DESTDIR and PREFIX as one shell word), so a prefix with
# spaces is one directory, never two for rm -rf; PREFIX must be absolute, and quotes, backslashes and '|'
# are refused in either before anything is done.
empty :=
space := $(empty) $(empty)
QP = '$(DESTDIR)$(PREFIX)'
check_install_paths = $(if $(filter /%,$(firstword $(PREFIX))),,$(error PREFIX must be an absolute path, got \
    '$(PREFIX)'))$(if $(or $(findstring ',$(DESTDIR)$(PREFIX)),$(findstring ",$(DESTDIR)$(PREFIX)),$(findstring \
    \,$(DESTDIR)$(PREFIX)),$(findstring |,$(DESTDIR)$(PREFIX))),$(error DESTDIR and PREFIX may not hold quotes, \
    backslashes or '|'))
install: all
	$(check_install_paths)
	install -d $(QP)/bin $(QP)/lib/pkgconfig $(QP)/include/dashsim $(QP)/share/man/man1 \
	    $(QP)/share/dashsim/configs/profiles $(QP)/share/dashsim/configs/kernels $(QP)/share/doc/dashsim/docs
	install -m 755 $(BIN)/sim $(QP)/bin/dashsim
	install -m 644 $(STATIC_LIB) $(QP)/lib/libdashsim.a
	install -m 755 $(SHARED_LIB) $(QP)/lib/libdashsim.so.$(VERSION)
	ln -sf libdashsim.so.$(VERSION) $(QP)/lib/libdashsim.so.$(SOVERSION)
	ln -sf libdashsim.so.$(SOVERSION) $(QP)/lib/libdashsim.so
	install -m 644 $(PUBLIC_HEADERS) $(QP)/include/dashsim/
	sed -e 's|@PREFIX@|$(subst $(space),@SP@,$(PREFIX))|g' -e 's|@SP@|\\ |g' -e 's|@VERSION@|$(VERSION)|g' \
	    docs/dashsim.pc.in > $(QP)/lib/pkgconfig/dashsim.pc
	install -m 644 docs/dashsim.1 $(QP)/share/man/man1/dashsim.1
	install -m 644 README.md $(QP)/share/doc/dashsim/
	install -m 644 docs/*.md $(QP)/share/doc/dashsim/docs/
	install -m 644 configs/*.json $(QP)/share/dashsim/configs/
	install -m 644 configs/profiles/*.json $(QP)/share/dashsim/configs/profiles/
	install -m 644 configs/kernels/*.json $(QP)/share/dashsim/configs/kernels/

uninstall:
	$(check_install_paths)
	rm -f $(QP)/bin/dashsim $(QP)/lib/libdashsim.a $(QP)/lib/libdashsim.so $(QP)/lib/libdashsim.so.$(SOVERSION) \
	    $(QP)/lib/libdashsim.so.$(VERSION) $(QP)/lib/pkgconfig/dashsim.pc $(QP)/share/man/man1/dashsim.1
	rm -rf $(QP)/include/dashsim $(QP)/share/dashsim $(QP)/share/doc/dashsim

clean:
	rm -rf build build-san bin bin-san lib lib-san out

-include gpu/gpu.mk
-include $(wildcard mk/*.mk)
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)

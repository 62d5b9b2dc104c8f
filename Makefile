# dashsim: one Makefile. `make run` and `make test` install missing Debian packages first.
# Targets: all (bin/sim), run, test, sanitize, bench, figures, gpu, install, clean. V=1 shows commands.
PREFIX ?= /usr/local
CC ?= cc
PKGS := igraph glib-2.0 libcjson
OPT ?= -O2 -g
CFLAGS_ALL = -std=c11 -D_DEFAULT_SOURCE $(OPT) -Wall -Wextra -Werror -MMD -MP \
             $(shell pkg-config --cflags $(PKGS) check) $(EXTRA_CFLAGS)
LDLIBS_ALL = $(shell pkg-config --libs $(PKGS)) -lm -lpthread $(EXTRA_LDFLAGS)
BUILD ?= build
BIN ?= bin

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC := $(filter-out sim/main.c,$(wildcard sim/*.c)) $(wildcard dag/*.c) $(wildcard policies/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

.PHONY: all deps run test check validate sanitize bench figures gpu install clean
all: $(BIN)/sim

deps:
	$(Q)scripts/install-deps.sh

$(BIN)/sim: $(BUILD)/sim/main.o $(LIB_OBJ)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(OPT) $(EXTRA_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BIN)/test-sim: $(TEST_OBJ) $(LIB_OBJ)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(OPT) $(EXTRA_CFLAGS) -o $@ $^ $(shell pkg-config --libs check) $(LDLIBS_ALL)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# The main job: every policy on the built-in H100 preset, outputs under out/.
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/run-main.sh

# Every test: the Check suites (unit, closed forms, conformance) and the CLI tests.
test: deps
	$(Q)$(MAKE) --no-print-directory check

# gpu/ is compiled (not run) wherever nvcc exists: tests/cli_gpu.sh dry-runs plans through it.
HAS_NVCC := $(shell command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc && echo yes)
check: $(BIN)/sim $(BIN)/test-sim $(if $(HAS_NVCC),gpu)
	$(Q)CK_DEFAULT_TIMEOUT=600 $(BIN)/test-sim
	$(Q)scripts/validate.sh $(BIN)/sim
	$(Q)tests/cli.sh $(BIN)/sim

# The model's error on the committed H100 traces; exit 1 on a regression (see scripts/validate.sh).
validate: $(BIN)/sim
	$(Q)scripts/validate.sh $(BIN)/sim

# ASan+UBSan build in build-san/ and bin-san/, then every test against it.
sanitize: deps
	$(Q)$(MAKE) --no-print-directory BUILD=build-san BIN=bin-san \
	    OPT="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" check

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/bench.sh bin/sim

install: $(BIN)/sim
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 bin/sim $(DESTDIR)$(PREFIX)/bin/sim

clean:
	rm -rf build build-san bin bin-san out

-include gpu/gpu.mk
-include $(wildcard mk/*.mk)
-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/sim/main.d

# `make fuzz`: the libFuzzer harness of the config loader (clang, ASan). Runs FUZZ_SECONDS (default 60)
# on a copy of the seed corpus in build-fuzz/corpus; crashes land in build-fuzz/ (turn each into a test).
FUZZ_SECONDS ?= 60
FUZZ_SRC := tests/fuzz/fuzz_config.c sim/io/config.c sim/model/costmodel.c sim/io/json_file.c \
            sim/core/status.c sim/core/plan.c $(wildcard policies/*.c)
.PHONY: fuzz fuzz-build
fuzz-build: build-fuzz/fuzz_config
build-fuzz/fuzz_config: $(FUZZ_SRC) sim/io/config.h sim/model/costmodel.h
	@mkdir -p build-fuzz/corpus
	$(Q)clang -std=c11 -D_DEFAULT_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    $(INC_io) $(shell pkg-config --cflags glib-2.0 libcjson) -o $@ $(FUZZ_SRC) \
	    $(shell pkg-config --libs glib-2.0 libcjson) -lm
fuzz: build-fuzz/fuzz_config
	@cp -n tests/fuzz/corpus/* build-fuzz/corpus/ 2>/dev/null || true
	cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 ./fuzz_config -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -timeout=10 corpus

# `make fuzz`: one libFuzzer harness per parser (clang, ASan + UBSan), each run FUZZ_SECONDS (default 60)
# on a copy of its committed seed corpus in build-fuzz/corpus-NAME; crashes land in build-fuzz/NAME/
# (copy each into tests/fuzz/regress-NAME/ (config: tests/fuzz/regress/): tests/cli_fuzz_replay.sh replays them).
#   config  tests/fuzz/fuzz_config.c  sim_config_parse + validate + decode   seeds tests/fuzz/corpus/
#   plan    tests/fuzz/fuzz_plan.c    sim_plan_read                          seeds tests/fuzz/corpus-plan/
#   trace   tests/fuzz/fuzz_trace.c   sim_trace_load_capped                  seeds tests/fuzz/corpus-trace/
#   matrix  tests/fuzz/fuzz_matrix.c  sim_latency_matrix_load                seeds tests/fuzz/corpus-matrix/
#   maskspec tests/fuzz/fuzz_maskspec.c sim_mask_make (--mask SPEC)          seeds tests/fuzz/corpus-maskspec/
#   profile tests/fuzz/fuzz_profile.c sim_profile_read, write, read again    seeds tests/fuzz/corpus-profile/
#   maskfile tests/fuzz/fuzz_maskfile.c sim_mask_read_capped (--mask-file)   seeds tests/fuzz/corpus-maskfile/
#   gz      tests/fuzz/fuzz_gz.c      sim/io/input.h on a .gz: whole and lines seeds tests/fuzz/corpus-gz/
#   raw     tests/fuzz/fuzz_raw.c     sim_profile_from_raw (calibrate), write, read seeds tests/fuzz/corpus-raw/
#   merge   tests/fuzz/fuzz_merge.c   sim_sweep_merge of up to 4 slices, both orders seeds tests/fuzz/corpus-merge/
# `make fuzz-NAME` runs one; FUZZ_JOBS=N forks N workers (libFuzzer -fork).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := config plan trace matrix maskspec profile maskfile gz raw merge baseline runjson clock
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -g -O1 $(FUZZ_SAN) $(INC_api) $(shell pkg-config --cflags $(PKGS))
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=build-fuzz/obj/%.o)
fuzz_corpus = tests/fuzz/$(if $(filter config,$1),corpus,corpus-$1)

.PHONY: fuzz fuzz-build $(FUZZ_TARGETS:%=fuzz-%)
.SECONDARY: $(FUZZ_LIB_OBJ) # kept between builds (pattern-rule objects are intermediate otherwise)
fuzz-build: $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)

build-fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

# Linked from an archive, so that a harness pulls only the objects it reaches, with igraph's archive where
# there is one (the few igraph objects dag.c reaches) and --as-needed: the binaries then run beside glib,
# cJSON, zlib and pcre2 alone (copied to a machine without igraph's dependencies, as on the lent GPU machines).
FUZZ_IGRAPH_A := $(wildcard $(shell pkg-config --variable=libdir igraph)/libigraph.a)
FUZZ_LDLIBS := -Wl,--as-needed $(DASH_LDLIBS)
ifneq ($(FUZZ_IGRAPH_A),)
FUZZ_LDLIBS := -Wl,--as-needed $(FUZZ_IGRAPH_A) $(shell pkg-config --libs $(filter-out igraph,$(PKGS))) -lstdc++ -lm -lpthread
endif
build-fuzz/libdash-fuzz.a: $(FUZZ_LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_input.h build-fuzz/libdash-fuzz.a
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< build-fuzz/libdash-fuzz.a $(FUZZ_LDLIBS)

fuzz: $(FUZZ_TARGETS:%=fuzz-%)

$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: build-fuzz/fuzz_%
	@mkdir -p build-fuzz/corpus-$* build-fuzz/$*
	@cp -n $(call fuzz_corpus,$*)/* build-fuzz/corpus-$*/ 2>/dev/null || true
	cd build-fuzz/$* && ASAN_OPTIONS=detect_leaks=1 ../fuzz_$* -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -dict=../../tests/fuzz/$*.dict \
	    $(if $(FUZZ_JOBS),-fork=$(FUZZ_JOBS)) ../corpus-$*

-include $(FUZZ_LIB_OBJ:.o=.d)

# CUDA tools of dashsim (docs/gpu.md): bin/gpu-calib and bin/gpu-exec, built with nvcc for sm_90a.
# Included by the top-level Makefile (`make gpu`); stand-alone: make -f gpu/gpu.mk gpu
# Objects go to build/gpu/; header dependencies come from nvcc -MMD.

# nvcc by its real path: reached through a symbolic link it cannot find its own crt/ and include/.
NVCC ?= $(shell readlink -f "$$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
GPU_ARCH ?= -gencode=arch=compute_90a,code=sm_90a
GPU_NVCCFLAGS ?= -O3 $(GPU_ARCH) -std=c++17 -lineinfo --Werror all-warnings \
	-Xcompiler -Wall,-Wextra,-ffp-contract=off -Xptxas -warn-spills
GPU_BUILD := build/gpu
# The simulator's plan reader (with its bounded input reader: zlib) and plan_check, its median
# (sim/core/stats.c) and JSON string escaper (sim/io/format.c), compiled as C and linked, so gpu/ reads
# plans and writes numbers as sim does.
GPU_INC := -Isim/core -Ipolicies/attention -Ipolicies/pipeline -Ipolicies/decode -Isim/model/attention -Isim/io
GPU_C_OBJ := $(GPU_BUILD)/c/plan_read.o $(GPU_BUILD)/c/input.o $(GPU_BUILD)/c/plan.o $(GPU_BUILD)/c/status.o \
	$(GPU_BUILD)/c/stats.o $(GPU_BUILD)/c/format.o
GPU_C_LIBS := -lz -lpthread
GPU_BINS := bin/gpu-calib bin/gpu-exec
GPU_Q = $(if $(V),,@)

.PHONY: gpu gpu-clean
gpu: $(GPU_BINS)

$(GPU_BUILD)/%.o: gpu/%.cu
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVCC    $<")
	$(GPU_Q)$(NVCC) $(GPU_NVCCFLAGS) $(GPU_INC) -MMD -MP -c $< -o $@

$(GPU_BUILD)/c/%.o: sim/io/%.c
	@mkdir -p $(@D)
	$(GPU_Q)$(CC) -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror $(GPU_INC) -MMD -MP -c $< -o $@
$(GPU_BUILD)/c/%.o: sim/core/%.c
	@mkdir -p $(@D)
	$(GPU_Q)$(CC) -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror $(GPU_INC) -MMD -MP -c $< -o $@

bin/gpu-exec: $(GPU_BUILD)/executor.o $(GPU_BUILD)/plan.o $(GPU_BUILD)/host.o $(GPU_C_OBJ)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVLINK  $@")
	$(GPU_Q)$(NVCC) $(GPU_ARCH) $^ -o $@ -ldl $(GPU_C_LIBS)

# gpu-calib: one file per calibration, named for what it measures (gpu/calib/calib.h lists them).
GPU_CALIB_OBJ := $(patsubst gpu/calib/%.cu,$(GPU_BUILD)/calib/%.o,$(wildcard gpu/calib/*.cu))

bin/gpu-calib: $(GPU_CALIB_OBJ) $(GPU_BUILD)/host.o $(GPU_BUILD)/c/stats.o $(GPU_BUILD)/c/format.o
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVLINK  $@")
	$(GPU_Q)$(NVCC) $(GPU_ARCH) $^ -o $@ -ldl

gpu-clean:
	rm -rf $(GPU_BUILD) $(GPU_BINS)

-include $(wildcard $(GPU_BUILD)/*.d $(GPU_BUILD)/c/*.d $(GPU_BUILD)/calib/*.d)

# The real deterministic attention backward (gpu/bwd/, docs/kernel.md) has its own rules.
-include gpu/bwd/bwd.mk

# The real deterministic attention backward (docs/kernel.md): bin/gpu-bwd and build/gpu/bwd/libdashbwd.so
# (loaded by gpu/bwd/bench.py through ctypes). Included by gpu/gpu.mk. The shared library needs
# position-independent code, so gpu/plan.cu, gpu/host.cu and the plan reader's C objects of gpu.mk
# ($(GPU_C_OBJ), where defined) are compiled again with -fPIC under build/gpu/bwd/pic/.
GPU_BWD_BUILD := build/gpu/bwd
GPU_BWD_PIC_C := $(patsubst $(GPU_BUILD)/c/%,$(GPU_BWD_BUILD)/pic/c/%,$(GPU_C_OBJ))
GPU_BWD_DEPS := $(GPU_BWD_BUILD)/bwd.o $(GPU_BWD_BUILD)/pic/plan.o $(GPU_BWD_BUILD)/pic/host.o $(GPU_BWD_PIC_C)
GPU_BWD_LIB := $(GPU_BWD_BUILD)/libdashbwd.so
GPU_BINS += bin/gpu-bwd bin/gpu-bwd-emu bin/gpu-wg-test bin/gpu-bwd-stages $(GPU_BWD_LIB)
# The CPU emulation of the kernel (gpu/bwd/emu/): the kernel's source compiled by the host C++ compiler.
# Its CUDA headers: the include flags nvcc itself passes (read from `nvcc -dryrun`, so a toolkit with only
# targets/<arch>/include, or an nvcc reached through a link or wrapper, works), else beside nvcc's real path.
GPU_BWD_CUDA_INC ?= $(or $(shell $(NVCC) -dryrun -x cu -E /dev/null 2>&1 | sed -n 's/^\#\$$ \(SYSTEM_\)\{0,1\}INCLUDES=//p' | tr -d '"'),-I$(dir $(realpath $(NVCC)))../include)
GPU_BWD_EMU_CXXFLAGS ?= -std=c++20 -O2 -fno-strict-aliasing -Wall -Wextra -Werror -Wno-unknown-pragmas

gpu: bin/gpu-bwd bin/gpu-bwd-emu bin/gpu-wg-test bin/gpu-bwd-stages $(GPU_BWD_LIB)

$(GPU_BWD_BUILD)/%.o: gpu/bwd/%.cu
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVCC    $<")
	$(GPU_Q)$(NVCC) $(GPU_NVCCFLAGS) $(GPU_INC) -Xcompiler -fPIC -MMD -MP -c $< -o $@

$(GPU_BWD_BUILD)/pic/%.o: gpu/%.cu
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVCC    $< (PIC)")
	$(GPU_Q)$(NVCC) $(GPU_NVCCFLAGS) $(GPU_INC) -Xcompiler -fPIC -MMD -MP -c $< -o $@

$(GPU_BWD_BUILD)/pic/c/%.o: sim/io/%.c
	@mkdir -p $(@D)
	$(GPU_Q)$(CC) -std=c11 -D_DEFAULT_SOURCE -O2 -fPIC -Wall -Wextra -Werror $(GPU_INC) -MMD -MP -c $< -o $@
$(GPU_BWD_BUILD)/pic/c/%.o: sim/core/%.c
	@mkdir -p $(@D)
	$(GPU_Q)$(CC) -std=c11 -D_DEFAULT_SOURCE -O2 -fPIC -Wall -Wextra -Werror $(GPU_INC) -MMD -MP -c $< -o $@

$(GPU_BWD_LIB): $(GPU_BWD_DEPS)
	$(if $(V),,@echo "  NVLINK  $@")
	$(GPU_Q)$(NVCC) $(GPU_ARCH) -shared $^ -o $@ -ldl $(GPU_C_LIBS)

bin/gpu-bwd: $(GPU_BWD_BUILD)/main.o $(GPU_BWD_DEPS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVLINK  $@")
	$(GPU_Q)$(NVCC) $(GPU_ARCH) $^ -o $@ -ldl $(GPU_C_LIBS)

# The Hopper kernel's fragment-layout test (gpu/bwd/wg/wg_test.cu), run on the GPU before the kernel.
bin/gpu-wg-test: $(GPU_BWD_BUILD)/wg/wg_test.o $(GPU_BWD_BUILD)/pic/host.o $(GPU_BWD_PIC_C)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVLINK  $@")
	$(GPU_Q)$(NVCC) $(GPU_ARCH) $^ -o $@ -ldl $(GPU_C_LIBS)

# The fixed stages timed alone at any size (gpu/bwd/stages.cu; docs/profile.md, "The fixed stages").
bin/gpu-bwd-stages: $(GPU_BWD_BUILD)/stages.o $(GPU_BWD_BUILD)/pic/host.o $(GPU_BWD_PIC_C)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVLINK  $@")
	$(GPU_Q)$(NVCC) $(GPU_ARCH) $^ -o $@ -ldl $(GPU_C_LIBS)

$(GPU_BWD_BUILD)/emu/emu_main.o: gpu/bwd/emu/emu_main.cc
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CXX     $<")
	$(GPU_Q)$(CXX) $(GPU_BWD_EMU_CXXFLAGS) -DBWD_EMULATE $(GPU_BWD_CUDA_INC) $(GPU_INC) -MMD -MP -c $< -o $@

bin/gpu-bwd-emu: $(GPU_BWD_BUILD)/emu/emu_main.o $(filter-out $(GPU_BWD_BUILD)/bwd.o,$(GPU_BWD_DEPS))
	@mkdir -p $(@D)
	$(if $(V),,@echo "  NVLINK  $@")
	$(GPU_Q)$(NVCC) $(GPU_ARCH) $^ -o $@ -ldl $(GPU_C_LIBS)

-include $(wildcard $(GPU_BWD_BUILD)/emu/*.d $(GPU_BWD_BUILD)/wg/*.d $(GPU_BWD_BUILD)/*.d $(GPU_BWD_BUILD)/pic/*.d $(GPU_BWD_BUILD)/pic/c/*.d)

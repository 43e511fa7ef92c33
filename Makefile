# Makefile - the workbook's one entry point. `make help` lists the targets.
#
# Chapters are found by their folders: chapters/NN-slug/ is chapter N. Its
# top-level .cu files are compiled once each; chapters/NN-slug/tried/ holds
# the variants it tried and did not keep. Which programs exist and which
# chapters each links come from chapters/kernels.list (tools/generate.c, built
# as build/tools/generate, turns it into build/gen/programs.mk); each
# program's main() is generated from the same list by the same tool, which
# reads it through tools/kernel_list.c. docs/design.md explains it.

# No built-in rules: with them make would try to remake the included .d files
# through the mutant rule, which matches any object name.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
# Keep the intermediate files (generated mains, patched mutant copies).
.SECONDARY:
# A plain `make` builds everything (`all`), not the first rule the file
# happens to hold (the generator's, which the included makefiles need).
.DEFAULT_GOAL := all

ifeq ($(origin NVCC),undefined)
# (looked up once: a make that starts hundreds of times in the grader's
# sandbox would otherwise ask the shell at every use)
NVCC := $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
endif
CC ?= gcc
BUILD ?= build

# The target: the card that is here, as its driver reports it (compute
# capability 8.9 -> sm_89; the first card where there are several), through
# nvidia-smi or, without it, the toolkit's own device query. With no card
# (CI, a laptop) sm_90, Hopper. ARCH=sm_XX (or compute_XX, PTX only)
# overrides. Chapters 10 to 13's Hopper code is built for sm_90a where ARCH is sm_90.
DEFAULT_ARCH := sm_90
# (asked once, and only where ARCH or DEVICE_CODE is not given: the grader's
# makes in its sandbox are given both, and start hundreds of times)
detected_capability = $(eval detected_capability := $(strip $(shell { nvidia-smi \
    --query-gpu=compute_cap --format=csv,noheader 2>/dev/null || \
    $(dir $(NVCC))__nvcc_device_query 2>/dev/null; } | head -n 1 | tr -d ' .,' \
    | grep -E '^[0-9]{2,3}$$')))$(detected_capability)
ifeq ($(origin ARCH),undefined)
ARCH := $(if $(detected_capability),sm_$(detected_capability),$(DEFAULT_ARCH))
endif
# With no card here (CI, a laptop) no kernel built here runs here: the
# chapters' and the library's device code take nvcc's fast compile
# (NVCC_FAST_COMPILE: the front end and ptxas still see every kernel, the
# optimizers do less; chapter 10's three sources 83 to 26 s). With a card,
# or DEVICE_CODE=full, everything is compiled in full. The grader compiles
# a submission in full either way: its ptxas report is graded.
DEVICE_CODE ?= $(if $(detected_capability),full,fast)
$(if $(filter-out full fast,$(DEVICE_CODE))$(filter-out 1,$(words $(DEVICE_CODE))),\
    $(error DEVICE_CODE='$(DEVICE_CODE)': it is full or fast))
DEVICE_CODE_FLAGS = $(if $(filter fast,$(DEVICE_CODE)),$(NVCC_FAST_COMPILE))
# Objects built for another target, or in the other DEVICE_CODE, must not be
# linked with these: every object depends on a stamp that changes with both
# (a build made without a card is rebuilt in full where one is found).
ARCH_STAMP := $(BUILD)/gen/arch
$(shell mkdir -p $(BUILD)/gen && { [ "$$(cat $(ARCH_STAMP) 2>/dev/null)" = "$(ARCH) $(DEVICE_CODE)" ] || \
    echo "$(ARCH) $(DEVICE_CODE)" > $(ARCH_STAMP); })
PYTHON ?= python3

COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
export WORKBOOK_COMMIT := $(COMMIT)

# What a recipe hands the shell from a variable goes through shell_quote:
# 'text', each ' in it written '\'', so a name is never read as shell
# syntax (a ; or a `...` in it stays part of the name).
shell_quote = '$(subst ','\'',$(1))'
# CH and EX (make profile, make grade) name a chapter and exercises, BEFORE and
# MERGED and FOLDER (make same-kernels) a commit and files. Make
# would expand them as it exports them to every recipe's environment, so a
# $(...) in them would run; they are read with $(value ...) instead.
unexport CH EX BEFORE MERGED FOLDER

CFLAGS := -O3 -std=c11 -Wall -Wextra -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon
NVCCFLAGS = -O3 $(call target_flags,$(KERNEL_ARCH)) $(NVCC_LANGUAGE_FLAGS) $(DEVICE_OPT_FLAGS)
# Builds that only prove the code compiles, in a build folder of their own
# (make follows no flag), may lower the device optimizers: the CUDA 12.4
# suite passes "-Xcicc -O1 -Xptxas -O0" (the front end and the assembler
# still see every kernel and every instruction). Empty: a student's build.
DEVICE_OPT_FLAGS ?=
NVCC_LANGUAGE_FLAGS := -std=c++17 -Icommon -lineinfo -Xcompiler -fopenmp,-Wall
# The code for one target: -arch=sm_XX (its machine code and its PTX). For an
# architecture-specific target (sm_90a) nvcc's -arch would also embed the
# PTX of the plain architecture (compute_90), a second pass of the front end
# (about 10 s a file) for code no card runs: wgmma exists only in sm_90a.
comma := ,
target_flags = $(if $(filter sm_%a,$(1)),-gencode arch=$(1:sm_%=compute_%)$(comma)code=[$(1)$(comma)$(1:sm_%=compute_%)],-arch=$(1))
# The chapters whose kernels the list says need sm_90a (Hopper's
# architecture-specific target: wgmma), and those whose sources include one
# of their headers (chapter 13's layer calls chapter 11's GEMM), are built
# for sm_90a where ARCH is sm_90: ARCH_SPECIFIC_FOLDERS, from the list
# (build/gen/programs.mk, below); everything else builds for $(ARCH). The
# library tells a program that finds no code for its card what it was built for.
KERNEL_ARCH = $(ARCH)
ARCH_SPECIFIC_TARGET := $(if $(filter sm_90,$(ARCH)),sm_90a,$(ARCH))
$(BUILD)/obj/common/device/gpu.o: NVCCFLAGS += -DWORKBOOK_ARCH='"$(ARCH)"'
# cuBLAS is loaded by common/device/cublas_loader.cpp when first called;
# libcublas itself is linked only "as needed": where a program calls a
# cuBLAS function the loader does not define.
NVCCLIBS := -lgomp -ldl -Xlinker --push-state,--as-needed,-lcublas,--pop-state
# `make PTXAS_VERBOSE=1` prints registers, shared memory and spills per kernel.
ifeq ($(PTXAS_VERBOSE),1)
NVCCFLAGS += -Xptxas -v
endif

# ---------------------------------------------------------------- chapters
KERNEL_LIST := chapters/kernels.list
CHAPTER_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard chapters/[0-9][0-9]-*/*.cu))))
chapter_number = $(patsubst 0%,%,$(firstword $(subst -, ,$(notdir $(1)))))
CHAPTERS := $(foreach dir,$(CHAPTER_DIRS),$(call chapter_number,$(dir)))
dir_of = $(filter chapters/$(if $(filter 1 2 3 4 5 6 7 8 9,$(1)),0)$(1)-%,$(CHAPTER_DIRS))
# A chapter's story: chapters/NN-slug/slug.cu (woven into the book), and any
# other top-level .cu of its folder; the slug may hold dashes (11-copy-engine).
chapter_slug = $(patsubst $(firstword $(subst -, ,$(notdir $(1))))-%,%,$(notdir $(1)))
CHAPTER_SOURCES := $(foreach dir,$(CHAPTER_DIRS),$(dir)/$(call chapter_slug,$(dir)).cu)
# "N" for each chapters/NN-slug/mutant.patch, "N:NAME" for each mutant-NAME.patch.
MUTANT_CHAPTERS := $(foreach dir,$(CHAPTER_DIRS),$(foreach patch,$(notdir $(wildcard $(dir)/mutant*.patch)),$(call chapter_number,$(dir))$(patsubst mutant%.patch,%,$(subst mutant-,mutant:,$(patch)))))
# Chapter code that later chapters call, not only race: chapter 7's layer,
# whose host side chapter 9 runs with its own GEMMs and attention. Its object
# joins the library, which every program links.
CHAPTER_LIBRARY_SOURCES := chapters/07-tiled/layer.cu

chapter_objects = $(foreach n,$(1),$(patsubst %.cu,$(BUILD)/obj/%.o,$(filter-out $(CHAPTER_LIBRARY_SOURCES),$(wildcard $(call dir_of,$(n))/*.cu))))
tried_objects = $(patsubst %.cu,$(BUILD)/obj/%.o,$(wildcard $(call dir_of,$(1))/tried/*.cu))
# The objects of chapter $(1)'s mutant $(2) (empty: mutant.patch): the sources
# the patch changes (a patched file, or one that #includes one:
# tools/affected_sources.awk) built from the patched copy into
# build/obj/mutant/ROOT/, ROOT being the chapter's folder name, plus +NAME for
# mutant-NAME.patch; the chapter's own objects for the rest, which are not
# compiled again (the chapter's library sources come with the library).
patched_files = $(shell sed -n 's|^--- a/||p' $(1))
mutant_root = $(notdir $(call dir_of,$(1)))$(if $(2),+$(2))
mutant_sources = $(mutant_sources_$(call mutant_root,$(1),$(2)))
mutant_object = $(patsubst $(call dir_of,$(1))/%.cu,$(BUILD)/obj/mutant/$(call mutant_root,$(1),$(2))/%.o,$(3))
own_object = $(patsubst %.cu,$(BUILD)/obj/%.o,$(filter-out $(CHAPTER_LIBRARY_SOURCES),$(1)))
mutant_or_own = $(if $(filter $(3),$(4)),$(call mutant_object,$(1),$(2),$(3)),$(call own_object,$(3)))
mutant_objects = $(foreach source,$(wildcard $(call dir_of,$(1))/*.cu),\
    $(call mutant_or_own,$(1),$(2),$(source),$(call mutant_sources,$(1),$(2))))

COMMON_C := $(wildcard common/*/*.c)
COMMON_CPP := $(wildcard common/*/*.cpp)
COMMON_CU := $(wildcard common/*/*.cu)
COMMON_OBJECTS := $(COMMON_C:%.c=$(BUILD)/obj/%.o) $(COMMON_CPP:%.cpp=$(BUILD)/obj/%.o) \
    $(COMMON_CU:%.cu=$(BUILD)/obj/%.o) \
    $(CHAPTER_LIBRARY_SOURCES:%.cu=$(BUILD)/obj/%.o)
LIBRARY := $(BUILD)/libworkbook.a

# The generator of everything derived from the list (tools/generate.c and
# the file of each of its commands, tools/generate.h): a host program over
# the list's one reader, tools/kernel_list.c; its frontier plot reads the
# measured rows through the book's readers.
GENERATE := $(BUILD)/tools/generate
GENERATE_SOURCES := tools/generate.c tools/programs_mk.c tools/program_main.c tools/kernel_where.c \
    tools/kernel_facts.c \
    tools/frontier.c tools/renumber.c tools/kernel_list.c common/device/gpu_peaks.c \
    book/csv_reader.c book/headline.c book/plain_csv.c book/card_reader.c book/accuracy_reader.c \
    common/harness/numbers.c
$(GENERATE): $(GENERATE_SOURCES) tools/generate.h tools/kernel_list.h common/device/gpu_peaks.h \
        book/csv_reader.h book/headline.h book/plain_csv.h book/card_reader.h book/accuracy_reader.h \
        common/harness/csv.h common/harness/numbers.h common/problems/triangle_reference.h
	@mkdir -p $(dir $@)
	@$(CC) -O2 -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -Icommon -Itools -Ibook \
	    $(GENERATE_SOURCES) -lm -o $@

# Every chapter's code: the generated mains name where each contender's is.
CHAPTER_CODE := $(wildcard chapters/[0-9][0-9]-*/*.cu chapters/[0-9][0-9]-*/*.cuh \
    chapters/[0-9][0-9]-*/tried/*.cu)
# CHAPTER_PROGRAMS, TRIED_PROGRAMS, MUTANT_PROGRAMS, PROGRAMS_OF_N and their rules.
# (Each generated file is written under a name of its own process, $$$$, then
# moved: two makes started at once on a stale tree, as two suites do, must
# not share one temporary file.)
$(BUILD)/gen/programs.mk: $(KERNEL_LIST) $(GENERATE) $(CHAPTER_DIRS) Makefile
	@mkdir -p $(dir $@)
	@$(GENERATE) programs-mk $< "$(CHAPTERS)" "$(MUTANT_CHAPTERS)" \
	    > $@.$$$$.partial && mv $@.$$$$.partial $@
# Every kernel's facts as C (CONTENDER_OF): for the exercises that race a
# chapter's kernel outside the chapter programs (solutions/grade.mk).
$(BUILD)/gen/kernel_facts.h: $(KERNEL_LIST) $(GENERATE) $(CHAPTER_CODE)
	@mkdir -p $(dir $@)
	@$(GENERATE) facts $< > $@.$$$$.partial && mv $@.$$$$.partial $@
# mutant_sources_ROOT for each patch, worked out once (not at every make's
# start): the sources of the chapter that the patch changes.
$(BUILD)/gen/mutant_sources.mk: $(wildcard chapters/*/mutant*.patch) $(CHAPTER_CODE) \
        tools/affected_sources.awk
	@mkdir -p $(dir $@)
	@for patch in $(wildcard chapters/*/mutant*.patch); do \
	    folder=$$(dirname $$patch); name=$$(basename $$patch .patch); \
	    root=$$(basename $$folder)$$(echo $${name#mutant} | sed 's/^-/+/'); \
	    echo "mutant_sources_$$root := $$(awk -v patched="$$(sed -n 's|^--- a/||p' $$patch)" \
	        -f tools/affected_sources.awk $$folder/*.cu | tr '\n' ' ')"; \
	done > $@.$$$$.partial && mv $@.$$$$.partial $@
include $(BUILD)/gen/mutant_sources.mk
include $(BUILD)/gen/programs.mk
$(foreach folder,$(ARCH_SPECIFIC_FOLDERS),$(BUILD)/obj/chapters/$(folder)/%.o \
    $(BUILD)/obj/mutant/$(folder)%.o): KERNEL_ARCH = $(ARCH_SPECIFIC_TARGET)

.PHONY: all help clean deps test verify bench sanitize profile nsight ptxas programs gpu-programs \
        verify-cards verify-forward build-archs arch same-kernels test-programs check \
        $(CHAPTERS:%=chapter%)

HOST_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c)) \
    $(patsubst tests/%.cpp,$(BUILD)/tests/%,$(wildcard tests/test_*.cpp))
GPU_TESTS := $(patsubst tests/%.cu,$(BUILD)/tests/%,$(wildcard tests/test_*.cu))

all: $(CHAPTER_PROGRAMS) $(TRIED_PROGRAMS) $(MUTANT_PROGRAMS) $(HOST_TESTS) $(GPU_TESTS)

help:
	@echo "make                build every chapter, mutant, tried variant, exercise, solution and test"
	@echo "make chapterN       build, check and time chapter N on the GPU (N in $(CHAPTERS))"
	@echo "make verify         check every kernel of every chapter (tried variants too)"
	@echo "make verify-cards   make verify as a T4, an A100 and an L4 would run it (PTX builds)"
	@echo "make verify-forward the same PTX builds run on this card as it is (forward compatibility)"
	@echo "make same-kernels BEFORE=COMMIT   every kernel's PTX now against COMMIT's, names aside"
	@echo "make build-archs    compile every chapter for sm_75 ... sm_120 (BUILD_ARCHS=...)"
	@echo "make bench          time every chapter and size, append rows to plots/data/*.csv"
	@echo "make sanitize       compute-sanitizer memcheck, racecheck, synccheck at small sizes"
	@echo "make profile CH=N   Nsight Compute summary of chapter N's kernels"
	@echo "make nsight         the Nsight Compute readings the book quotes, into plots/data/nsight/"
	@echo "make ptxas          registers, shared memory and spills of every kernel"
	@echo "make programs       the chapter programs: name, problem, chapter, kind, chapters linked"
	@echo "make plots | book | grade | exercises   (see README.md)"
	@echo "make test           everything CI runs; ends in 'N passed, N failed, N skipped'"
	@echo "make check          the host tests and the suites of the chapters changed since the last commit"
	@echo "make deps           install the distribution packages the workbook needs"
	@echo "options: ARCH=sm_XX (default: the card here, $(ARCH) now) DEVICE_CODE=full|fast ($(DEVICE_CODE) now: fast without a card) NVCC=... COMMIT=..."

# Every object records the headers it read (-MMD), so touching one chapter
# or header rebuilds only what depends on it.
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(ARCH_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(DEVICE_CODE_FLAGS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

# A generated main holds no device code (a table of contenders and a call),
# so the host compiler builds it, against the toolkit's headers: a fifth of
# what nvcc's passes would take.
CXX ?= g++
# nvcc says where its headers are (nvcc may be a wrapper script outside the
# toolkit, as /usr/local/bin/nvcc is on some machines); asked once, when a
# main is first compiled.
CUDA_INCLUDE = $(eval CUDA_INCLUDE := $(shell $(NVCC) --dryrun -x cu -c /dev/null -o /dev/null 2>&1 \
    | sed -n 's/^\#\$$ INCLUDES="-I\([^"]*\)".*/\1/p' | head -n 1))$(or $(CUDA_INCLUDE),$(error \
    cannot ask $(NVCC) where the CUDA headers are: is the CUDA Toolkit installed?))
MAIN_CXXFLAGS = -O3 -std=c++17 -Icommon -I$(CUDA_INCLUDE) -fopenmp -Wall -Wextra
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.cu
	@mkdir -p $(dir $@)
	$(CXX) $(MAIN_CXXFLAGS) -x c++ -MMD -MP -MF $(@:.o=.d) -c $< -o $@

# The library's host C++ (common/*/*.cpp: no device code), the same way;
# the toolkit's lib folder is where cuBLAS is looked for last.
$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(MAIN_CXXFLAGS) -DWORKBOOK_CUDA_LIBRARY_DIR='"$(CUDA_INCLUDE)/../lib"' -MMD -MP \
	    -MF $(@:.o=.d) -c $< -o $@

# A mutant is its chapter with one of its patches applied (chapters/NN-slug/
# mutant.patch, or mutant-NAME.patch), in a scratch copy of its sources and
# headers: build/mutant/ROOT/chapters/NN-slug/. Each copy has a root of its
# own, so that a source that #includes another chapter's header
# ("../08-tensor/tensor.cuh") finds the original, never another chapter's mutant.
# A patch may also break a header of an earlier chapter that this chapter's
# kernels include (chapter 13's mutants break chapter 11's GEMM): the files it
# names are copied beside it, so that "../11-copy-engine/gemm.cuh" finds the patched copy.
root_dir = $(firstword $(subst +, ,$(1)))
root_patch = chapters/$(call root_dir,$(1))/mutant$(addprefix -,$(word 2,$(subst +, ,$(1)))).patch
.SECONDEXPANSION:
$(BUILD)/mutant/%/.patched: $$(call root_patch,$$*) \
        $$(wildcard chapters/$$(call root_dir,$$*)/*.cu chapters/$$(call root_dir,$$*)/*.h \
            chapters/$$(call root_dir,$$*)/*.cuh) $$(call patched_files,$$(call root_patch,$$*))
	@rm -rf $(dir $@) && mkdir -p $(dir $@)chapters/$(call root_dir,$*)
	@cp $(wildcard chapters/$(call root_dir,$*)/*.cu chapters/$(call root_dir,$*)/*.h \
	    chapters/$(call root_dir,$*)/*.cuh) \
	    $(dir $@)chapters/$(call root_dir,$*)/
	@for file in $(call patched_files,$<); do \
	    mkdir -p $(dir $@)$$(dirname $$file) && cp $$file $(dir $@)$$file; done
	patch --quiet --forward --batch -p1 -d $(dir $@) < $<
	@touch $@
root_of = $(firstword $(subst /, ,$(1)))
# A mutant exists to be rejected by its check, never to be timed, and each
# of its bugs is in what the code computes: its device code is compiled with
# nvcc's fast compile where nvcc has one (NVCC_FAST_COMPILE, plots/figures.mk),
# in about half the time.
MUTANT_NVCCFLAGS = $(NVCC_FAST_COMPILE)
$(BUILD)/obj/mutant/%.o: $(BUILD)/mutant/$$(call root_of,$$*)/.patched $(ARCH_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(MUTANT_NVCCFLAGS) -Ichapters/$(call root_dir,$(call root_of,$*)) -MMD -MP -MF $(@:.o=.d) \
	    -c $(BUILD)/mutant/$(call root_of,$*)/chapters/$(call root_dir,$(call root_of,$*))/$(notdir $*).cu -o $@

# The library holds common/ (and CHAPTER_LIBRARY_SOURCES); the kernels a
# chapter races are linked from their own chapters' objects.
$(LIBRARY): $(COMMON_OBJECTS)
	@rm -f $@
	ar rcs $@ $^

# Every chapter's objects in one archive, for the programs outside the
# chapters (the predict exercises race a chapter's kernel as it is): the
# linker takes from it only the objects that define what a program uses.
CHAPTER_ARCHIVE := $(BUILD)/libchapters.a
$(CHAPTER_ARCHIVE): $(call chapter_objects,$(CHAPTERS))
	@rm -f $@
	ar rcs $@ $^

define chapter_target
chapter$(1): $(PROGRAMS_OF_$(1))
	@for program in $(PROGRAMS_OF_$(1)); do \
	    $$$$program; status=$$$$?; \
	    if [ $$$$status -eq 77 ]; then echo "chapter$(1): skipped, no GPU here"; fi; \
	    [ $$$$status -eq 0 ] || exit $$$$status; \
	done
endef
$(foreach n,$(CHAPTERS),$(eval $(call chapter_target,$(n))))

programs: $(GENERATE)
	@$(GENERATE) programs $(KERNEL_LIST) "$(CHAPTERS)" "$(MUTANT_CHAPTERS)"

# ---------------------------------------------------------------- GPU runs
GPU_PROGRAMS := $(CHAPTER_PROGRAMS) $(TRIED_PROGRAMS)
gpu-programs: $(GPU_PROGRAMS)
# The target this make builds for (the card found, ARCH=, or the default).
arch:
	@echo $(ARCH)
verify: $(GPU_PROGRAMS)
	@bench/gpu_runs.sh verify $(CHAPTERS)

# The cards students own, run on the card that is here: each program built as
# PTX only for the card's compute capability (the driver compiles it for this
# card, and the code takes that card's paths), then make verify with the
# programs kept to the card's limits (WORKBOOK_CARD: its capability and its
# shared memory per block). CARDS="T4:compute_75 ..." picks others.
CARDS ?= T4:compute_75 A100:compute_80 L4:compute_89
verify-cards:
	@status=0; for card in $(CARDS); do \
	  name=$${card%%:*}; arch=$${card#*:}; \
	  echo "== $$name: programs built for $$arch only, kept to its limits (WORKBOOK_CARD=$$name)"; \
	  $(MAKE) --no-print-directory BUILD=$(BUILD)-$$arch ARCH=$$arch gpu-programs || exit 1; \
	  ARCH=$$arch BUILD=$(BUILD)-$$arch WORKBOOK_CARD=$$name bench/gpu_runs.sh verify $(CHAPTERS) \
	    || { s=$$?; [ $$s -eq 77 ] || status=1; }; \
	done; exit $$status

# Built for an older card, run on this one (forward compatibility: a lab
# image built for its oldest card, `make ARCH=sm_80` on an H100): the same
# PTX builds as verify-cards, run on the card as it is. The host must choose
# by what the kernels were compiled for, not only by the card.
verify-forward:
	@status=0; for card in $(CARDS); do \
	  name=$${card%%:*}; arch=$${card#*:}; \
	  echo "== programs built for $$arch only (a $$name's), run on this card as it is"; \
	  $(MAKE) --no-print-directory BUILD=$(BUILD)-$$arch ARCH=$$arch gpu-programs || exit 1; \
	  ARCH=$$arch BUILD=$(BUILD)-$$arch bench/gpu_runs.sh verify $(CHAPTERS) \
	    || { s=$$?; [ $$s -eq 77 ] || status=1; }; \
	done; exit $$status

# Whether a change that should move code without changing it kept every
# kernel's instructions: each chapter source's PTX now and at commit BEFORE,
# kernel by kernel, names aside (tools/same_kernels.sh says how).
same-kernels:
	@[ -n $(call shell_quote,$(value BEFORE)) ] || \
	    { echo "make same-kernels BEFORE=COMMIT [ARCH=sm_XX] [MERGED=new.cu=old.cu,...]" >&2; exit 2; }
	@MERGED=$(call shell_quote,$(value MERGED)) NVCC=$(call shell_quote,$(NVCC)) BUILD=$(BUILD) \
	    tools/same_kernels.sh $(call shell_quote,$(value BEFORE)) $(ARCH_SPECIFIC_TARGET) \
	    $(call shell_quote,$(or $(value FOLDER),chapters))

# The proof that the workbook builds for every card the toolkit knows: every
# chapter's code and its tried variants (the kernels; common/'s device
# helpers are headers they include) compiled, not linked, for each target of
# BUILD_ARCHS, in $(BUILD)-archs. One nvcc a
# source with a -gencode for each target: the host code is compiled once,
# the device code once per target, the targets in parallel (--threads 0).
# Chapters 10 to 13 take sm_90a where the list has sm_90. By default the
# targets of DESIGN's cards that this nvcc lists (--list-gpu-code): CUDA 12.4
# stops at sm_90, CUDA 13 goes to sm_120.
# ARCHS_FLAGS adds flags to these compiles (the cards suite asks for device
# fast-compile: every instruction still assembled for each target).
# ARCHS_PTX_OF="sm_89:compute_80" assembles a target from another target's
# PTX (one front-end pass less), for code with no branch between the two
# capabilities (the cards suite checks there is none).
# ARCHS_HOPPER_ONLY_ON=sm_75 compiles the chapters every kernel of which
# needs sm_90a (HOPPER_ONLY_FOLDERS, from the list: chapters 10 to 12) for
# that one target and sm_90a, not for each of BUILD_ARCHS: on any other
# card their kernels are stubs that trap (wgmma.h, bulk_copy.h) and the
# host never launches them, so one target shows that they compile. The
# oldest is the strictest: what a later card lacks, Turing lacks too.
SERVED_ARCHS := sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120
ARCHS_FLAGS ?=
ARCHS_PTX_OF ?=
ARCHS_HOPPER_ONLY_ON ?=
BUILD_ARCHS ?= $(filter $(SERVED_ARCHS),$(shell $(NVCC) --list-gpu-code 2>/dev/null))
ARCHS_BUILD := $(BUILD)-archs
ARCHS_STAMP := $(ARCHS_BUILD)/gen/archs
CHAPTER_OBJECTS = $(foreach n,$(CHAPTERS),$(call chapter_objects,$(n)) $(call tried_objects,$(n)))
# Device code only (a fat binary per source, no host objects): the host code
# is the same for every card and the default build compiles it; leaving it
# out halves the time.
ARCHS_FATBINS = $(patsubst $(BUILD)/obj/%.o,$(ARCHS_BUILD)/fatbin/%.fatbin,$(CHAPTER_OBJECTS) \
    $(CHAPTER_LIBRARY_SOURCES:%.cu=$(BUILD)/obj/%.o))
# -gencode for target $(2) of source $(1): sm_90a for ARCH_SPECIFIC_FOLDERS.
arch_specific_source = $(filter $(foreach chapter,$(ARCH_SPECIFIC_FOLDERS),chapters/$(chapter)/%),$(1))
archs_target = $(if $(and $(call arch_specific_source,$(1)),$(filter sm_90,$(2))),sm_90a,$(2))
archs_virtual = $(or $(patsubst $(1):%,%,$(filter $(1):%,$(ARCHS_PTX_OF))),$(subst sm_,compute_,$(1)))
hopper_only_source = $(filter $(foreach chapter,$(HOPPER_ONLY_FOLDERS),chapters/$(chapter)/%),$(1))
# the targets of source $(1): all of BUILD_ARCHS, or for a Hopper-only one
# with ARCHS_HOPPER_ONLY_ON those of sm_90 and it that BUILD_ARCHS has
hopper_only_archs = $(if $(and $(ARCHS_HOPPER_ONLY_ON),$(call hopper_only_source,$(1))),\
    $(filter sm_90 $(ARCHS_HOPPER_ONLY_ON),$(BUILD_ARCHS)))
archs_of = $(or $(strip $(call hopper_only_archs,$(1))),$(BUILD_ARCHS))
archs_gencode = $(foreach arch,$(call archs_of,$(1)),-gencode \
    arch=$(call archs_virtual,$(call archs_target,$(1),$(arch)))$(comma)code=$(call archs_target,$(1),$(arch)))
$(ARCHS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(BUILD_ARCHS) $(ARCHS_PTX_OF) $(ARCHS_HOPPER_ONLY_ON)" ] || \
	    echo "$(BUILD_ARCHS) $(ARCHS_PTX_OF) $(ARCHS_HOPPER_ONLY_ON)" > $@
$(ARCHS_BUILD)/fatbin/%.fatbin: %.cu $(ARCHS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) -O3 $(call archs_gencode,$<) --threads 0 $(ARCHS_FLAGS) $(NVCC_LANGUAGE_FLAGS) \
	    -MMD -MP -MF $(@:.fatbin=.d) --fatbin $< -o $@
build-archs: $(ARCHS_FATBINS)
	@[ -n "$(strip $(BUILD_ARCHS))" ] || { echo "build-archs: no target: $(NVCC) --list-gpu-code lists none of $(SERVED_ARCHS)" >&2; exit 1; }
	@echo "build-archs: $(words $(ARCHS_FATBINS)) fat binaries, each for $(BUILD_ARCHS), in $(ARCHS_BUILD)/fatbin"
print-build-archs:
	@echo $(BUILD_ARCHS)
print-hopper-only-folders:
	@echo $(HOPPER_ONLY_FOLDERS)
print-device-code:
	@echo $(DEVICE_CODE)
print-nvcc:
	@echo $(NVCC)
print-main-cxxflags:
	@echo $(MAIN_CXXFLAGS)
.PHONY: FORCE print-build-archs print-hopper-only-folders print-device-code print-nvcc print-main-cxxflags

bench: $(GPU_PROGRAMS)
	@bench/gpu_runs.sh bench $(CHAPTERS)
	@bench/gpu_runs.sh torch

sanitize: $(GPU_PROGRAMS)
	@bench/gpu_runs.sh sanitize $(CHAPTERS)

# The Nsight Compute readings the book quotes (plots/nsight.list), rows to
# plots/data/nsight/nsight.csv; needs ncu and leave to read the counters.
nsight: $(GPU_PROGRAMS)
	@bench/gpu_runs.sh nsight

# CH as typed, never expanded; only one of the chapters' numbers is taken.
PROFILE_CHAPTER := $(strip $(value CH))
profile: $(GPU_PROGRAMS)
	$(if $(PROFILE_CHAPTER),,$(error usage: make profile CH=N (N in $(CHAPTERS))))
	$(if $(filter-out 1,$(words $(PROFILE_CHAPTER)))$(filter-out $(CHAPTERS),$(PROFILE_CHAPTER)),\
	  $(error make profile: CH=$(PROFILE_CHAPTER) is not a chapter; the chapters are $(CHAPTERS)))
	@bench/gpu_runs.sh profile $(call shell_quote,$(PROFILE_CHAPTER))

ptxas:
	@for src in $(foreach dir,$(CHAPTER_DIRS),$(wildcard $(dir)/*.cu $(dir)/tried/*.cu)); do \
	  echo "== $$src"; arch=$(ARCH); \
	  for chapter in $(ARCH_SPECIFIC_FOLDERS); do \
	    case $$src in chapters/$$chapter/*) arch=$(ARCH_SPECIFIC_TARGET);; esac; done; \
	  $(NVCC) -arch=$$arch $(filter-out -arch=%,$(NVCCFLAGS)) -Xptxas -v -I$$(dirname $$src) \
	    -c $$src -o /dev/null 2>&1 \
	    | grep -E "Compiling entry|registers|spill" || exit 1; \
	done

# ---------------------------------------------------------------- tests
# Every tests/test_*.c is a cmocka program over the host code of common/;
# every tests/test_*.cu a GPU test of common/'s device helpers.
# The book's readers and the list's reader are host code the tests cover too.
# Each of that code's files is compiled once, with the library's flags (common/'s
# objects are the library's own), and every test links the objects: compiled
# into each of the nine tests, the same 21 files took 40 s of CPU of the build.
HOST_TEST_SOURCES := $(COMMON_C) book/csv_reader.c book/headline.c book/markdown.c book/shape_count.c book/plain_csv.c book/card_reader.c book/nsight_reader.c book/accuracy_reader.c tools/kernel_list.c
HOST_TEST_OBJECTS := $(HOST_TEST_SOURCES:%.c=$(BUILD)/obj/%.o)
$(BUILD)/obj/book/%.o $(BUILD)/obj/tools/%.o: CFLAGS += -Ibook -Itools
$(BUILD)/tests/%: tests/%.c $(HOST_TEST_OBJECTS) $(wildcard common/*/*.h book/*.h tools/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon -Ibook -Itools $< $(HOST_TEST_OBJECTS) -lcmocka -lm -o $@

# (tests/test_*.cpp: host C++ over the library, with the CUDA headers)
$(BUILD)/tests/%: tests/%.cpp $(LIBRARY)
	@mkdir -p $(dir $@)
	$(CXX) $(MAIN_CXXFLAGS) $< $(LIBRARY) -lcmocka -ldl -o $@

$(BUILD)/tests/%: tests/%.cu $(LIBRARY) $(wildcard common/*/*.h)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $< $(LIBRARY) $(NVCCLIBS) -o $@

# make test builds what the suites run first, in parallel even where make
# was called without -j (a fresh clone's `make test`), and hands the build's
# seconds to the table run_tests.sh prints at the end. The exercise and
# solution programs are not among them: the grader's suite compiles each of
# them, in its sandbox, as it grades them (`make` builds them too).
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_PROGRAMS = $(CHAPTER_PROGRAMS) $(TRIED_PROGRAMS) $(MUTANT_PROGRAMS) $(HOST_TESTS) $(GPU_TESTS) \
    $(CHAPTER_ARCHIVE)
test-programs: $(TEST_PROGRAMS)
test:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(BUILD_JOBS)) test-programs \
	    || exit 1; \
	BUILD_SECONDS=$$(( $$(date +%s) - start )) tests/run_tests.sh

# The quick look before a commit (tests/check.sh): the host tests, and the
# suites that run the chapters whose files changed since the last commit.
check:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(BUILD_JOBS)) test-programs
	@tests/check.sh

# ---------------------------------------------------------------- the rest
deps:
	@tools/install_deps.sh

clean:
	rm -rf $(BUILD) $(BUILD)-sm_* $(BUILD)-compute_* $(ARCHS_BUILD) $(BUILD)-cuda12

-include $(shell find $(BUILD)/obj $(ARCHS_BUILD)/fatbin -name '*.d' 2>/dev/null)
-include book/book.mk
-include plots/plots.mk
-include plots/figures.mk
-include solutions/grade.mk

# The book's tools (and their sanitized build) and the figure programs are
# built with the rest before the suites, so that no suite compiles them
# while another runs beside it.
test-programs: book-tools figure-programs $(BOOK_ASAN)/weave $(BOOK_ASAN)/results

# Makefile - the workbook's one entry point. `make help` lists the targets.
#
# Chapters are found by their folders: chapters/NN-slug/slug.cu is chapter N.
# A chapter's program races the kernels of the earlier chapters named in
# LINKS_N below; their sources are compiled without their main().

NVCC ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
ARCH ?= sm_90
CC ?= gcc
BUILD := build
PYTHON ?= python3

COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
export WORKBOOK_COMMIT := $(COMMIT)

# What a recipe hands the shell from a variable goes through shell_quote:
# 'text', each ' in it written '\'', so a name is never read as shell
# syntax (a ; or a `...` in it stays part of the name).
shell_quote = '$(subst ','\'',$(1))'
# CH and EX (make profile, make grade) name a chapter and exercises. Make
# would expand them as it exports them to every recipe's environment, so a
# $(...) in them would run; they are read with $(value ...) instead.
unexport CH EX

CFLAGS := -O3 -std=c11 -Wall -Wextra -fopenmp -D_POSIX_C_SOURCE=200809L
NVCCFLAGS := -O3 -arch=$(ARCH) -std=c++17 -Icommon -lineinfo -Xcompiler -fopenmp,-Wall
NVCCLIBS := -lcublas -lgomp
# `make PTXAS_VERBOSE=1` prints registers, shared memory and spills per kernel.
ifeq ($(PTXAS_VERBOSE),1)
NVCCFLAGS += -Xptxas -v
endif

# ---------------------------------------------------------------- chapters
CHAPTER_SOURCES := $(sort $(wildcard chapters/[0-9][0-9]-*/*.cu))
chapter_number = $(patsubst 0%,%,$(firstword $(subst -, ,$(notdir $(patsubst %/,%,$(dir $(1)))))))
CHAPTERS := $(foreach src,$(CHAPTER_SOURCES),$(call chapter_number,$(src)))
source_of = $(filter chapters/$(if $(filter 1 2 3 4 5 6 7 8 9,$(1)),0)$(1)-%,$(CHAPTER_SOURCES))

# The earlier chapters whose kernels chapter N races.
LINKS_3 := 2
LINKS_4 := 2 3
LINKS_5 := 2 3 4
LINKS_7 := 6
LINKS_8 := 2 3 4 5

COMMON_C := $(wildcard common/*.c)
COMMON_CU := $(wildcard common/*.cu)
COMMON_H := $(wildcard common/*.h)
COMMON_OBJECTS := $(COMMON_C:%.c=$(BUILD)/obj/%.o) $(COMMON_CU:%.cu=$(BUILD)/obj/%.o)
LIBRARY := $(BUILD)/libworkbook.a

CHAPTER_PROGRAMS := $(CHAPTERS:%=$(BUILD)/chapter%)
MUTANT_PROGRAMS := $(CHAPTERS:%=$(BUILD)/chapter%-mutant)

.PHONY: all help clean deps test verify bench sanitize profile ptxas \
        $(CHAPTERS:%=chapter%)

HOST_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))

all: $(CHAPTER_PROGRAMS) $(MUTANT_PROGRAMS) $(HOST_TESTS)

help:
	@echo "make                build every chapter, mutant, exercise, solution and test"
	@echo "make chapterN       build, check and time chapter N on the GPU (N in $(CHAPTERS))"
	@echo "make verify         check every kernel of every chapter"
	@echo "make bench          time every chapter and size, append rows to plots/data/*.csv"
	@echo "make sanitize       compute-sanitizer memcheck and racecheck at small sizes"
	@echo "make profile CH=N   Nsight Compute summary of chapter N's kernels"
	@echo "make ptxas          registers, shared memory and spills of every kernel"
	@echo "make plots | book | grade | exercises   (see README.md)"
	@echo "make test           everything CI runs; ends in 'N passed, N failed, N skipped'"
	@echo "make deps           install the distribution packages the workbook needs"
	@echo "options: ARCH=sm_90 (default) NVCC=... COMMIT=..."

$(BUILD)/obj/common/%.o: common/%.c $(COMMON_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/common/%.o: common/%.cu $(COMMON_H)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# The library holds common/ and chapter 1's cuBLAS champions, which every
# triangle program races.
$(LIBRARY): $(COMMON_OBJECTS) $(BUILD)/obj/kernels1.o
	@rm -f $@
	ar rcs $@ $^

# A chapter's kernels alone (no main), for the chapters that race them.
$(BUILD)/obj/kernels%.o: $(COMMON_H) $(CHAPTER_SOURCES)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -DWORKBOOK_CHAPTER=0 -c $(call source_of,$*) -o $@

define chapter_rules
$(BUILD)/chapter$(1): $(call source_of,$(1)) $(foreach n,$(LINKS_$(1)),$(BUILD)/obj/kernels$(n).o) $(LIBRARY)
	$(NVCC) $(NVCCFLAGS) -DWORKBOOK_CHAPTER=$(1) $$^ $(NVCCLIBS) -o $$@

$(BUILD)/chapter$(1)-mutant: $(call source_of,$(1)) $(foreach n,$(LINKS_$(1)),$(BUILD)/obj/kernels$(n).o) $(LIBRARY)
	$(NVCC) $(NVCCFLAGS) -DWORKBOOK_CHAPTER=$(1) -DWORKBOOK_MUTANT $$^ $(NVCCLIBS) -o $$@

chapter$(1): $(BUILD)/chapter$(1)
	@$(BUILD)/chapter$(1); status=$$$$?; \
	if [ $$$$status -eq 77 ]; then echo "chapter$(1): skipped, no GPU here"; fi; \
	exit $$$$status
endef
$(foreach n,$(CHAPTERS),$(eval $(call chapter_rules,$(n))))

# ---------------------------------------------------------------- GPU runs
verify: $(CHAPTER_PROGRAMS)
	@tests/gpu_runs.sh verify $(CHAPTERS)

bench: $(CHAPTER_PROGRAMS)
	@tests/gpu_runs.sh bench $(CHAPTERS)

sanitize: $(CHAPTER_PROGRAMS)
	@tests/gpu_runs.sh sanitize $(CHAPTERS)

# CH as typed, never expanded; only one of the chapters' numbers is taken.
PROFILE_CHAPTER := $(strip $(value CH))
profile: $(CHAPTER_PROGRAMS)
	$(if $(PROFILE_CHAPTER),,$(error usage: make profile CH=N (N in $(CHAPTERS))))
	$(if $(filter-out 1,$(words $(PROFILE_CHAPTER)))$(filter-out $(CHAPTERS),$(PROFILE_CHAPTER)),\
	  $(error make profile: CH=$(PROFILE_CHAPTER) is not a chapter; the chapters are $(CHAPTERS)))
	@tests/gpu_runs.sh profile $(call shell_quote,$(PROFILE_CHAPTER))

ptxas:
	@for src in $(CHAPTER_SOURCES); do \
	  echo "== $$src"; \
	  $(NVCC) $(NVCCFLAGS) -Xptxas -v -DWORKBOOK_CHAPTER=0 -c $$src -o /dev/null 2>&1 \
	    | grep -E "Compiling entry|registers|spill" || exit 1; \
	done

# ---------------------------------------------------------------- tests
# Every tests/test_*.c is a cmocka program over the host code of common/.
$(BUILD)/tests/%: tests/%.c $(COMMON_C) $(COMMON_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon $< $(COMMON_C) -lcmocka -lm -o $@

test: all
	@tests/run_tests.sh

# ---------------------------------------------------------------- the rest
deps:
	@tests/install_deps.sh

clean:
	rm -rf $(BUILD)

-include book/book.mk
-include plots/plots.mk
-include solutions/grade.mk

# solutions/grade.mk - exercises and solutions; included by the Makefile.
#
#   make exercises               regenerate exercises/ from solutions/ (solutions/generate.sh)
#   make grade                   build and grade every exercise in exercises/
#   make grade EX=02-triangle-grid   build and grade one
#   make grade GRADE_DIR=solutions   the same grader on the solutions (or on any
#                                folder of files named like the exercises)
#   make handout                 build/handout.tar.gz: the repository without the
#                                solutions (NN-*.cu, NN-*.cuh and the fixtures made of them)
#   make test-exercises          only the exercise tests of `make test`
#                                (tests/suites/80-exercises.sh)
#
# Every exercise and solution is a standalone program, built like a chapter
# against the library: build/exercises/NN-slug and build/solutions/NN-slug.
# solutions/README.md explains it all for instructors and students.

GRADE_DIR ?= exercises
GRADE_FOLDER := $(patsubst %/,%,$(GRADE_DIR))

EXERCISE_SOURCES := $(sort $(wildcard exercises/[0-9][0-9]-*.cu))
SOLUTION_SOURCES := $(sort $(wildcard solutions/[0-9][0-9]-*.cu))
EXERCISE_PROGRAMS := $(EXERCISE_SOURCES:%.cu=$(BUILD)/%)
SOLUTION_PROGRAMS := $(SOLUTION_SOURCES:%.cu=$(BUILD)/%)

all: $(EXERCISE_PROGRAMS) $(SOLUTION_PROGRAMS)

# One set of rules per folder of exercise-shaped programs:
#   $(BUILD)/F/NAME          the program (against the library)
#   $(BUILD)/F/NAME.host     the host-side check: solutions/host/EXERCISE.cu with
#                            F/NAME.cu included and its main renamed (EXERCISE is
#                            NAME up to a "--", so that a fixture
#                            EXERCISE--what.cu is checked as EXERCISE); PTX
#                            only, since it launches nothing
#   $(BUILD)/F/NAME.ptx      its PTX, for the width of its loads and stores
#   $(BUILD)/F/NAME.ptxas    what ptxas -v says of its kernels (stack frame, spills)
# -I. lets an exercise include a chapter's source ("chapters/05-shared/shared.cu").
EXERCISE_HEADERS := $(wildcard common/*/*.h) $(wildcard solutions/*.cuh)
EXERCISE_FLAGS := $(NVCCFLAGS) -I.
HOST_CHECK_FLAGS := $(filter-out -arch=% -lineinfo,$(NVCCFLAGS)) -I. \
    -gencode arch=compute_$(ARCH:sm_%=%),code=compute_$(ARCH:sm_%=%)
HOST_CHECK_HEADERS := $(wildcard solutions/host/*.h)
exercise_of = $(firstword $(subst --, ,$(1)))

define exercise_folder_rule
$(BUILD)/$(1)/%: $(1)/%.cu $(LIBRARY) $(EXERCISE_HEADERS)
	@mkdir -p $$(dir $$@)
	$(NVCC) $(EXERCISE_FLAGS) -MMD -MP -MF $$@.d $$< $(LIBRARY) $(NVCCLIBS) -o $$@

$(BUILD)/$(1)/%.host: $(1)/%.cu solutions/host/$$$$(call exercise_of,$$$$*).cu \
        $(HOST_CHECK_HEADERS) $(LIBRARY) $(EXERCISE_HEADERS)
	@mkdir -p $$(dir $$@)
	$(NVCC) $(HOST_CHECK_FLAGS) -MMD -MP -MF $$@.d -DEXERCISE_FILE='"$$<"' -Dmain=exercise_main \
	    solutions/host/$$(call exercise_of,$$*).cu $(LIBRARY) $(NVCCLIBS) -o $$@

$(BUILD)/$(1)/%.ptx: $(1)/%.cu $(EXERCISE_HEADERS)
	@mkdir -p $$(dir $$@)
	$(NVCC) $(EXERCISE_FLAGS) -MMD -MP -MF $$@.d -ptx $$< -o $$@

$(BUILD)/$(1)/%.ptxas: $(1)/%.cu $(EXERCISE_HEADERS)
	@mkdir -p $$(dir $$@)
	$(NVCC) $(EXERCISE_FLAGS) -MMD -MP -MF $$@.d -Xptxas -v -cubin $$< -o $$@.cubin 2> $$@.partial \
	    && mv $$@.partial $$@ || { cat $$@.partial >&2; rm -f $$@.partial; exit 1; }
endef
$(foreach folder,$(sort exercises solutions $(GRADE_FOLDER)),\
  $(eval $(call exercise_folder_rule,$(folder))))
-include $(wildcard $(BUILD)/exercises/*.d $(BUILD)/solutions/*.d $(BUILD)/$(GRADE_FOLDER)/*.d)

.PHONY: exercises grade handout test-exercises

exercises:
	@solutions/generate.sh exercises

# grade.sh builds each program through this Makefile (so a compile error is
# graded as one), runs it at its sizes and prints the table. Its exit status:
# 0 all passed, 1 something failed, 2 bad usage, 77 compiled but no GPU here
# to run on (make then reports "Error 77").
#
# EX is read as typed ($(value EX), never expanded) and each of its words
# must name an exercise of the graded folder: NN-slug, NN-slug.cu or a path
# to it. Only those names reach the grader, each quoted; anything else stops
# make with the list of exercises (exit 2), and nothing of it runs.
GRADE_NAMES := $(patsubst $(GRADE_FOLDER)/%.cu,%,$(wildcard $(GRADE_FOLDER)/[0-9][0-9]-*.cu))
GRADE_WANTED := $(patsubst %.cu,%,$(notdir $(value EX)))
GRADE_UNKNOWN := $(filter-out $(GRADE_NAMES),$(GRADE_WANTED))
grade: $(LIBRARY)
	$(if $(GRADE_UNKNOWN),$(error make grade: EX=$(value EX) names no exercise in \
	  $(GRADE_FOLDER)/ ($(GRADE_UNKNOWN)); the exercises are: $(GRADE_NAMES)))
	@MAKE=$(call shell_quote,$(MAKE)) BUILD=$(call shell_quote,$(BUILD)) \
	  GRADE_DIR=$(call shell_quote,$(GRADE_FOLDER)) \
	  solutions/grade.sh $(foreach name,$(GRADE_WANTED),$(call shell_quote,$(name)))

# Everything git would commit (tracked or not yet added, nothing ignored),
# less the solution programs and the grader's fixtures made from them
# (tests/fixtures/grade/EXERCISE--what.patch: a solution's fault).
handout:
	@mkdir -p $(BUILD)
	@git ls-files --cached --others --exclude-standard \
	  | grep -v -E '^solutions/[0-9][0-9]-[^/]*\.cuh?$$' \
	  | grep -v -E '^tests/fixtures/grade/[0-9][0-9]-[^/]*--[^/]*\.patch$$' \
	  | tar -czf $(BUILD)/handout.tar.gz --transform 's,^,workbook/,' -T -
	@echo "$(BUILD)/handout.tar.gz: the workbook without the solutions and the fixtures made of them"

# The exercise part of `make test` alone: on a GPU, the proof that every
# untouched exercise fails and every solution passes.
test-exercises: $(EXERCISE_PROGRAMS) $(SOLUTION_PROGRAMS)
	@bash -c '. tests/lib.sh; . tests/suites/80-exercises.sh; echo; \
	  echo "$$PASSED passed, $$FAILED failed, $$SKIPPED skipped"; [ $$FAILED -eq 0 ]'

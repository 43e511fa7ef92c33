# solutions/grade.mk - exercises and solutions; included by the Makefile.
#
#   make exercises               regenerate exercises/ from solutions/ (solutions/generate.sh)
#   make grade                   build and grade every exercise in exercises/
#   make grade EX=02-triangle-grid   build and grade one
#   make grade GRADE_DIR=solutions   the same grader on the solutions (or on any
#                                folder of files named like the exercises)
#   make grade-class DIR=submissions/   every student folder of DIR: a table each and
#                                one CSV (solutions/grade-class.sh)
#   make handout                 build/handout.tar.gz: the tracked files without the
#                                solutions (NN-*.cu, NN-*.cuh and the fixtures made of them)
#   make test-exercises          only the exercise tests of `make test`
#                                (tests/suites/80-exercises.sh)
#
# Every exercise and solution is a standalone program, built like a chapter
# against the library: build/exercises/NN-slug and build/solutions/NN-slug.
# solutions/README.md explains it all for instructors and students.

# GRADE_DIR and DIR name folders; EX names exercises. Like CH and EX in the
# Makefile they are read as typed ($(value ...)), never expanded, and reach
# the scripts as quoted text, which checks them: a name that is not NN-name
# is refused there, and a $(...), a ; or a space in a folder's name is only
# text. Nothing here builds rules from them: inside the grader's sandbox
# the graded folder is always called `submission`.
unexport GRADE_DIR DIR
GRADE_DIR ?= exercises

EXERCISE_SOURCES := $(sort $(wildcard exercises/[0-9][0-9]-*.cu))
SOLUTION_SOURCES := $(sort $(wildcard solutions/[0-9][0-9]-*.cu))
EXERCISE_PROGRAMS := $(EXERCISE_SOURCES:%.cu=$(BUILD)/%)
SOLUTION_PROGRAMS := $(SOLUTION_SOURCES:%.cu=$(BUILD)/%)

all: $(EXERCISE_PROGRAMS) $(SOLUTION_PROGRAMS)

# One set of rules per folder of exercise-shaped programs:
#   $(BUILD)/F/NAME.o        the program's object: the grader looks in it for
#                            the library's symbols (a submission may not
#                            replace compare_results and the like)
#   $(BUILD)/F/NAME          the program (the object against the library)
#   $(BUILD)/F/NAME.host     the host-side check, where the exercise has one
#                            (solutions/host/EXERCISE.cu, EXERCISE being NAME
#                            up to a "--", so that a fixture EXERCISE--what.cu
#                            is checked as EXERCISE)
#   $(BUILD)/F/NAME.ptx      its PTX, for the width of its loads and stores
#   $(BUILD)/F/NAME.ptxas    what ptxas -v says of its kernels (stack frame, spills)
# An exercise with a host check is compiled once for both programs: the
# object is solutions/host/EXERCISE.cu, which includes F/NAME.cu with its
# main renamed exercise_main (and holds the check's own entry,
# host_check_main); the program links it with main_program.o, the check
# with main_check.o. Its kernels are the file's alone (a check launches
# nothing), so its PTX and ptxas report are the file's.
# -I. lets an exercise include a chapter's header ("chapters/08-tensor/tensor.cuh");
# a predict exercise races a chapter's kernel as the chapter built it, from
# the chapters' archive (CHAPTER_ARCHIVE), which the link takes it from.
# Every file name a recipe hands the shell is quoted.
# A predict exercise takes the facts of the chapter's kernel it races from
# the list, as the chapter programs do ("gen/kernel_facts.h", CONTENDER_OF).
EXERCISE_HEADERS := $(wildcard common/*/*.h) $(wildcard solutions/*.cuh) $(BUILD)/gen/kernel_facts.h
# WORKBOOK_CUBLAS_HANDLE_ONLY: device/gpu.h declares cuBLAS's handle alone,
# without cuBLAS's header, a third of each compile (an exercise that calls
# cuBLAS includes <cublas_v2.h> itself).
EXERCISE_FLAGS := $(NVCCFLAGS) -I. -I$(BUILD) -DWORKBOOK_CUBLAS_HANDLE_ONLY
# No device link (-nodlink): nothing here is compiled as relocatable device
# code (-rdc), so each object registers its own kernels and nvcc's device
# link step (nvlink over the chapters' whole archive, then a compile of its
# registration stub) adds nothing to the program; it was a fifth of a link's
# CPU (0.106 to 0.085 CPU-s), and the grader links twice a submission.
EXERCISE_LINK_FLAGS := -nodlink
HOST_CHECK_HEADERS := $(wildcard solutions/host/*.h)
GRADE_MAINS := $(BUILD)/obj/grade/main_program.o $(BUILD)/obj/grade/main_check.o
exercise_of = $(firstword $(subst --, ,$(1)))
q = $(call shell_quote,$(1))
# host_check_of NAME: solutions/host/EXERCISE.cu, or nothing
host_check_of = $(wildcard solutions/host/$(call exercise_of,$(1)).cu)
# compile_input FOLDER NAME: what the object's one compile reads
compile_input = $(if $(call host_check_of,$(2)),-DEXERCISE_FILE=$(call q,"$(1)/$(2).cu") \
    -Dmain=exercise_main $(call host_check_of,$(2)),$(call q,$(1)/$(2).cu))
# program_main NAME: main_program.o where the object's main was renamed
program_main = $(if $(call host_check_of,$(1)),$(BUILD)/obj/grade/main_program.o)

$(BUILD)/obj/grade/%.o: solutions/host/%.cpp $(HOST_CHECK_HEADERS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

define exercise_object_rule
$(BUILD)/$(1)/%.o: $(1)/%.cu $$$$(call host_check_of,$$$$*) $(HOST_CHECK_HEADERS) $(EXERCISE_HEADERS)
	@mkdir -p $$(call q,$$(dir $$@))
	$(NVCC) $(EXERCISE_FLAGS) -MMD -MP -MF $$(call q,$$@.d) -c $$(call compile_input,$(1),$$*) \
	    -o $$(call q,$$@)
endef
$(foreach folder,exercises solutions,$(eval $(call exercise_object_rule,$(folder))))

# In the grader's sandbox (the folder `submission`) the object's one compile
# also leaves its PTX (kept with -keep, the same text -ptx writes, named for
# the file compiled) and what ptxas -v says of its kernels: NAME.ptx and
# NAME.ptxas come with NAME.o, and their own rules below find them up to
# date. Its messages are printed only when it fails (the grader reads the
# first error from them).
kept_ptx = $(if $(call host_check_of,$(1)),$(call exercise_of,$(1)),$(1)).ptx
$(BUILD)/submission/%.o: submission/%.cu $$(call host_check_of,$$*) $(HOST_CHECK_HEADERS) \
        $(EXERCISE_HEADERS)
	@rm -rf $(call q,$@.keep) && mkdir -p $(call q,$@.keep)
	$(NVCC) $(EXERCISE_FLAGS) -Xptxas -v -keep -keep-dir $(call q,$@.keep) \
	    -c $(call compile_input,submission,$*) -o $(call q,$@) 2> $(call q,$@.messages) \
	    || { cat $(call q,$@.messages) >&2; rm -rf $(call q,$@.keep) $(call q,$@.messages); exit 1; }
	@mv $(call q,$@.keep/$(call kept_ptx,$*)) $(call q,$(@:.o=.ptx)) \
	    && mv $(call q,$@.messages) $(call q,$(@:.o=.ptxas)) && rm -rf $(call q,$@.keep)

define exercise_folder_rule
$(BUILD)/$(1)/%: $(BUILD)/$(1)/%.o $$$$(call program_main,$$$$*) $(CHAPTER_ARCHIVE) $(LIBRARY)
	$(NVCC) $(EXERCISE_FLAGS) $(EXERCISE_LINK_FLAGS) $$(call q,$$<) $$(call program_main,$$*) \
	    $(CHAPTER_ARCHIVE) $(LIBRARY) $(NVCCLIBS) -o $$(call q,$$@)

$(BUILD)/$(1)/%.host: $(BUILD)/$(1)/%.o $(BUILD)/obj/grade/main_check.o $(CHAPTER_ARCHIVE) $(LIBRARY)
	$$(if $$(call host_check_of,$$*),,$$(error $$*: exercise $$(call exercise_of,$$*) has no host \
	    check (no solutions/host/$$(call exercise_of,$$*).cu)))
	$(NVCC) $(EXERCISE_FLAGS) $(EXERCISE_LINK_FLAGS) $$(call q,$$<) $(BUILD)/obj/grade/main_check.o \
	    $(CHAPTER_ARCHIVE) $(LIBRARY) $(NVCCLIBS) -o $$(call q,$$@)

$(BUILD)/$(1)/%.ptx: $(1)/%.cu $(EXERCISE_HEADERS)
	@mkdir -p $$(call q,$$(dir $$@))
	$(NVCC) $(EXERCISE_FLAGS) -MMD -MP -MF $$(call q,$$@.d) -ptx $$(call q,$$<) -o $$(call q,$$@)

$(BUILD)/$(1)/%.ptxas: $(1)/%.cu $(EXERCISE_HEADERS)
	@mkdir -p $$(call q,$$(dir $$@))
	$(NVCC) $(EXERCISE_FLAGS) -MMD -MP -MF $$(call q,$$@.d) -Xptxas -v -cubin $$(call q,$$<) \
	    -o $$(call q,$$@.cubin) 2> $$(call q,$$@.partial) \
	    && mv $$(call q,$$@.partial) $$(call q,$$@) \
	    || { cat $$(call q,$$@.partial) >&2; rm -f $$(call q,$$@.partial); exit 1; }
endef
$(foreach folder,exercises solutions submission,$(eval $(call exercise_folder_rule,$(folder))))
# (The grader builds every submission afresh in a scratch folder, several
# side by side: no .d of the folder `submission` is read, none half written.)
-include $(wildcard $(BUILD)/exercises/*.d $(BUILD)/solutions/*.d)

.PHONY: exercises grade grade-class handout test-exercises

exercises:
	@solutions/generate.sh exercises

# grade.sh grades one folder (solutions/README.md): it copies each file into
# a sandbox with a fresh copy of the handout, builds it there through this
# Makefile, runs it at its sizes and prints the table. Its exit status: 0 all
# passed, 1 something failed, 2 bad usage (an unknown EX, a bad name, no
# sandbox), 77 compiled but no GPU here to run on (make then reports "Error
# 77"). EX's words, each quoted, name exercises; grade.sh refuses the rest.
grade:
	@MAKE=$(call shell_quote,$(MAKE)) BUILD=$(call shell_quote,$(BUILD)) \
	  ARCH=$(call shell_quote,$(ARCH)) DEVICE_CODE=$(call shell_quote,$(DEVICE_CODE)) \
	  GRADE_DIR=$(call shell_quote,$(value GRADE_DIR)) \
	  solutions/grade.sh $(foreach name,$(value EX),$(call shell_quote,$(name)))

# A class: every folder of DIR is a student's (solutions/grade-class.sh).
grade-class:
	$(if $(value DIR),,$(error usage: make grade-class DIR=submissions/ [EX=NAME...]))
	@MAKE=$(call shell_quote,$(MAKE)) BUILD=$(call shell_quote,$(BUILD)) \
	  ARCH=$(call shell_quote,$(ARCH)) DEVICE_CODE=$(call shell_quote,$(DEVICE_CODE)) \
	  solutions/grade-class.sh $(call shell_quote,$(value DIR)) \
	  $(foreach name,$(value EX),$(call shell_quote,$(name)))

# The tracked files less the solution programs and the grader's fixtures
# made from them, written whole or not at all (solutions/handout.sh).
handout:
	@solutions/handout.sh $(call shell_quote,$(BUILD)/handout.tar.gz)

# The exercise part of `make test` alone: on a GPU, the proof that every
# untouched exercise fails and every solution passes. The suite compiles
# each exercise and solution in the grader's sandbox (its gradings), so it
# needs none of build/exercises/ or build/solutions/.
test-exercises:
	@bash -c '. tests/lib.sh; . tests/suites/80-exercises.sh; echo; \
	  echo "$$PASSED passed, $$FAILED failed, $$SKIPPED skipped"; [ $$FAILED -eq 0 ]'

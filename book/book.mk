# book/book.mk - the book's targets, included by the Makefile.
#
#   make book             book/out/workbook/index.html (the HTML book, a page per
#                         chapter), book/out/workbook.epub and book/out/workbook.pdf
#   make book-instructor  the same as book/out/workbook-instructor*, with the solutions
#   make book-check       walks the HTML book in headless Chromium: every page and
#                         link, every image loaded, no error logged, a search; saves
#                         a screenshot per page in book/out/screenshots/
#   make readme           the headline table and plot in README.md
#
# Every variable below can be set on the command line; the tests use that to
# build from fixtures into build/ without touching book/out or plots/.

WORKBOOK_DATA ?= plots/data
KERNEL_LIST ?= chapters/kernels.list
PLOTS_OUT ?= plots/out
PLOTS_PNG ?= plots/png
# A chapter whose kernels have not been measured on a GPU yet has no rows for
# its placeholders, so it stays out of the book (it still builds and is tested)
# until `make bench` has measured it.
UNMEASURED_CHAPTERS ?=
# A chapter's main file is chapters/NN-slug/slug.cu; the weaver adds the
# folder's other files with prose, and its tried/ files to the appendix.
chapter_folder = $(notdir $(patsubst %/,%,$(dir $(1))))
is_main_file = $(filter $(call chapter_folder,$(1)),$(firstword $(subst -, ,$(call chapter_folder,$(1))))-$(basename $(notdir $(1))))
BOOK_CHAPTERS ?= $(filter-out $(UNMEASURED_CHAPTERS),$(foreach source,$(CHAPTER_SOURCES),$(if $(call is_main_file,$(source)),$(source))))
# The closing chapter: prose only, after the last chapter of code.
BOOK_CLOSING ?= book/closing.md
BOOK_EXERCISES ?= exercises
BOOK_SOLUTIONS ?= solutions
BOOK_WORK ?= $(BUILD)/book
BOOK_OUT ?= book/out
CHROMIUM ?= $(firstword $(shell command -v chromium chromium-browser google-chrome 2>/dev/null) chromium)

# The weaver and the results tool, and the common/ host code they share: the
# CSV reader (and the parser of its numbers), the list of kernels and the peaks.
WEAVER ?= $(BUILD)/book/weave
RESULTS ?= $(BUILD)/book/results
BOOK_COMMON := book/csv_reader.c book/headline.c book/markdown.c book/shape_count.c book/plain_csv.c book/card_reader.c book/nsight_reader.c book/accuracy_reader.c tools/kernel_list.c common/device/gpu_peaks.c \
    common/harness/numbers.c
BOOK_COMMON_H := book/csv_reader.h book/headline.h book/markdown.h book/shape_count.h book/plain_csv.h book/card_reader.h book/nsight_reader.h book/accuracy_reader.h tools/kernel_list.h \
    common/device/gpu_peaks.h common/harness/csv.h common/harness/numbers.h
BOOK_CFLAGS := -std=c11 -O2 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -Icommon -Ibook -Itools

# Each tool is linked under a temporary name that holds the shell's id and
# renamed whole: a build running beside this one (make plots in another test
# suite) never runs a half-written tool.
# The weaver's own files besides book/weave.c (book/weave.h says what each holds).
WEAVE_PARTS := book/weave_files.c book/placeholders.c book/changes.c
WEAVE_PARTS_H := book/weave.h book/placeholders.h
# The results tool's (book/results.h says what each holds).
RESULTS_PARTS := book/results_rows.c book/results_tables.c book/plot_data.c
RESULTS_PARTS_H := book/results.h
tool_parts = $(if $(filter weave,$(1)),$(WEAVE_PARTS),$(RESULTS_PARTS))
$(BUILD)/book/results: $(RESULTS_PARTS) $(RESULTS_PARTS_H)
$(BUILD)/book/weave: $(WEAVE_PARTS) $(WEAVE_PARTS_H)
$(BUILD)/book/weave $(BUILD)/book/results: $(BUILD)/book/%: book/%.c $(BOOK_COMMON) $(BOOK_COMMON_H)
	@mkdir -p $(dir $@)
	$(CC) $(BOOK_CFLAGS) $< $(call tool_parts,$*) $(BOOK_COMMON) -o $(dir $@).$*.$$$$.partial -lm && \
	    mv -f $(dir $@).$*.$$$$.partial $@ || { rm -f $(dir $@).$*.$$$$.partial; exit 1; }

# The weaver and the results tool, for a build that wants them made first
# (make test's, before the suites that use them run side by side).
book-tools: $(WEAVER) $(RESULTS)

# The same tools built with AddressSanitizer and UndefinedBehaviorSanitizer
# (float-cast-overflow is not part of "undefined" in gcc): make test runs them
# over the real chapters and the failure fixtures, and any report fails.
BOOK_ASAN := $(BUILD)/book-asan
$(BOOK_ASAN)/weave: $(WEAVE_PARTS) $(WEAVE_PARTS_H)
$(BOOK_ASAN)/results: $(RESULTS_PARTS) $(RESULTS_PARTS_H)
BOOK_ASAN_CFLAGS := $(BOOK_CFLAGS) -O1 -g -fno-omit-frame-pointer \
    -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all

$(BOOK_ASAN)/weave $(BOOK_ASAN)/results: $(BOOK_ASAN)/%: book/%.c $(BOOK_COMMON) $(BOOK_COMMON_H)
	@mkdir -p $(dir $@)
	$(CC) $(BOOK_ASAN_CFLAGS) $< $(call tool_parts,$*) $(BOOK_COMMON) -o $@ -lm

# The npm packages, pinned in book/package.json and book/package-lock.json:
# mathjax-full (book/tex2svg.mjs draws the formulas) and playwright-core (the
# browser check's driver), installed into book/node_modules when missing or
# when the lock file changed (npm writes node_modules/.package-lock.json).
BOOK_NODE := book/node_modules/.package-lock.json

$(BOOK_NODE): book/package-lock.json
	cd book && npm ci --no-audit --no-fund

.PHONY: book book-markdown book-instructor book-check readme book-chapter-count book-tools

book_environment = WEAVE=$(WEAVER) RESULTS=$(RESULTS) DATA=$(WORKBOOK_DATA) \
    KERNELS=$(KERNEL_LIST) FIGURES=$(PLOTS_OUT) CHAPTERS="$(BOOK_CHAPTERS)" CLOSING=$(BOOK_CLOSING) \
    EXERCISES=$(BOOK_EXERCISES) SOLUTIONS=$(BOOK_SOLUTIONS) WORK=$(BOOK_WORK) OUT=$(BOOK_OUT)

# The old book goes first, before anything that can fail (building the
# tools, drawing the plots), so a failed make book never leaves a book that
# looks fresh; that is why the tools and the plots are made by a make run
# inside the recipe and are not prerequisites.
book_files = $(BOOK_OUT)/$(1) $(BOOK_OUT)/$(1).html $(BOOK_OUT)/$(1).epub $(BOOK_OUT)/$(1).pdf

book:
	@rm -rf $(call book_files,workbook)
	@$(MAKE) --no-print-directory $(WEAVER) $(RESULTS) $(BOOK_NODE) plots
	@$(book_environment) book/build.sh

# The weave alone (build/book/workbook.md): every chapter filled from the
# data, no pandoc; what the tests build a card's whole book with.
book-markdown:
	@$(MAKE) --no-print-directory $(WEAVER) $(RESULTS) plots
	@$(book_environment) book/build.sh --markdown

book-instructor:
	@rm -rf $(call book_files,workbook-instructor)
	@$(MAKE) --no-print-directory $(WEAVER) $(RESULTS) $(BOOK_NODE) plots
	@$(book_environment) book/build.sh --instructor

# The word the browser check searches for: one every edition of the book holds.
BOOK_SEARCH_WORD ?= softmax

book-check: | $(BOOK_NODE)
	@test -f $(BOOK_OUT)/workbook/index.html || { echo "book-check: no $(BOOK_OUT)/workbook/index.html; run make book"; exit 1; }
	@rm -rf $(BOOK_OUT)/screenshots
	node book/browser_check.mjs --browser $(CHROMIUM) \
	    --min-figures $$(cat $(PLOTS_OUT)/index 2>/dev/null | wc -l) --search $(BOOK_SEARCH_WORD) \
	    --screenshots $(BOOK_OUT)/screenshots $(BOOK_OUT)/workbook/index.html

readme: plots $(RESULTS)
	@RESULTS=$(RESULTS) DATA=$(WORKBOOK_DATA) KERNELS=$(KERNEL_LIST) PNG=$(PLOTS_PNG) book/readme.sh README.md

# How many chapters the book holds (the tests compare it with the HTML).
book-chapter-count:
	@echo $(words $(BOOK_CHAPTERS))

# plots/plots.mk - `make plots`, included by the Makefile.
#
# Draws from the CSV files in $(WORKBOOK_DATA) (plots/data): SVGs for the
# book in $(PLOTS_OUT) (git-ignored) and PNGs for the README in
# $(PLOTS_PNG) (committed). The tests point these elsewhere to draw from
# fixtures without touching either folder. book/results.c (whose build rule
# is in book/book.mk) makes the data gnuplot reads.
#
# The plots are drawn only when what they are drawn from changed. A run of
# plots/draw.sh that drew every plot ends by writing the stamp
# $(PLOTS_OUT)/.drawn, which holds the settings it drew with (the results
# tool, the data folder, the kernel list, the scratch and PNG folders); the
# stamp is removed before a drawing starts, so a failed or interrupted one
# leaves none. The plots are drawn again when the stamp is missing or holds
# other settings, when a plot its index names has lost its SVG or PNG, and
# when any of these is newer than it: a CSV file of the data folder (or of
# its accuracy/ folder), the folder itself (a file was added or removed),
# the kernel list, a plot script, plots/draw.sh, plots/textbox.awk or the
# results tool.

WORKBOOK_DATA ?= plots/data
KERNEL_LIST ?= chapters/kernels.list
PLOTS_OUT ?= plots/out
PLOTS_PNG ?= plots/png
PLOTS_WORK ?= $(BUILD)/plots
RESULTS ?= $(BUILD)/book/results

PLOTS_STAMP = $(PLOTS_OUT)/.drawn
plots_settings = $(RESULTS) $(WORKBOOK_DATA) $(KERNEL_LIST) $(PLOTS_WORK) $(PLOTS_PNG)
plots_inputs = $(RESULTS) $(KERNEL_LIST) plots/draw.sh plots/textbox.awk $(wildcard plots/*.gp) \
    $(wildcard $(WORKBOOK_DATA) $(WORKBOOK_DATA)/*.csv $(WORKBOOK_DATA)/accuracy $(WORKBOOK_DATA)/accuracy/*.csv)
# "drawn" when the stamp holds these settings and every plot of the index
# (and the scratch folder's index, which the tests read) is still there
plots_state = $(shell test "$$(cat $(PLOTS_STAMP) 2>/dev/null)" = "$(plots_settings)" && \
    test -f $(PLOTS_OUT)/index -a -f $(PLOTS_WORK)/index && \
    while read -r name; do test -f $(PLOTS_OUT)/$$name.svg -a -f $(PLOTS_PNG)/$$name.png || exit 1; \
    done < $(PLOTS_OUT)/index && echo drawn)

.PHONY: plots plots-redraw
plots-redraw:

$(PLOTS_STAMP): $(plots_inputs) $(if $(filter drawn,$(plots_state)),,plots-redraw)
	@rm -f $@
	@plots/draw.sh $(RESULTS) $(WORKBOOK_DATA) $(KERNEL_LIST) $(PLOTS_WORK) $(PLOTS_OUT) $(PLOTS_PNG)
	@echo '$(plots_settings)' > $(dir $@).$(notdir $@).partial && mv -f $(dir $@).$(notdir $@).partial $@

# The recipe runs under plots/figures/then-figures.sh (plots/figures.mk),
# which draws the figures after it.
plots: $(PLOTS_STAMP)
	@echo "plots: $(PLOTS_OUT), $$(wc -l < $(PLOTS_OUT)/index) plots"

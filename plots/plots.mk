# plots/plots.mk - `make plots`, included by the Makefile.
#
# Draws from the CSV files in $(WORKBOOK_DATA) (plots/data): SVGs for the
# book in $(PLOTS_OUT) (git-ignored) and PNGs for the README in
# $(PLOTS_PNG) (committed). The tests point these elsewhere to draw from
# fixtures without touching either folder.

WORKBOOK_DATA ?= plots/data
PLOTS_OUT ?= plots/out
PLOTS_PNG ?= plots/png
PLOTS_WORK ?= $(BUILD)/plots
WEAVER ?= $(BUILD)/book/weave

.PHONY: plots

plots: $(WEAVER)
	@plots/draw.sh $(WEAVER) $(WORKBOOK_DATA) $(PLOTS_WORK) $(PLOTS_OUT) $(PLOTS_PNG)

# plots/plots.mk - `make plots`, included by the Makefile.
#
# Draws from the CSV files in $(WORKBOOK_DATA) (plots/data): SVGs for the
# book in $(PLOTS_OUT) (git-ignored) and PNGs for the README in
# $(PLOTS_PNG) (committed). The tests point these elsewhere to draw from
# fixtures without touching either folder. book/results.c (whose build rule
# is in book/book.mk) makes the data gnuplot reads.

WORKBOOK_DATA ?= plots/data
KERNEL_LIST ?= chapters/kernels.list
PLOTS_OUT ?= plots/out
PLOTS_PNG ?= plots/png
PLOTS_WORK ?= $(BUILD)/plots
RESULTS ?= $(BUILD)/book/results

.PHONY: plots

plots: $(RESULTS)
	@plots/draw.sh $(RESULTS) $(WORKBOOK_DATA) $(KERNEL_LIST) $(PLOTS_WORK) $(PLOTS_OUT) $(PLOTS_PNG)

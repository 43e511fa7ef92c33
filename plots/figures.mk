# plots/figures.mk - `make figures`, included by the Makefile after
# plots/plots.mk: the figures of the book that are drawn from the code, not
# from measurements.
#
# A figure of a mapping (which thread touches which address, bank, tile or
# fragment) is drawn from the kernels' own __host__ __device__ index
# functions: its program, plots/figures/NAME.cu (NAME with underscores),
# #includes the chapter source and prints what those functions say;
# plots/figures/NAME.gp draws it with gnuplot. A figure that is a picture of
# a design, not of a mapping, is a graphviz file, plots/figures/NAME.dot.
# Everything is built in $(FIGURES_WORK) (programs, data, SVG and PNG); then,
# for each figure, $(PLOTS_OUT) gets NAME.svg, NAME.caption (one line) and
# NAME.md, the Markdown the book shows for {{figure|NAME}}, copied again only
# when the figure changed. The programs go to $(FIGURE_BIN)
# ($(FIGURES_WORK)/bin): a build that draws elsewhere can still use the
# programs another build compiled, as the tests do.
#
# The programs are compiled for the host; their device code only to PTX, so
# ptxas never runs, and unused code (the launchers) is dropped at link time.
#
# Every file is written under a temporary name in its own folder (.NAME.partial,
# or a .NAME.partial/ folder for what a program writes) and renamed when
# complete, the target last: a step that fails or is interrupted midway
# leaves no half-written file that make would take for done, and no
# half-written figure in $(PLOTS_OUT). A program's temporary name holds the
# id of the shell that compiles it, so two builds that share the programs'
# folder and compile the same program at once each rename a whole one.
#
# `make plots` draws the figures too, after the plots: plots/draw.sh first
# empties $(PLOTS_OUT), so they must come after its recipe, and make has no
# hook after a recipe. So the recipe of `plots` runs under
# plots/figures/then-figures.sh, a shell that runs each line as /bin/sh
# would and, once it has succeeded, runs `make figures` with the same
# settings. `private`: the prerequisites of plots build under the usual shell.

PLOTS_OUT ?= plots/out
FIGURES_WORK ?= $(BUILD)/figures
FIGURE_BIN ?= $(FIGURES_WORK)/bin
# In the order of the chapters that show them.
WORKBOOK_DATA ?= plots/data
# Figures of measurements that join two files (tools/frontier.c writes the data);
# drawn only where both files exist, as a plot with no rows is left out.
FIGURE_JOINS := $(if $(wildcard $(WORKBOOK_DATA)/trimul.csv),$(if \
    $(wildcard $(WORKBOOK_DATA)/accuracy/trimul.csv),precision-frontier))
FIGURES := tile-grid thread-patches outer-product warp-sectors bank-map layer-flow \
    online-softmax tiled-launches mma-fragments tf32-split weight-stage swizzled-box gemm-pipeline \
    store-pipeline roles-timeline key-order $(FIGURE_JOINS)
FIGURE_GRAPHS := layer-flow tiled-launches
FIGURE_PROGRAMS := $(filter-out $(FIGURE_GRAPHS) $(FIGURE_JOINS),$(FIGURES))
# nvcc's fast compile of device code (-Ofc max, CUDA 12.8 and later;
# nothing with an older nvcc), asked once, when a recipe first needs it.
# The Makefile's mutants use it too (this file is included there).
NVCC_FAST_COMPILE = $(eval NVCC_FAST_COMPILE := $(shell $(NVCC) --help 2>/dev/null \
    | grep -q -e '--Ofast-compile' && echo '-Ofc max'))$(NVCC_FAST_COMPILE)
# A figure program runs the chapters' host-side functions and launches
# nothing: its device code is PTX only, compiled fast, which the figures'
# data never sees.
FIGURE_NVCCFLAGS = -std=c++17 -Icommon -arch=compute_90 -code=compute_90 $(NVCC_FAST_COMPILE) \
    -Xcompiler -ffunction-sections,-fdata-sections -Xlinker --gc-sections
# Host C sources a figure program links besides its own.
FIGURE_LINK_online_softmax := common/harness/rng.c
FIGURE_LINK_tf32_split := common/harness/rng.c

GNUPLOT ?= gnuplot
DOT ?= dot

.PHONY: figures figure-names figure-programs

# The figures, one line (the tests read it).
figure-names:
	@echo $(FIGURES)

figure_program = $(FIGURE_BIN)/$(subst -,_,$(1))

$(FIGURE_BIN)/%: plots/figures/%.cu plots/figures/figure.h
	@mkdir -p $(dir $@)
	$(NVCC) $(FIGURE_NVCCFLAGS) -MMD -MP -MT $@ -MF $(call partial,$@).$$$$.d $< $(FIGURE_LINK_$*) \
	    -o $(call partial,$@).$$$$ && mv -f $(call partial,$@).$$$$.d $@.d && mv -f $(call partial,$@).$$$$ $@ \
	    || { rm -f $(call partial,$@).$$$$ $(call partial,$@).$$$$.d; exit 1; }

# The temporary name of a file: .NAME.partial beside it.
partial = $(dir $(1)).$(notdir $(1)).partial

# A program writes NAME.dat, NAME.vars.gp and NAME.caption into a folder of
# its own, moved into place when it is done (the caption, the target, last).
define figure_rules
$(FIGURES_WORK)/data/$(1).caption: $(call figure_program,$(1))
	@mkdir -p $$(dir $$@)
	@rm -rf $$(call partial,$$(@D)/$(1)) && mkdir -p $$(call partial,$$(@D)/$(1))
	$$< $$(call partial,$$(@D)/$(1))
	@cd $$(call partial,$$(@D)/$(1)) && for file in *; do \
	    [ "$$$$file" = $(1).caption ] || mv -f "$$$$file" ..; done && mv -f $(1).caption ..
	@rmdir $$(call partial,$$(@D)/$(1))

$(FIGURES_WORK)/out/$(1).svg: $(FIGURES_WORK)/data/$(1).caption plots/figures/$(1).gp \
        plots/figures/style.gp
	@command -v $(GNUPLOT) >/dev/null || { echo "make figures: gnuplot is missing (make deps installs it)" >&2; exit 1; }
	@mkdir -p $$(dir $$@)
	$(GNUPLOT) -e "datadir='$(FIGURES_WORK)/data'; svg='$$(call partial,$$@)'; png='$$(call partial,$$(@:.svg=.png))'" plots/figures/$(1).gp
	@mv -f $$(call partial,$$(@:.svg=.png)) $$(@:.svg=.png) && mv -f $$(call partial,$$@) $$@
endef
$(foreach name,$(FIGURE_PROGRAMS),$(eval $(call figure_rules,$(name))))

# The programs alone, for a build that wants them compiled first (make
# test's, before the suites that draw the figures run side by side).
figure-programs: $(foreach name,$(FIGURE_PROGRAMS),$(call figure_program,$(name)))

# An SVG as an EPUB may hold it (epubcheck): no document type declaration
# (graphviz writes one, with an external DTD), and no id twice (gnuplot
# names the plots of each panel of a multiplot gnuplot_plot_1, 2, ... again):
# a repeated id gets _2, _3, ...
SVG_FOR_EPUB = awk '/^<!DOCTYPE svg/ { doctype = 1 } doctype { if (/>$$/) doctype = 0; next } \
    { out = ""; line = $$0; while (match(line, / id="[^"]*"/)) { id = substr(line, RSTART + 5, RLENGTH - 6); \
      n = ++seen[id]; out = out substr(line, 1, RSTART - 1) " id=\"" id (n > 1 ? "_" n : "") "\""; \
      line = substr(line, RSTART + RLENGTH) } print out line }'

# A join's data and caption come from `generate frontier` (tools/frontier.c)
# over the kernel list and the measured rows (the book's readers read them:
# the times, the errors and the cards' facts); it is drawn again whenever they change.
# The frontier is chapter 9's: it shows the kernels of chapters 1 to 9.
FRONTIER_CHAPTER := 9
$(FIGURES_WORK)/data/precision-frontier.caption: $(GENERATE) chapters/kernels.list \
        $(wildcard $(WORKBOOK_DATA)/*.csv $(WORKBOOK_DATA)/accuracy/*.csv $(WORKBOOK_DATA)/cards/*.csv)
	@mkdir -p $(dir $@)
	@rm -rf $(call partial,$(@D)/precision-frontier) && mkdir -p $(call partial,$(@D)/precision-frontier)
	$(GENERATE) frontier chapters/kernels.list $(WORKBOOK_DATA) \
	    $(call partial,$(@D)/precision-frontier)/ $(FRONTIER_CHAPTER)
	@cd $(call partial,$(@D)/precision-frontier) && for file in *; do \
	    [ "$$file" = precision-frontier.caption ] || mv -f "$$file" ..; done && \
	    mv -f precision-frontier.caption ..
	@rmdir $(call partial,$(@D)/precision-frontier)
$(FIGURES_WORK)/out/precision-frontier.svg: $(FIGURES_WORK)/data/precision-frontier.caption \
        plots/figures/precision-frontier.gp plots/figures/style.gp plots/figures.mk
	@mkdir -p $(dir $@)
	$(GNUPLOT) -e "datadir='$(FIGURES_WORK)/data'; svg='$(call partial,$@).raw'; png='$(call partial,$(@:.svg=.png))'" plots/figures/precision-frontier.gp
	$(SVG_FOR_EPUB) < $(call partial,$@).raw > $(call partial,$@) && rm -f $(call partial,$@).raw
	@mv -f $(call partial,$(@:.svg=.png)) $(@:.svg=.png) && mv -f $(call partial,$@) $@

# A graph's caption is the line of its .dot file that starts with "// caption: ".
$(FIGURES_WORK)/data/%.caption: plots/figures/%.dot
	@mkdir -p $(dir $@)
	@sed -n 's|^// caption: ||p' $< > $(call partial,$@)
	@test -s $(call partial,$@) || { echo "$<: no line '// caption: ...'" >&2; rm -f $(call partial,$@); exit 1; }
	@mv -f $(call partial,$@) $@

$(FIGURES_WORK)/out/%.svg: plots/figures/%.dot $(FIGURES_WORK)/data/%.caption plots/figures.mk
	@command -v $(DOT) >/dev/null || { echo "make figures: graphviz (dot) is missing (make deps installs it)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(DOT) -Tsvg $< | $(SVG_FOR_EPUB) > $(call partial,$@)
	$(DOT) -Tpng -Gdpi=96 $< -o $(call partial,$(@:.svg=.png))
	@mv -f $(call partial,$(@:.svg=.png)) $(@:.svg=.png) && mv -f $(call partial,$@) $@

# A figure in $(PLOTS_OUT): its SVG, its caption, then its Markdown (the target) last.
$(FIGURES:%=$(PLOTS_OUT)/%.md): $(PLOTS_OUT)/%.md: $(FIGURES_WORK)/out/%.svg $(FIGURES_WORK)/data/%.caption
	@mkdir -p $(@D)
	@out=$(@D)/$*; partial=$(@D)/.$*; \
	    cp $< $$partial.svg.partial && \
	    head -n 1 $(FIGURES_WORK)/data/$*.caption > $$partial.caption.partial && \
	    printf '![%s](%s/%s.svg){#fig-%s}\n\n' "$$(cat $$partial.caption.partial)" \
	        "$(PLOTS_OUT)" "$*" "$*" > $$partial.md.partial && \
	    mv -f $$partial.svg.partial $$out.svg && mv -f $$partial.caption.partial $$out.caption && \
	    mv -f $$partial.md.partial $$out.md || { rm -f $$partial.*.partial; exit 1; }

figures: $(FIGURES:%=$(PLOTS_OUT)/%.md)
	@echo "figures: $(FIGURES:%=$(PLOTS_OUT)/%.svg)"

plots: private SHELL := plots/figures/then-figures.sh
plots: private export WORKBOOK_AFTER_PLOTS = $(MAKE) --no-print-directory figures

-include $(wildcard $(FIGURE_BIN)/*.d)

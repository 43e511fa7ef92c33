#!/bin/sh
# plots/figures/then-figures.sh - the shell that runs the recipe of `make
# plots` (plots/figures.mk says why): each line as /bin/sh runs it, then, if
# it succeeded, the command in WORKBOOK_AFTER_PLOTS (`make figures`), which
# draws the figures into the folder the plots were just drawn into.
/bin/sh "$@" || exit
if [ -n "${WORKBOOK_AFTER_PLOTS:-}" ]; then
    eval "$WORKBOOK_AFTER_PLOTS"
fi

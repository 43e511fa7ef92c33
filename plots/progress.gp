# plots/progress.gp - a problem's whole progression at its default size
# (progress-trimul, progress-msa), shown once, in the closing chapter: the
# race chart (plots/race.gp) of the champions and each chapter's best
# kernel (the steps are in the chapters' own charts), with the three floors.
load 'plots/race.gp'

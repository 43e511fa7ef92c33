# plots/peak.gp - the triangle's kernels at the default size as shares of
# one peak, the FP32 peak, with both pipes' peaks as lines (race.gp draws
# it): a tensor-core kernel is never drawn below a slower FP32 one, as a
# share of its own pipe's peak would draw it. results plotdata leaves this
# plot out for a card it knows no peak of.
load 'plots/race.gp'

// Package stats holds the statistics schedlab uses to compare scheduling
// policies across the replicate runs of a campaign: descriptive summaries
// with Student t intervals of the mean, bootstrap intervals (percentile and
// BCa), the Wilcoxon signed-rank test of paired differences with its effect
// sizes, Holm's adjustment for multiple comparisons, empirical distribution
// functions and quantiles.
//
// Every function is checked against SciPy and NumPy (see the tests), and
// follows their conventions where they have one, so that numbers printed by
// schedlab can be reproduced by a researcher in Python: sample standard
// deviations divide by n-1, quantiles are Hyndman & Fan type 7 (NumPy's
// "linear"), Wilcoxon drops zero differences as SciPy's default
// zero_method="wilcox" does and BCa intervals use the jackknife estimate of
// the acceleration as scipy.stats.bootstrap does.
//
// Inputs are never modified: functions that need sorted data sort a copy.
// Functions that return an error reject NaN input with it; the others
// propagate NaN (their documentation says how), because a NaN metric is a
// bug upstream that must stay visible in a report rather than vanish.
//
// The package has no mutable package-level state. Randomness comes only
// from the *rand.Rand a caller passes, so results are reproducible from a
// seed.
package stats

package fit

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/scipytest"
)

// oracle runs testdata/oracle.py on {"kind": kind, "cases": cases} and
// decodes its per-case results into results, which must point to a slice;
// without SciPy the test is skipped, or fails when CI is set (see
// internal/scipytest).
func oracle(t *testing.T, kind string, cases, results any) {
	t.Helper()
	scipytest.Oracle(t, 5*time.Minute, filepath.Join("testdata", "oracle.py"), kind, cases, results)
}

// relDiff is |got − want| relative to the larger magnitude: 0 when they
// are equal (including two equal infinities), +Inf when exactly one is NaN
// and 0 when both are.
func relDiff(got, want float64) float64 {
	switch {
	case math.IsNaN(got) || math.IsNaN(want):
		if math.IsNaN(got) && math.IsNaN(want) {
			return 0
		}
		return math.Inf(1)
	case got == want:
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(got), math.Abs(want))
}

// near reports whether got is within rel of want, relative to the larger
// magnitude, or within abs absolutely (for values near 0, where a relative
// tolerance means nothing); two NaNs are near.
func near(got, want, rel, abs float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	if got == want {
		return true
	}
	d := math.Abs(got - want)
	return d <= abs || d <= rel*math.Max(math.Abs(got), math.Abs(want))
}

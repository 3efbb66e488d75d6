package stats

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
	scipytest.Oracle(t, 2*time.Minute, filepath.Join("testdata", "oracle.py"), kind, cases, results)
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

// Tolerances against SciPy for deterministic quantities: relative 1e-9,
// and absolute 1e-12 for values that are 0 up to rounding.
const (
	relTol = 1e-9
	absTol = 1e-12
)

// checkNear fails the test when got is not near want with the oracle
// tolerances.
func checkNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !near(got, want, relTol, absTol) {
		t.Errorf("%s = %.17g, SciPy %.17g (diff %.3g)", what, got, want, got-want)
	}
}

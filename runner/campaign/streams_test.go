package campaign

import "testing"

// TestSpend: a user's jobs pay out of a budget of 10 per period, in
// submit order: 4, then 6 of 8 (cut), then nothing (free); another user
// and the next period start afresh.
func TestSpend(t *testing.T) {
	spent := map[[2]int64]float64{}
	var rep StreamReport
	for _, tc := range []struct {
		user         int32
		period       int64
		payment, pay float64
	}{
		{1, 0, 4, 4}, {1, 0, 8, 6}, {1, 0, 3, 0}, {2, 0, 3, 3}, {1, 1, 9, 9}, {1, 0, 0, 0},
	} {
		if got := spend(spent, tc.user, tc.period, 10, tc.payment, &rep); got != tc.pay {
			t.Errorf("user %d period %d: pays %v of %v, want %v", tc.user, tc.period, got, tc.payment, tc.pay)
		}
	}
	if rep.Cut != 1 || rep.Free != 1 {
		t.Errorf("cut %d free %d, want 1 and 1", rep.Cut, rep.Free)
	}
}

package estimates

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBinsFor(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {20, 10}, {110, 15}, {200, 20}, {1000, 35}, {10000, 90}, {40000, 215}, {250000, 565}, {900000, 565}} {
		if got := BinsFor(c[0]); got != c[1] {
			t.Errorf("BinsFor(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// TestHead checks the head estimates of an 18-hour maximum, worked by
// hand: the maximum, the 14 joint estimates below it, then multiples of
// 5 hours (15 h), 2 hours (16 h, 14 h) and 1 hour (17 h, 13 h) that are not
// there yet.
func TestHead(t *testing.T) {
	h, m := int64(hour), int64(minute)
	want := []int64{18 * h, 5 * m, 10 * m, 15 * m, 20 * m, 30 * m, h, 2 * h, 3 * h, 4 * h, 5 * h, 6 * h, 8 * h, 10 * h, 12 * h,
		13 * h, 14 * h, 15 * h, 16 * h, 17 * h}
	if got := (Tsafrir{MaxEstimate: 18 * h}).Head(); !slices.Equal(got, want) {
		t.Errorf("head of 18 h:\n got %v\nwant %v", got, want)
	}
	// An hour's maximum has only the multiples of 5 minutes up to it.
	if got := (Tsafrir{MaxEstimate: h}).Head(); len(got) != 12 || got[0] != h || got[1] != 5*m || got[11] != 55*m {
		t.Errorf("head of 1 h: %v", got)
	}
}

// TestPopularity checks the mapping of head estimates to popularity ranks:
// a permutation, the maximum the most popular. (A rank may come after its
// last time rank in the table: when two fall due at once, one waits.)
func TestPopularity(t *testing.T) {
	for seed := range uint64(200) {
		for _, n := range []int{20, 12} {
			p := popularity(n, rand.New(rand.NewPCG(seed, 1)))
			sorted := slices.Sorted(slices.Values(p))
			for i, r := range sorted {
				if r != i+1 {
					t.Fatalf("seed %d, %d estimates: ranks %v are not a permutation of 1..%d", seed, n, p, n)
				}
			}
			if p[0] != 1 {
				t.Fatalf("seed %d: the maximum has rank %d", seed, p[0])
			}
		}
	}
}

// TestDistribution checks the distribution for 10,000 jobs with an 18-hour
// maximum: n jobs in all, the model's number of values, the head's 20
// values holding head_sum % of the jobs, in the sizes of the exponential
// model, the maximum the most popular.
func TestDistribution(t *testing.T) {
	const n = 10000
	m := Published()
	m.MaxEstimate = 18 * hour
	bins, err := m.Distribution(n, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	total, headJobs := 0, 0
	head := m.Head()
	var headSizes []int
	for _, b := range bins {
		total += b.Jobs
		if slices.Contains(head, b.Seconds) {
			headJobs += b.Jobs
			headSizes = append(headSizes, b.Jobs)
		}
		if b.Seconds <= 0 || b.Seconds > m.MaxEstimate || b.Jobs < 1 {
			t.Errorf("bin %+v", b)
		}
	}
	if total != n {
		t.Errorf("%d jobs, want %d", total, n)
	}
	if len(bins) < 80 || len(bins) > BinsFor(n) {
		t.Errorf("%d values, the model asks %d", len(bins), BinsFor(n))
	}
	t.Logf("%d values; head %.2f %% of jobs", len(bins), 100*float64(headJobs)/n)
	if math.Abs(float64(headJobs)/n-0.89) > 0.005 {
		t.Errorf("the head holds %.2f %% of jobs, want 89 %%", 100*float64(headJobs)/n)
	}
	want, err := m.headSizes(top)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(headSizes, func(a, b int) int { return b - a })
	for i, w := range want {
		if math.Abs(float64(headSizes[i])-w*n/100) > 0.01*w*n/100+2 {
			t.Errorf("popularity rank %d: %d jobs, the model %.0f", i+1, headSizes[i], w*n/100)
		}
	}
	most := slices.MaxFunc(bins, func(a, b Bin) int { return a.Jobs - b.Jobs })
	if most.Seconds != m.MaxEstimate {
		t.Errorf("the most popular estimate is %d s, not the maximum", most.Seconds)
	}
}

// TestAssign checks that every job gets an estimate at least its runtime,
// that the estimates are the distribution's, that a seed gives the same
// assignment, and that runtimes the distribution cannot cover fail.
func TestAssign(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	runtimes := make([]int64, n)
	for i := range runtimes {
		runtimes[i] = int64(math.Exp(rng.Float64() * math.Log(17*hour)))
	}
	m := Published()
	m.MaxEstimate = 18 * hour
	bins, err := m.Distribution(n, rng)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Assign(bins, runtimes, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Assign(bins, runtimes, rand.New(rand.NewPCG(3, 3)))
	if !slices.Equal(a, b) {
		t.Error("the same seed gave another assignment")
	}
	count := map[int64]int{}
	for i, e := range a {
		if e < runtimes[i] {
			t.Fatalf("job %d runs %d s, estimate %d s", i, runtimes[i], e)
		}
		count[e]++
	}
	for _, bin := range bins {
		if count[bin.Seconds] != bin.Jobs {
			t.Errorf("estimate %d s given %d times, the distribution says %d", bin.Seconds, count[bin.Seconds], bin.Jobs)
		}
	}
	long := slices.Repeat([]int64{17 * hour}, n)
	if _, err := Assign(bins, long, rng); !errors.Is(err, ErrCannotCover) {
		t.Errorf("runtimes of 17 h for every job: %v", err)
	}
}

func TestFModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	sum := 0.0
	const n = 100000
	for range n {
		e := FModel(1000, 3, rng)
		if e < 1000 || e > 3000 {
			t.Fatalf("estimate %d of a 1000 s job with f = 3", e)
		}
		sum += float64(e)
	}
	if mean := sum / n; math.Abs(mean-2000.5) > 5 {
		t.Errorf("mean estimate %.1f, want about 2000.5 (1000 x U(1, 3), rounded up)", mean)
	}
	if e := FModel(777, 1, rng); e != 777 {
		t.Errorf("f = 1 gives %d for a 777 s job", e)
	}
}

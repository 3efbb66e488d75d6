package backfill

import (
	"cmp"
	"math"
	"math/bits"

	"github.com/schedlab/schedlab/sdk"
)

// The priority functions of the literature as queue orders (issue 36),
// beside the orders of order.go. Formulas, directions and sources are in
// docs/policies.md ("Queue orders of fcfs, easy and conservative"); each
// function below says what it computes. A policy never sees runtimes: r is
// always the requested walltime (sdk.Job.Walltime, at least 1 s, which the
// engine enforces), n the processors (Procs: on a platform of nodes the
// total the job's tasks request, nodes x cores for an exclusive job, as the
// other orders count), s the submit time as the workload gives it (schedlab
// does not shift a trace to start at 0), w = now - s the current wait.
const (
	// OrderLJF puts the longest requested walltime first.
	OrderLJF = "ljf"
	// OrderSAF puts the smallest area (walltime x processors) first.
	OrderSAF = "saf"
	// OrderLAF puts the largest area (walltime x processors) first.
	OrderLAF = "laf"
	// OrderWFP3 puts the highest (w/r)^3 x n first (Tang et al. 2009).
	OrderWFP3 = "wfp3"
	// OrderUNICEP puts the highest w / (max(log2 n, 1) x r) first (Tang
	// et al. 2009).
	OrderUNICEP = "unicep"
	// OrderF1 to OrderF4 put the lowest score of Carastan-Santos and de
	// Camargo's (SC'17) functions first.
	OrderF1 = "f1"
	OrderF2 = "f2"
	OrderF3 = "f3"
	OrderF4 = "f4"
)

// scoring is a queue order given by a score of each job.
type scoring struct {
	score func(j *sdk.Job, now int64) float64
	// higherFirst: the job of the higher score comes first.
	higherFirst bool
	// timed: the score depends on the current time (through the wait), so
	// the relative order of two jobs changes as time passes.
	timed bool
}

// scorings are the orders given by a floating-point score. The orders
// with integer keys (order.go's, ljf, saf, laf) compare exactly instead.
var scorings = map[string]scoring{
	OrderWFP3:   {score: wfp3, higherFirst: true, timed: true},
	OrderUNICEP: {score: unicep, higherFirst: true, timed: true},
	OrderF1:     {score: f1},
	OrderF2:     {score: f2},
	OrderF3:     {score: f3},
	OrderF4:     {score: f4},
}

// wfp3 is (w/r)^3 x n. Multiplications only, each rounded as IEEE 754
// says, so the score is the same on every platform; and two jobs whose w/r
// are equal as fractions get the same quotient, so such ties are exact.
func wfp3(j *sdk.Job, now int64) float64 {
	x := float64(now-j.Submit) / float64(j.Walltime)
	return x * x * x * float64(j.Procs())
}

// unicepMinLog is the least value of log2(n) UNICEP divides by. The
// formula is undefined for n = 1 (log2 1 = 0) and negative below; Tang et
// al. scheduled Blue Gene/P partitions of many nodes, where n = 1 does not
// occur, and RLScheduler adds 1e-15 to n, which gives a one-processor job
// about 6 x 10^14 times the score of a two-processor job of the same w/r,
// putting every one that has waited at all first. Counting
// log2(n) as at least 1 scores a one-processor job as a two-processor job
// instead (and a job without processors, on a platform of other
// resources, the same).
const unicepMinLog = 1

// unicep is w / (max(log2 n, 1) x r).
func unicep(j *sdk.Job, now int64) float64 {
	l := max(math.Log2(float64(j.Procs())), unicepMinLog)
	// The explicit conversion rounds the product before the division, so
	// that no platform fuses the two.
	return float64(now-j.Submit) / float64(l*float64(j.Walltime))
}

// log10s is log10 of the submit time, with a submit time below 1 s read as
// 0.1 s (log10 = -1), as RLScheduler's F1 reads s <= 0. Its F2 to F4 have
// no guard: log10(0) = -Inf puts a job submitted at 0 first whatever its
// size, and a negative submit time (a generated workload may have one)
// gives NaN, which would make the order inconsistent. All four take F1's
// guard here.
func log10s(j *sdk.Job) float64 {
	if j.Submit < 1 {
		return -1
	}
	return math.Log10(float64(j.Submit))
}

// The functions F1 to F4 of Carastan-Santos and de Camargo (SC'17), lower
// first, as RLScheduler implements them (HPCSimPickJobs.py, f1_score to
// f4_score). The explicit float64 conversions round each product before
// the sum: Go may otherwise fuse a product and a sum into one instruction
// on some platforms, which would change the last bits of a score and
// possibly an order between platforms.

// f1 is log10(r) x n + 870 x log10(s).
func f1(j *sdk.Job, _ int64) float64 {
	return float64(math.Log10(float64(j.Walltime))*float64(j.Procs())) + float64(870*log10s(j))
}

// f2 is sqrt(r) x n + 25600 x log10(s).
func f2(j *sdk.Job, _ int64) float64 {
	return float64(math.Sqrt(float64(j.Walltime))*float64(j.Procs())) + float64(25600*log10s(j))
}

// f3 is r x n + 6,860,000 x log10(s).
func f3(j *sdk.Job, _ int64) float64 {
	return float64(float64(j.Walltime)*float64(j.Procs())) + float64(6860000*log10s(j))
}

// f4 is r x sqrt(n) + 530,000 x log10(s).
func f4(j *sdk.Job, _ int64) float64 {
	return float64(float64(j.Walltime)*math.Sqrt(float64(j.Procs()))) + float64(530000*log10s(j))
}

// compareArea compares walltime x processors exactly: the product of two
// int64 may overflow (walltimes up to sim.MaxTime, about 3.4e10 s), so it
// is taken in 128 bits. Both factors are never negative.
func compareArea(a, b *sdk.Job) int {
	ah, al := bits.Mul64(uint64(a.Walltime), uint64(a.Procs()))
	bh, bl := bits.Mul64(uint64(b.Walltime), uint64(b.Procs()))
	if c := cmp.Compare(ah, bh); c != 0 {
		return c
	}
	return cmp.Compare(al, bl)
}

package analysis

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/schedlab/schedlab/results/fit"
	"github.com/schedlab/schedlab/results/stats"
	"github.com/schedlab/schedlab/workload/swf"
)

// Model is a workload model fitted from a log: an arrival process and a
// mixture of job classes, the clusters of one factor's values, each with
// fitted laws of processors, requested time and runtime. It is written as
// TOML by `schedlab workload fit` and read by `schedlab workload gen` and
// the manifest generator "model".
type Model struct {
	// Source and SourceSHA256 name the log the model was fitted on.
	Source       string `toml:"source"`
	SourceSHA256 string `toml:"source_sha256"`
	// Factor is the factor whose clusters are the classes, and Clustering
	// the features its values were clustered on (Clusters.Features), which
	// say how activity and the requested resource were measured.
	Factor     string   `toml:"factor"`
	Clustering []string `toml:"clustering,omitempty"`
	// Procs is the platform size of the log; Jobs its number of jobs, the
	// default size of a generated workload.
	Procs int64 `toml:"procs"`
	Jobs  int   `toml:"jobs"`
	// Arrival is the law of the time between two submissions, in seconds.
	Arrival Law `toml:"arrival"`
	// ArrivalFit says how Arrival was fitted: ArrivalsMLE, or ArrivalsMean,
	// the maximum-likelihood law scaled by ArrivalScale so that its mean is
	// the log's mean time between submissions.
	ArrivalFit   string  `toml:"arrival_fit,omitempty"`
	ArrivalScale float64 `toml:"arrival_scale,omitzero"`
	// KWallFit says how K_wall is drawn: KWallLaw (also when empty) or
	// KWallByLimit.
	KWallFit string `toml:"k_wall_fit,omitempty"`
	// Rules are the settings that said which jobs of the log were killed
	// at their limit and which never ran, and Endings the jobs they
	// touched (absent from models fitted before they were recorded).
	Rules   *Rules   `toml:"rules,omitempty"`
	Endings *Endings `toml:"endings,omitempty"`
	Classes []Class  `toml:"classes"`
}

// The ways of fitting the inter-arrival law (Model.ArrivalFit).
const (
	// ArrivalsMLE is the maximum-likelihood fit of the positive gaps
	// between submissions, the best of the families by AIC. On a
	// heavy-tailed log its mean can be far from the log's: it fits the bulk.
	ArrivalsMLE = "mle"
	// ArrivalsMean is the same law scaled so that its mean is the log's
	// span divided by its jobs less one (simultaneous submissions
	// included), so that the model sends jobs at the log's rate: its
	// offered load is the log's for the same jobs.
	ArrivalsMean = "mean"
)

// Class is one job class of a model.
type Class struct {
	// Share is the class's share of the jobs.
	Share float64 `toml:"share"`
	// Procs, ReqTime and Runtime are the fitted laws; Runtime was fitted on
	// the jobs that did not run to their limit. KWall is the law of
	// T_run / T_lim over the same jobs: a generated runtime is K_wall times
	// the generated requested time, which keeps the two correlated as in
	// the log (Runtime is kept for reference and for the marginal check).
	Procs   Law `toml:"procs"`
	ReqTime Law `toml:"req_time"`
	Runtime Law `toml:"runtime"`
	KWall   Law `toml:"k_wall"`
	// Censored is the share of the class's jobs killed at their limit
	// (Rules); a generated job of the class runs to its limit with this
	// probability.
	Censored float64 `toml:"censored"`
	// KWallBands, when set (Model.KWallFit = KWallByLimit), replace KWall
	// and Censored: the class's jobs split by requested time, each band
	// with its own censored share and the quantiles of its K_wall.
	KWallBands []KWallBand `toml:"k_wall_bands,omitempty"`
}

// KWallBand is the jobs of a class whose requested time is at most
// ReqTimeMax (and above the previous band's): the share of them that ran
// to their limit, and the quantiles of T_run / T_lim of the others at
// evenly spaced probabilities from 0 to 1.
type KWallBand struct {
	ReqTimeMax float64   `toml:"req_time_max"`
	Censored   float64   `toml:"censored"`
	Quantiles  []float64 `toml:"quantiles"`
}

// The ways of drawing K_wall (Model.KWallFit).
const (
	// KWallLaw draws K_wall from the class's best-AIC law, drawn again
	// at or above 1, independently of the requested time. The laws live
	// on (0, inf), so the cut at 1 removes the mass near 1: on KTH-SP2 a
	// generated job uses 0.31 of its limit on average, a logged one 0.48.
	KWallLaw = "law"
	// KWallByLimit draws K_wall from the class's own quantiles in the
	// band of its requested time (KWallBands): ours, which keeps the
	// distribution of K_wall and most of its growth with T_lim, hence most
	// of the work (on KTH-SP2 a generated job runs 94 % as long as a
	// logged one on average, docs/reproductions/petunin-models.md).
	KWallByLimit = "by-limit"
)

// KWallBandCount and KWallQuantileCount are the bands of requested time
// per class (at its quantiles) and the quantiles kept per band under
// KWallByLimit: few bands, since K_wall's growth with T_lim is mostly
// between short and long limits, and enough quantiles to keep the mass
// near 1 that laws on (0, inf) lose.
const (
	KWallBandCount     = 4
	KWallQuantileCount = 21
)

// Law is a fitted distribution as the model file stores it.
type Law struct {
	Family string             `toml:"family"`
	Params map[string]float64 `toml:"params"`
}

func lawOf(f fit.Fit) Law { return Law{Family: string(f.Family), Params: f.Params} }

func (l Law) fit() fit.Fit {
	return fit.Fit{Family: fit.Family(l.Family), Params: l.Params}
}

// FitModel fits a model to jobs: the inter-arrival law over all jobs (as
// arrivals says: ArrivalsMLE or ArrivalsMean), and a class per cluster of
// c (from Cluster) with the best-AIC law of each parameter. Jobs that
// never ran (Job.NeverRan, as the rules left them out) are not modelled:
// the model's jobs, arrivals and classes are those of the jobs that ran.
func FitModel(jobs []Job, c Clusters, procs int64, source, sha, arrivals string) (*Model, error) {
	if arrivals != ArrivalsMLE && arrivals != ArrivalsMean {
		return nil, fmt.Errorf("analysis: arrivals %q: want %s or %s", arrivals, ArrivalsMLE, ArrivalsMean)
	}
	jobs = slices.DeleteFunc(slices.Clone(jobs), func(j Job) bool { return j.NeverRan })
	m := &Model{Source: source, SourceSHA256: sha, Factor: c.Factor, Clustering: c.Features, Procs: procs, Jobs: len(jobs), ArrivalFit: arrivals}
	var submits []float64
	for _, j := range jobs {
		if !math.IsNaN(j.Submit) {
			submits = append(submits, j.Submit)
		}
	}
	sort.Float64s(submits)
	var gaps []float64
	for i := 1; i < len(submits); i++ {
		if g := submits[i] - submits[i-1]; g > 0 {
			gaps = append(gaps, g)
		}
	}
	// Simultaneous submissions (gap 0) cannot enter a law on x > 0; their
	// share is small in the logs, and the generated stream spreads them.
	best, err := bestFit(gaps)
	if err != nil {
		return nil, fmt.Errorf("analysis: inter-arrival times: %w", err)
	}
	if arrivals == ArrivalsMean && len(submits) > 1 {
		d, err := best.Dist(nil)
		if err != nil {
			return nil, fmt.Errorf("analysis: inter-arrival times: %w", err)
		}
		want := (submits[len(submits)-1] - submits[0]) / float64(len(submits)-1)
		m.ArrivalScale = want / d.Mean()
		if best, err = best.Scaled(m.ArrivalScale); err != nil {
			return nil, fmt.Errorf("analysis: inter-arrival times: %w", err)
		}
	}
	m.Arrival = lawOf(best)
	label := map[string]int{}
	for i, v := range c.Values {
		label[v] = c.Labels[i]
	}
	for k := range c.Result.K {
		var n, censored int
		var ps, rs, ts, ks []float64
		for _, j := range jobs {
			if l, ok := label[j.Factors[c.Factor]]; !ok || l != k {
				continue
			}
			n++
			if j.Procs > 0 {
				ps = append(ps, j.Procs)
			}
			if j.ReqTime > 0 {
				rs = append(rs, j.ReqTime)
			}
			if j.Censored() {
				censored++
			} else if j.Runtime > 0 {
				ts = append(ts, j.Runtime)
				if k := j.KWall(); k > 0 {
					ks = append(ks, k)
				}
			}
		}
		cl := Class{Share: float64(n) / float64(len(jobs)), Censored: float64(censored) / float64(max(n, 1))}
		for _, x := range []struct {
			name string
			xs   []float64
			dst  *Law
		}{{"procs", ps, &cl.Procs}, {"req_time", rs, &cl.ReqTime}, {"runtime", ts, &cl.Runtime}, {"k_wall", ks, &cl.KWall}} {
			f, err := bestFit(x.xs)
			if err != nil {
				return nil, fmt.Errorf("analysis: class %d %s: %w", k, x.name, err)
			}
			*x.dst = lawOf(f)
		}
		m.Classes = append(m.Classes, cl)
	}
	return m, nil
}

// bestFit is the best-AIC law; a constant sample (all jobs on one
// processor) is a point mass, stored as a log-normal of zero spread.
func bestFit(xs []float64) (fit.Fit, error) {
	if len(xs) == 0 {
		return fit.Fit{}, errors.New("no positive value to fit")
	}
	constant := true
	for _, x := range xs {
		if x != xs[0] {
			constant = false
			break
		}
	}
	if constant {
		return fit.Fit{Family: fit.LogNormal, Params: map[string]float64{fit.ParamMu: math.Log(xs[0]), fit.ParamSigma: 0}, N: len(xs)}, nil
	}
	fits, err := fit.FitAll(xs)
	if err != nil {
		return fit.Fit{}, err
	}
	return fits[0], nil
}

// Write writes the model as TOML.
func (m *Model) Write(path string) error {
	var b bytes.Buffer
	b.WriteString("# A workload model fitted by `schedlab workload fit`; `schedlab workload gen` and the\n")
	b.WriteString("# manifest generator \"model\" draw workloads from it. Times in seconds.\n\n")
	if err := toml.NewEncoder(&b).Encode(m); err != nil {
		return fmt.Errorf("model %s: %w", path, err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// ReadModel reads a model file, strictly: an unknown key is an error.
func ReadModel(path string) (*Model, error) {
	var m Model
	md, err := toml.DecodeFile(path, &m)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("model %s: unknown key %s", path, und[0])
	}
	if len(m.Classes) == 0 || m.Procs < 1 {
		return nil, fmt.Errorf("model %s: needs procs and at least one class", path)
	}
	if err := m.checkKWall(); err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	if m.Rules != nil {
		if err := m.Rules.Check(); err != nil {
			return nil, fmt.Errorf("model %s: [rules]: %w", path, err)
		}
	}
	return &m, nil
}

// checkKWall checks the K_wall setting and every band: k_wall_fit known,
// bands in every class exactly under KWallByLimit, their bounds positive
// and increasing, their censored shares in [0, 1], and their quantiles
// sorted in [0, 1], present unless every job of the band is censored.
func (m *Model) checkKWall() error {
	switch m.KWallFit {
	case "", KWallLaw, KWallByLimit:
	default:
		return fmt.Errorf("k_wall_fit %q: want %s or %s", m.KWallFit, KWallLaw, KWallByLimit)
	}
	for i, c := range m.Classes {
		if (m.KWallFit == KWallByLimit) != (len(c.KWallBands) > 0) {
			return fmt.Errorf("class %d: k_wall_fit %q with %d k_wall bands (by-limit needs bands in every class, the law none)", i, m.KWallFit, len(c.KWallBands))
		}
		last := 0.0
		for k, b := range c.KWallBands {
			where := fmt.Sprintf("class %d, k_wall band %d", i, k)
			switch {
			case !(b.ReqTimeMax > last) || math.IsInf(b.ReqTimeMax, 0):
				return fmt.Errorf("%s: req_time_max %v: want finite and above the previous band's (%v)", where, b.ReqTimeMax, last)
			case !(b.Censored >= 0 && b.Censored <= 1):
				return fmt.Errorf("%s: censored %v: want a share in [0, 1]", where, b.Censored)
			case len(b.Quantiles) == 0 && b.Censored < 1:
				return fmt.Errorf("%s: no quantiles, yet %v of its jobs ended before their limit", where, 1-b.Censored)
			case !slices.IsSorted(b.Quantiles) || slices.ContainsFunc(b.Quantiles, func(q float64) bool { return !(q >= 0 && q <= 1) }):
				return fmt.Errorf("%s: quantiles %v: want K_wall values in [0, 1], sorted", where, b.Quantiles)
			}
			last = b.ReqTimeMax
		}
	}
	return nil
}

// draw samples a law; a zero-spread log-normal is its point.
func draw(l Law, rng *rand.Rand) float64 {
	if l.Family == string(fit.LogNormal) && l.Params[fit.ParamSigma] == 0 {
		return math.Exp(l.Params[fit.ParamMu])
	}
	return l.fit().Rand(rng)
}

// Generate draws n jobs (the model's count when n <= 0) for a platform of
// procs processors (the model's when procs <= 0): submissions from the
// arrival law, a class per job by its share, processors rounded up and
// clamped to the platform, requested time rounded up (at least 1 s), and a
// runtime that is the requested time with the class's censored
// probability, else K_wall times the requested time, K_wall drawn from its
// law until it is below 1 (at most 100 draws, then the requested time).
// Under KWallByLimit the censored probability and K_wall are those of the
// class's band of the job's requested time (KWallBands). The SWF user field
// carries the job's class index.
func (m *Model) Generate(n int, procs int64, rng *rand.Rand) ([]swf.Record, error) {
	if n <= 0 {
		n = m.Jobs
	}
	if procs <= 0 {
		procs = m.Procs
	}
	var total float64
	for _, c := range m.Classes {
		total += c.Share
	}
	if !(total > 0) {
		return nil, errors.New("model: class shares sum to 0")
	}
	recs := make([]swf.Record, n)
	t := 0.0
	for i := range recs {
		if i > 0 {
			t += draw(m.Arrival, rng)
		}
		u, k := rng.Float64()*total, 0
		for k = 0; k < len(m.Classes)-1; k++ {
			if u -= m.Classes[k].Share; u < 0 {
				break
			}
		}
		c := m.Classes[k]
		p := min(max(int64(math.Ceil(draw(c.Procs, rng))), 1), procs)
		req := max(int64(math.Ceil(draw(c.ReqTime, rng))), 1)
		run := req
		if len(c.KWallBands) > 0 {
			b := c.band(float64(req))
			if rng.Float64() >= b.Censored {
				run = max(int64(math.Ceil(quantileDraw(b.Quantiles, rng.Float64())*float64(req))), 1)
			}
		} else if rng.Float64() >= c.Censored {
			// K_wall of a job that ended before its limit is below 1; a
			// draw at or above 1 is drawn again (at most 100 times).
			for range 100 {
				if k := draw(c.KWall, rng); k < 1 {
					run = max(int64(math.Ceil(k*float64(req))), 1)
					break
				}
			}
		}
		recs[i] = swf.Record{JobNumber: int64(i + 1), Submit: int64(t), Wait: swf.Missing, RunTime: run,
			AllocProcs: p, AvgCPUTime: swf.Missing, UsedMemory: swf.Missing, ReqProcs: p, ReqTime: req,
			ReqMemory: swf.Missing, Status: 1, User: int64(k), Group: swf.Missing, App: swf.Missing,
			Queue: swf.Missing, Partition: swf.Missing, PrecedingJob: swf.Missing, ThinkTime: swf.Missing}
	}
	return recs, nil
}

// KS2 is the two-sample Kolmogorov-Smirnov distance: the largest gap
// between the empirical distribution functions of a and b. NaN when
// either is empty.
func KS2(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	x := append([]float64(nil), a...)
	y := append([]float64(nil), b...)
	sort.Float64s(x)
	sort.Float64s(y)
	var i, j int
	d := 0.0
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(x))-float64(j)/float64(len(y))))
	}
	return d
}

// Marginals returns the two-sample KS distance between two logs for
// processors, requested time, runtime and inter-arrival time.
func Marginals(a, b []Job) map[string]float64 {
	get := func(js []Job, f func(Job) float64) []float64 {
		var out []float64
		for _, j := range js {
			if x := f(j); !math.IsNaN(x) {
				out = append(out, x)
			}
		}
		return out
	}
	gaps := func(js []Job) []float64 {
		s := get(js, func(j Job) float64 { return j.Submit })
		sort.Float64s(s)
		var out []float64
		for i := 1; i < len(s); i++ {
			out = append(out, s[i]-s[i-1])
		}
		return out
	}
	out := map[string]float64{"interarrival": KS2(gaps(a), gaps(b))}
	for _, p := range []string{"procs", "req_time", "runtime"} {
		f := func(j Job) float64 { return param(j, p) }
		out[p] = KS2(get(a, f), get(b, f))
	}
	return out
}

// band returns the band of requested time req: the first whose ReqTimeMax
// is not below it, else the last.
func (c Class) band(req float64) KWallBand {
	for _, b := range c.KWallBands {
		if req <= b.ReqTimeMax {
			return b
		}
	}
	return c.KWallBands[len(c.KWallBands)-1]
}

// quantileDraw returns the value at probability u of the distribution
// whose quantiles q lie at evenly spaced probabilities from 0 to 1,
// interpolating linearly between them.
func quantileDraw(q []float64, u float64) float64 {
	if len(q) == 1 {
		return q[0]
	}
	x := u * float64(len(q)-1)
	i := min(int(x), len(q)-2)
	return q[i] + (x-float64(i))*(q[i+1]-q[i])
}

// FitKWallByLimit sets the model's K_wall to KWallByLimit: per class of c,
// the jobs split into KWallBandCount bands at the quantiles of their
// requested time, each with its censored share and KWallQuantileCount
// quantiles of K_wall over the jobs that ended before their limit (not
// killed there). Jobs that never ran are left out, as FitModel does.
func (m *Model) FitKWallByLimit(jobs []Job, c Clusters) error {
	if len(m.Classes) != c.Result.K {
		return fmt.Errorf("analysis: %d classes, %d clusters", len(m.Classes), c.Result.K)
	}
	label := make(map[string]int, len(c.Values))
	for i, v := range c.Values {
		label[v] = c.Labels[i]
	}
	// The bands are set only once every class has them: a failure leaves
	// the model as it was.
	all := make([][]KWallBand, len(m.Classes))
	for k := range m.Classes {
		var in []Job
		for _, j := range jobs {
			if l, ok := label[j.Factors[c.Factor]]; ok && l == k && j.ReqTime > 0 && !math.IsNaN(j.Runtime) && !j.NeverRan {
				in = append(in, j)
			}
		}
		if len(in) == 0 {
			return fmt.Errorf("analysis: class %d: no job with a requested time and a runtime", k)
		}
		slices.SortStableFunc(in, func(a, b Job) int { return cmp.Compare(a.ReqTime, b.ReqTime) })
		// The bands end at the quantiles of the requested time; equal
		// quantiles (many equal requests) make one band.
		var edges []float64
		for b := range KWallBandCount {
			if e := in[max((b+1)*len(in)/KWallBandCount-1, 0)].ReqTime; len(edges) == 0 || e > edges[len(edges)-1] {
				edges = append(edges, e)
			}
		}
		probs := make([]float64, KWallQuantileCount)
		for i := range probs {
			probs[i] = float64(i) / float64(KWallQuantileCount-1)
		}
		bands := make([]KWallBand, 0, len(edges))
		lo := 0
		for _, e := range edges {
			hi := lo
			for hi < len(in) && in[hi].ReqTime <= e {
				hi++
			}
			band := KWallBand{ReqTimeMax: e}
			var ks []float64
			for _, j := range in[lo:hi] {
				if j.Censored() {
					band.Censored++
				} else if kw := j.KWall(); kw >= 0 {
					ks = append(ks, kw)
				}
			}
			band.Censored /= float64(hi - lo)
			if len(ks) > 0 {
				band.Quantiles = stats.Quantiles(ks, probs)
			} else {
				band.Censored = 1 // every job of the band ran to its limit
			}
			bands = append(bands, band)
			lo = hi
		}
		all[k] = bands
	}
	for k := range m.Classes {
		m.Classes[k].KWallBands = all[k]
	}
	m.KWallFit = KWallByLimit
	return nil
}

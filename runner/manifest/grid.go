package manifest

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
)

// Cluster is a [platforms.NAME.clusters.CLUSTER] table: one cluster of a
// grid (paper 003), run by its own batch system.
type Cluster struct {
	Name  string
	Procs int64
	// PriceFactor is the cluster's F(R) in a grid's price function
	// (sdk.Cluster.PriceFactor); 1 unless the manifest says otherwise.
	PriceFactor float64
	// Features are the cluster's tags (sdk.Cluster.Features), which a
	// global stream's jobs may require (Stream.Require).
	Features []string
}

// Stream is a [workloads.NAME.streams.STREAM] table: one stream of jobs of
// a grid's workload, made of another workload of the manifest.
type Stream struct {
	// Name is the stream's name, the table's key.
	Name string
	// Workload names the workload whose jobs the stream holds (by default
	// the stream's own name). It is loaded on its own procs when it sets
	// them, else on the size of the stream's home cluster (for a global
	// stream, the largest cluster), as a platform axis sizes any workload.
	Workload string
	// Home names the cluster whose local stream this is; empty for a
	// global stream.
	Home string
	// From and To bound the window of the workload's jobs kept: those
	// submitted at least From and less than To seconds after its first
	// job (To 0: no end). The kept jobs are shifted so that the window
	// starts at time 0, which aligns the streams.
	From, To int64
	// Priority is the range of a local stream's job priorities, drawn
	// uniformly (both 1 by default).
	Priority [2]float64
	// Payment is the range of a global stream's payment per
	// processor-second of walltime, drawn uniformly; a job pays the draw
	// times its processors times its walltime (both 1 by default).
	Payment [2]float64
	// Transfer is a global stream's transfer time, in seconds.
	Transfer int64
	// Budget, when positive, is what each user of a global stream may pay
	// in each period of BudgetPeriod seconds (counted from time 0): in
	// submit order, a job pays its drawn payment out of what is left of its
	// user's budget, at most what is left, so that a user who has spent it
	// all submits free jobs until the next period (the paper's budgets,
	// section 4.1). Jobs of no user (-1) share one budget.
	Budget       float64
	BudgetPeriod int64
	// MinRuntime, when positive, leaves out the stream's jobs that run
	// less than this many seconds (counted in the stream's report as
	// short). Paper 003 bounds a job's delay with a ttl equal to the
	// shortest job (section 6.1), which only a workload without shorter
	// jobs can show.
	MinRuntime int64
	// Require lists the cluster features a global stream's jobs may
	// require; each job requires them all with probability RequireShare,
	// drawn from a source of its own (requireStream), so that the
	// stream's payments are the same with or without requirements.
	Require      []string
	RequireShare float64
}

// Global reports whether s is a global stream.
func (s Stream) Global() bool { return s.Home == "" }

type rawCluster struct {
	Procs       int64    `toml:"procs"`
	PriceFactor any      `toml:"price_factor"`
	Features    []string `toml:"features"`
}

type rawStream struct {
	Workload string   `toml:"workload"`
	Home     string   `toml:"home"`
	Window   []int64  `toml:"window"`
	Priority []any    `toml:"priority"`
	Payment  []any    `toml:"payment"`
	Transfer int64    `toml:"transfer"`
	Budget   any      `toml:"budget"`
	Period   int64    `toml:"budget_period"`
	MinRun   int64    `toml:"min_runtime"`
	Require  []string `toml:"require"`
	Share    any      `toml:"require_share"`
}

// clusters checks the [platforms.NAME.clusters.*] tables and returns them
// sorted by name, the order of the engine's clusters.
func (p *parser) clusters(platform string, rp rawPlatform) []Cluster {
	var out []Cluster
	key := func(k ...string) []string { return append([]string{"platforms", platform}, k...) }
	if p.md.IsDefined(key("procs")...) {
		p.errAt(key("procs"), "a platform has procs (one cluster) or clusters, not both")
	}
	if len(rp.Resources) > 0 {
		p.errAt(key("resources"), "a platform of several clusters has processors only, for now")
	}
	if len(rp.Clusters) == 0 {
		p.errAt(key("clusters"), "a grid needs at least one cluster ([platforms.%s.clusters.NAME] with procs)", platform)
	}
	for _, name := range sortedKeys(rp.Clusters) {
		rc := rp.Clusters[name]
		k := func(x ...string) []string { return key(append([]string{"clusters", name}, x...)...) }
		if !validName(name) {
			p.errAt(k(), "%q is not a valid cluster name (%s)", name, nameRule)
			continue
		}
		c := Cluster{Name: name, Procs: rc.Procs, PriceFactor: 1}
		if rc.Procs < 1 {
			p.errAt(k("procs"), "procs (the cluster's processors) must be at least 1, got %d", rc.Procs)
		}
		if p.md.IsDefined(k("price_factor")...) {
			f, ok := number(rc.PriceFactor)
			if !ok || f <= 0 || math.IsInf(f, 0) {
				p.errAt(k("price_factor"), "must be a positive number, got %v", rc.PriceFactor)
			}
			c.PriceFactor = f
		}
		if p.md.IsDefined(k("features")...) {
			c.Features = p.featureNames(k("features"), rc.Features)
		}
		out = append(out, c)
	}
	if n := len(Platform{Clusters: out}.features()); n > 64 {
		p.errAt(key("clusters"), "%d distinct features across the clusters, at most 64 (a job's requirements are a 64-bit mask)", n)
	}
	return out
}

// number reads a TOML integer or float.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	}
	return 0, false
}

// streams checks the [workloads.NAME.streams.*] tables; the workloads they
// name are checked once every workload is read (checkStreams).
func (p *parser) streams(name string, raw map[string]rawStream) []Stream {
	var out []Stream
	for _, sn := range sortedKeys(raw) {
		rs := raw[sn]
		key := func(k ...string) []string { return append([]string{"workloads", name, "streams", sn}, k...) }
		def := func(k string) bool { return p.md.IsDefined(key(k)...) }
		if !validName(sn) {
			p.errAt(key(), "%q is not a valid stream name (%s)", sn, nameRule)
			continue
		}
		s := Stream{Name: sn, Workload: sn, Home: rs.Home, Priority: [2]float64{1, 1}, Payment: [2]float64{1, 1}, Transfer: rs.Transfer}
		if def("workload") {
			s.Workload = rs.Workload
		}
		if def("home") && !validName(rs.Home) {
			p.errAt(key("home"), "%q is not a valid cluster name (%s)", rs.Home, nameRule)
		}
		if def("window") {
			if len(rs.Window) != 2 || rs.Window[0] < 0 || rs.Window[1] <= rs.Window[0] {
				p.errAt(key("window"), "must be [from, to], seconds after the workload's first submission with 0 <= from < to, got %v", rs.Window)
			} else {
				s.From, s.To = rs.Window[0], rs.Window[1]
			}
		}
		rangeOf := func(k string, v []any, dst *[2]float64, min float64) {
			if !def(k) {
				return
			}
			lo, ok1 := 0.0, false
			hi, ok2 := 0.0, false
			if len(v) == 2 {
				lo, ok1 = number(v[0])
				hi, ok2 = number(v[1])
			}
			if !ok1 || !ok2 || lo < min || hi < lo || math.IsInf(hi, 0) {
				p.errAt(key(k), "must be [low, high], numbers with %v <= low <= high, got %v", min, v)
				return
			}
			*dst = [2]float64{lo, hi}
		}
		rangeOf("priority", rs.Priority, &s.Priority, math.Inf(-1))
		rangeOf("payment", rs.Payment, &s.Payment, 0)
		switch {
		case s.Global() && def("priority"):
			p.errAt(key("priority"), "a global stream's jobs have a payment, not a priority (set home for a local stream)")
		case !s.Global() && def("payment"):
			p.errAt(key("payment"), "a local stream's jobs have a priority, not a payment (leave out home for a global stream)")
		case !s.Global() && def("transfer"):
			p.errAt(key("transfer"), "a local stream runs at home: it has no transfer time")
		case rs.Transfer < 0:
			p.errAt(key("transfer"), "must be at least 0 seconds, got %d", rs.Transfer)
		}
		if def("budget") {
			b, ok := number(rs.Budget)
			switch {
			case !s.Global():
				p.errAt(key("budget"), "budgets pay for global jobs: a local stream has none")
			case !ok || b <= 0 || math.IsInf(b, 0):
				p.errAt(key("budget"), "must be a positive number, got %v", rs.Budget)
			default:
				s.Budget, s.BudgetPeriod = b, 86400
			}
		}
		if def("min_runtime") {
			if rs.MinRun < 1 {
				p.errAt(key("min_runtime"), "must be at least 1 second, got %d", rs.MinRun)
			}
			s.MinRuntime = rs.MinRun
		}
		if def("budget_period") {
			switch {
			case !def("budget"):
				p.errAt(key("budget_period"), "a budget period needs a budget")
			case rs.Period < 1:
				p.errAt(key("budget_period"), "must be at least 1 second, got %d", rs.Period)
			default:
				s.BudgetPeriod = rs.Period
			}
		}
		p.require(&s, rs, key, def)
		out = append(out, s)
	}
	return out
}

// featureNames checks a list of feature names at key: each a valid name,
// none repeated.
func (p *parser) featureNames(key []string, names []string) []string {
	seen := map[string]bool{}
	for _, f := range names {
		switch {
		case !validName(f):
			p.errAt(key, "%q is not a valid feature name (%s)", f, nameRule)
		case seen[f]:
			p.errAt(key, "feature %q is listed twice", f)
		}
		seen[f] = true
	}
	return names
}

// require checks a stream's require and require_share.
func (p *parser) require(s *Stream, rs rawStream, key func(k ...string) []string, def func(string) bool) {
	if def("require") {
		switch {
		case !s.Global():
			p.errAt(key("require"), "a local stream runs at home: its jobs require nothing of other clusters")
		case len(rs.Require) == 0:
			p.errAt(key("require"), "lists the features the stream's jobs require: at least one")
		default:
			s.Require, s.RequireShare = p.featureNames(key("require"), rs.Require), 1
		}
	}
	if def("require_share") {
		f, ok := number(rs.Share)
		switch {
		case !def("require"):
			p.errAt(key("require_share"), "a share of jobs requiring features needs require (the features)")
		case !ok || f < 0 || f > 1:
			p.errAt(key("require_share"), "must be a number from 0 to 1, got %v", rs.Share)
		default:
			s.RequireShare = f
		}
	}
}

// checkStreams checks what a workload of streams says of the others: each
// stream names a workload of the manifest that is neither made of streams
// nor transformed.
func (p *parser) checkStreams(m *Manifest) {
	for _, name := range sortedKeys(m.Workloads) {
		for _, s := range m.Workloads[name].Streams {
			key := []string{"workloads", name, "streams", s.Name}
			if p.md.IsDefined(append(key, "workload")...) {
				key = append(key, "workload")
			}
			w, ok := m.Workloads[s.Workload]
			switch {
			case !ok:
				p.errAt(key, "no workload %q in the manifest%s", s.Workload, hint(s.Workload, sortedKeys(m.Workloads)))
			case len(w.Streams) > 0:
				p.errAt(key, "workload %q is made of streams itself", s.Workload)
			case w.Transform != "":
				p.errAt(key, "workload %q has a transform, which streams do not take yet", s.Workload)
			case w.Feedback.Mode != workload.FeedbackNone:
				// A stream's window cuts the jobs a dependency names.
				p.errAt(key, "workload %q has feedback = %q, which streams do not take yet", s.Workload, w.Feedback.Mode)
			}
		}
	}
}

// checkGrids checks the platform of every run of a workload of streams:
// it has clusters, among them every stream's home.
func (p *parser) checkGrids(m *Manifest, runs []Run) {
	seen := map[[2]string]bool{}
	for _, r := range runs {
		w := m.Workloads[r.Workload]
		pair := [2]string{r.Workload, r.Platform}
		if len(w.Streams) == 0 || seen[pair] {
			continue
		}
		seen[pair] = true
		if r.Platform == "" || len(m.Platforms[r.Platform].Clusters) == 0 {
			p.errAt([]string{"workloads", r.Workload, "streams"}, "a workload of streams runs on a platform of clusters ([platforms.NAME.clusters.CLUSTER]); run %q has %s",
				r.Label(), cmpPlatform(r.Platform))
			continue
		}
		names := m.Platforms[r.Platform].clusterNames()
		features := m.Platforms[r.Platform].features()
		for _, s := range w.Streams {
			if !s.Global() && !slices.Contains(names, s.Home) {
				p.errAt([]string{"workloads", r.Workload, "streams", s.Name, "home"}, "cluster %q is not a cluster of platform %s%s",
					s.Home, r.Platform, hint(s.Home, names))
			}
			for _, f := range s.Require {
				if !slices.Contains(features, f) {
					p.errAt([]string{"workloads", r.Workload, "streams", s.Name, "require"}, "no cluster of platform %s has feature %q (features: %v)%s",
						r.Platform, f, features, hint(f, features))
				}
			}
		}
	}
}

func cmpPlatform(name string) string {
	if name == "" {
		return "no platform axis"
	}
	return "platform " + name + ", of one cluster"
}

func (pl Platform) clusterNames() []string {
	out := make([]string, len(pl.Clusters))
	for i, c := range pl.Clusters {
		out[i] = c.Name
	}
	return out
}

// StreamProcs returns the size of a stream's home cluster on platform pl,
// or of the largest cluster for a global stream: the size its workload is
// loaded on unless the workload sets its own.
func (pl Platform) StreamProcs(s Stream) int64 {
	for _, c := range pl.Clusters {
		if c.Name == s.Home {
			return c.Procs
		}
	}
	return pl.Procs
}

// Home returns the sdk.Job.Home of s's jobs on platform pl: 1 + the index
// of its home cluster, 0 for a global stream.
func (pl Platform) Home(s Stream) int32 {
	return int32(slices.IndexFunc(pl.Clusters, func(c Cluster) bool { return c.Name == s.Home }) + 1)
}

// features returns the distinct features of the platform's clusters,
// sorted (the bits of sdk.Job.Requires, as sdk.Platform.ClusterFeatures).
func (pl Platform) features() []string {
	var names []string
	for _, c := range pl.Clusters {
		names = append(names, c.Features...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Requires returns the sdk.Job.Requires of a job of s that requires its
// features on platform pl: the mask of s.Require over the platform's
// features; 0 when s requires none.
func (pl Platform) Requires(s Stream) uint64 {
	names := pl.features()
	var m uint64
	for _, f := range s.Require {
		if k, ok := slices.BinarySearch(names, f); ok {
			m |= 1 << k
		}
	}
	return m
}

// sdkClusters returns the platform's clusters as the engine sees them.
func (pl Platform) sdkClusters() []sdk.Cluster {
	out := make([]sdk.Cluster, len(pl.Clusters))
	for i, c := range pl.Clusters {
		out[i] = sdk.Cluster{Name: c.Name, Capacity: sdk.Vector{c.Procs}}
		if c.PriceFactor != 1 {
			out[i].PriceFactor = c.PriceFactor
		}
		out[i].Features = c.Features
	}
	return out
}

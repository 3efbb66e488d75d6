// Package outages makes the outages of a platform of nodes for a run:
// failures read from a file or drawn from a model (time between failures
// exponential or Weibull, repairs of fixed or exponential length), drains
// and maintenance windows, periodic or not. The engine (sdk/sim) applies
// them; docs/engine.md says how.
package outages

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// Settings are a platform's outages, as a manifest's [platforms.NAME.outages]
// table gives them.
type Settings struct {
	// Faults are the rules for the jobs that outages reach.
	Faults sim.Faults
	// File, when set, holds failures (ReadFile); FileSHA256 is its
	// sha256, recorded in provenance.
	File, FileSHA256 string
	// Model draws failures per node, "" for none: "exponential" or
	// "weibull" times between a node's repair (or the run's start) and
	// its next failure, of mean MTBF seconds (and Shape, Weibull's k);
	// Repair, "fixed", "exponential" or "lognormal", the time a repair
	// takes, of mean MTTR seconds (and, lognormal, RepairSigma, the
	// standard deviation of its logarithm).
	Model       string
	MTBF        float64
	Shape       float64
	Repair      string
	MTTR        float64
	RepairSigma float64
	// Horizon is how long after the first submission the model draws
	// failures, in seconds; 0 (the setting "jobs") to the latest
	// submission plus the longest walltime (ForJobs).
	Horizon int64
	// Windows are maintenance windows and Drains drains.
	Windows []Window
	Drains  []Drain
}

// Window is a maintenance window: from Start for Duration seconds, on
// Nodes (none: every node), again every Every seconds when Every > 0.
type Window struct {
	Start    int64   `json:"start"`
	Duration int64   `json:"duration"`
	Every    int64   `json:"every,omitempty"`
	Nodes    []int32 `json:"nodes,omitempty"`
}

// Drain drains Nodes (none: every node) from Start to End.
type Drain struct {
	Start int64   `json:"start"`
	End   int64   `json:"end"`
	Nodes []int32 `json:"nodes,omitempty"`
}

// Counts say what Build made.
type Counts struct {
	// FileFailures and ModelFailures count the failures from the file and
	// from the model; Windows the maintenance windows (periodic ones
	// counted each time) and Drains the drains.
	FileFailures  int `json:"file_failures"`
	ModelFailures int `json:"model_failures"`
	Windows       int `json:"windows"`
	Drains        int `json:"drains"`
	// FailureNodeSeconds and MaintenanceNodeSeconds are the node-seconds
	// of failures and of maintenance windows between the first submission
	// and the horizon (for failures, the model's horizon when set).
	FailureNodeSeconds     int64 `json:"failure_node_seconds"`
	MaintenanceNodeSeconds int64 `json:"maintenance_node_seconds"`
	// FailureHorizon is the time up to which the model drew failures,
	// with a Horizon set (0, left out of JSON, with the default "jobs").
	FailureHorizon int64 `json:"failure_horizon,omitempty"`
}

// Models are the failure models, and Repairs the repair-time models.
var (
	Models  = []string{"exponential", "weibull"}
	Repairs = []string{"fixed", "exponential", "lognormal"}
)

// Check reports settings that cannot make outages on a platform of nodes
// nodes, naming the setting by its manifest key.
func (s *Settings) Check(nodes int32) error {
	switch {
	case s.Model != "" && !slices.Contains(Models, s.Model):
		return fmt.Errorf("failure_model %q: want one of %s", s.Model, strings.Join(Models, ", "))
	case s.Model != "" && !(s.MTBF > 0):
		return fmt.Errorf("mtbf must be positive with a failure_model, got %v", s.MTBF)
	case s.Model == "weibull" && !(s.Shape > 0):
		return fmt.Errorf("weibull_shape must be positive, got %v", s.Shape)
	case s.Model != "weibull" && s.Shape != 0:
		return errors.New("weibull_shape is a setting of failure_model = \"weibull\"")
	case s.Model != "" && !slices.Contains(Repairs, s.Repair):
		return fmt.Errorf("repair %q: want one of %s", s.Repair, strings.Join(Repairs, ", "))
	case s.Model != "" && !(s.MTTR > 0):
		return fmt.Errorf("mttr must be positive with a failure_model, got %v", s.MTTR)
	case s.Repair == "lognormal" && !(s.RepairSigma > 0):
		return fmt.Errorf("repair_sigma must be positive with repair = \"lognormal\", got %v", s.RepairSigma)
	case s.Repair != "lognormal" && s.RepairSigma != 0:
		return errors.New("repair_sigma is a setting of repair = \"lognormal\"")
	case s.Horizon < 0:
		return fmt.Errorf("failure_horizon must be \"jobs\" or a positive time, got %d", s.Horizon)
	case s.Model == "" && s.Horizon != 0:
		return errors.New("failure_horizon is a setting of a failure_model")
	}
	for i, w := range s.Windows {
		switch {
		case w.Duration <= 0:
			return fmt.Errorf("windows[%d]: duration must be positive, got %d", i, w.Duration)
		case w.Every < 0 || w.Every > 0 && w.Every < w.Duration:
			return fmt.Errorf("windows[%d]: every must be 0 (once) or at least the duration %d, got %d", i, w.Duration, w.Every)
		}
		if err := checkNodes(w.Nodes, nodes); err != nil {
			return fmt.Errorf("windows[%d]: %w", i, err)
		}
	}
	for i, d := range s.Drains {
		if d.End <= d.Start {
			return fmt.Errorf("drains[%d]: end %d is not after start %d", i, d.End, d.Start)
		}
		if err := checkNodes(d.Nodes, nodes); err != nil {
			return fmt.Errorf("drains[%d]: %w", i, err)
		}
	}
	return nil
}

func checkNodes(ns []int32, nodes int32) error {
	for x, k := range ns {
		switch {
		case k < 0 || k >= nodes:
			return fmt.Errorf("node %d: the platform has nodes 0 to %d", k, nodes-1)
		case x > 0 && k <= ns[x-1]:
			return fmt.Errorf("nodes not in increasing order, or repeated (%d after %d)", k, ns[x-1])
		}
	}
	return nil
}

// ForJobs returns the outages of a run of jobs (in submission order) on a
// platform of nodes p, drawn with rng: Build's, with the failures of
// s.File, from the first submission to the jobs' horizon, the latest
// submission plus the longest walltime. Nil without jobs.
func ForJobs(s *Settings, p *sdk.Platform, jobs []sim.Input, rng *rand.Rand) ([]sdk.Outage, Counts, error) {
	if len(jobs) == 0 {
		return nil, Counts{}, nil
	}
	var file []sdk.Outage
	if s.File != "" {
		var err error
		if file, err = ReadFile(s.File, int32(p.Clusters[0].NodeCount())); err != nil {
			return nil, Counts{}, err
		}
	}
	from, to := jobs[0].Job.Submit, jobs[0].Job.Submit
	for i := range jobs {
		to = max(to, jobs[i].Job.Submit+jobs[i].Job.Walltime)
	}
	return Build(s, p, file, rng, from, to)
}

// Build returns the outages of a run on a platform of nodes nodes (cluster
// 0) whose jobs are submitted from from on, up to the horizon to: the
// failures of file (from ReadFile), those drawn from the model with rng
// (up to to, or from + s.Horizon when set), the windows, periodic ones
// repeated while they begin before to, and the drains; sorted by
// sdk.CompareOutages, checked by sdk.CheckOutages.
func Build(s *Settings, p *sdk.Platform, file []sdk.Outage, rng *rand.Rand, from, to int64) ([]sdk.Outage, Counts, error) {
	var c Counts
	out := slices.Clone(file)
	c.FileFailures = len(file)
	nodes := int32(p.Clusters[0].NodeCount())
	failTo := to
	if s.Model != "" {
		if s.Horizon > 0 {
			failTo = min(from+s.Horizon, sim.MaxTime)
			c.FailureHorizon = failTo
		}
		drawn := draw(s, nodes, rng, from, failTo)
		c.ModelFailures = len(drawn)
		out = append(out, drawn...)
	}
	for _, w := range s.Windows {
		for at := w.Start; at < to; at += w.Every {
			out = append(out, sdk.Outage{Nodes: w.Nodes, Start: at, End: at + w.Duration, Kind: sdk.Maintenance})
			c.Windows++
			if w.Every == 0 {
				break
			}
		}
	}
	for _, d := range s.Drains {
		out = append(out, sdk.Outage{Nodes: d.Nodes, Start: d.Start, End: d.End, Kind: sdk.Drain})
		c.Drains++
	}
	for _, o := range out {
		n := int64(len(o.Nodes))
		if n == 0 {
			n = int64(nodes)
		}
		switch o.Kind {
		case sdk.Failure:
			c.FailureNodeSeconds += max(0, min(o.End, failTo)-max(o.Start, from)) * n
		case sdk.Maintenance:
			c.MaintenanceNodeSeconds += max(0, min(o.End, to)-max(o.Start, from)) * n
		}
	}
	sdk.SortOutages(out)
	if err := sdk.CheckOutages(p, out); err != nil {
		return nil, c, err
	}
	return out, c, nil
}

// draw draws each node's failures in turn, node 0 first: from from, an
// up time, a failure, a repair time, and so on while failures begin
// before to. Times are whole seconds, rounded up (a repair lasts at least
// 1 s).
func draw(s *Settings, nodes int32, rng *rand.Rand, from, to int64) []sdk.Outage {
	scale := s.MTBF
	if s.Model == "weibull" {
		// The mean of Weibull(k, lambda) is lambda x Gamma(1 + 1/k).
		scale = s.MTBF / math.Gamma(1+1/s.Shape)
	}
	up := func() float64 {
		if s.Model == "weibull" {
			// Inverse transform: lambda x (-ln U)^(1/k), U in (0, 1].
			return scale * math.Pow(-math.Log(1-rng.Float64()), 1/s.Shape)
		}
		return rng.ExpFloat64() * scale
	}
	// A lognormal of mean MTTR: mu = ln(MTTR) - sigma^2 / 2.
	mu := math.Log(s.MTTR) - s.RepairSigma*s.RepairSigma/2
	repair := func() float64 {
		switch s.Repair {
		case "exponential":
			return rng.ExpFloat64() * s.MTTR
		case "lognormal":
			return math.Exp(mu + s.RepairSigma*rng.NormFloat64())
		}
		return s.MTTR
	}
	var out []sdk.Outage
	for k := range nodes {
		t := from
		for {
			at := t + int64(math.Ceil(up()))
			if at >= to || at < t {
				break
			}
			end := at + max(1, int64(math.Ceil(repair())))
			out = append(out, sdk.Outage{Nodes: []int32{k}, Start: at, End: end, Kind: sdk.Failure})
			t = end
		}
	}
	return out
}

package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/outages"
)

// rawOutages is a [platforms.NAME.outages] table.
type rawOutages struct {
	OnFailure      string      `toml:"on_failure"`
	Requeue        string      `toml:"requeue"`
	Maintenance    string      `toml:"maintenance"`
	FailuresFile   string      `toml:"failures_file"`
	FailuresSHA256 string      `toml:"failures_sha256"`
	FailureModel   string      `toml:"failure_model"`
	MTBF           any         `toml:"mtbf"`
	WeibullShape   float64     `toml:"weibull_shape"`
	Repair         string      `toml:"repair"`
	MTTR           any         `toml:"mttr"`
	RepairSigma    float64     `toml:"repair_sigma"`
	Interval       any         `toml:"checkpoint_interval"`
	CheckCost      any         `toml:"checkpoint_cost"`
	RestartCost    any         `toml:"restart_cost"`
	CheckMTBF      any         `toml:"checkpoint_mtbf"`
	FailureHorizon any         `toml:"failure_horizon"`
	Windows        []rawWindow `toml:"windows"`
	Drains         []rawDrain  `toml:"drains"`
}

type rawWindow struct {
	Start    any   `toml:"start"`
	Duration any   `toml:"duration"`
	Every    any   `toml:"every"`
	Nodes    []any `toml:"nodes"`
}

type rawDrain struct {
	Start any   `toml:"start"`
	End   any   `toml:"end"`
	Nodes []any `toml:"nodes"`
}

// HorizonJobs is failure_horizon's default: the failure model draws up to
// the latest submission plus the longest walltime.
const HorizonJobs = "jobs"

// The names of the requeue settings: a requeued job keeps its place by
// submission, or goes last.
const (
	RequeueInPlace = "in-place"
	RequeueLast    = "last"
)

// outageInput is where the settings of outages come from: a manifest's
// [platforms.NAME.outages] table (tableInput) or `schedlab sim`'s flags
// (OutageFlags). Keys are within the table: "mtbf", "windows", "0",
// "start"; none for the table as a whole.
type outageInput interface {
	errAt(key []string, format string, args ...any)
	// defined reports whether the setting key was given.
	defined(key string) bool
	// path resolves a file's path.
	path(s string) string
}

// tableInput is a manifest's [platforms.NAME.outages] table.
type tableInput struct {
	p    *parser
	name string
}

func (t tableInput) key(k []string) []string {
	return append([]string{"platforms", t.name, "outages"}, k...)
}

func (t tableInput) errAt(k []string, format string, args ...any) {
	t.p.errAt(t.key(k), format, args...)
}

func (t tableInput) defined(k string) bool { return t.p.md.IsDefined(t.key([]string{k})...) }

func (t tableInput) path(s string) string { return t.p.path(s) }

// outageSettings reads a platform of nodes' [platforms.NAME.outages]
// table into the settings of package workload/outages; nil without one.
func (p *parser) outageSettings(name string, ro *rawOutages, nodes int32) *outages.Settings {
	if ro == nil {
		return nil
	}
	return readOutages(tableInput{p, name}, ro, nodes)
}

// readOutages reads the settings ro of outages on a platform of nodes
// nodes, reporting bad ones to in.
func readOutages(in outageInput, ro *rawOutages, nodes int32) *outages.Settings {
	key := func(k ...string) []string { return k }
	s := &outages.Settings{Model: ro.FailureModel, Shape: ro.WeibullShape, Repair: ro.Repair, RepairSigma: ro.RepairSigma}
	var err error
	if ro.OnFailure != "" {
		if s.Faults.OnFailure, err = sim.ParseOnFailure(ro.OnFailure); err != nil {
			in.errAt(key("on_failure"), "%v", err)
		}
	}
	switch ro.Requeue {
	case "", RequeueInPlace:
	case RequeueLast:
		s.Faults.LosePlace = true
	default:
		in.errAt(key("requeue"), "%q: want %s or %s", ro.Requeue, RequeueInPlace, RequeueLast)
	}
	if ro.Requeue != "" && s.Faults.OnFailure == sim.FailKill {
		in.errAt(key("requeue"), "is a setting of on_failure = \"requeue\" or \"checkpoint\"")
	}
	if ro.Maintenance != "" {
		if s.Faults.Maintenance, err = sim.ParseMaintenance(ro.Maintenance); err != nil {
			in.errAt(key("maintenance"), "%v", err)
		}
	}
	if ro.FailuresFile != "" {
		s.File = in.path(ro.FailuresFile)
		// The file's content, not its path, is part of the run's key.
		b, err := os.ReadFile(s.File)
		if err != nil {
			in.errAt(key("failures_file"), "%v", err)
		}
		sum := sha256.Sum256(b)
		s.FileSHA256 = hex.EncodeToString(sum[:])
		if ro.FailuresSHA256 != "" && ro.FailuresSHA256 != s.FileSHA256 {
			in.errAt(key("failures_sha256"), "the file's sha256 is %s, not %s", s.FileSHA256, ro.FailuresSHA256)
		}
		if err == nil {
			// Bad lines are bad input: refused before anything runs.
			if _, err := outages.ReadFile(s.File, nodes); err != nil {
				in.errAt(key("failures_file"), "%v", err)
			}
		}
	} else if ro.FailuresSHA256 != "" {
		in.errAt(key("failures_sha256"), "is a setting of failures_file")
	}
	if ro.FailuresFile != "" && ro.FailureModel != "" {
		// A drawn failure could overlap one of the file on its node.
		in.errAt(key("failure_model"), "failures come from failures_file or from a failure_model, not both")
	}
	if ro.FailureModel != "" && ro.Repair == "" {
		s.Repair = "exponential"
	}
	secs := func(k []string, v any) float64 {
		if v == nil {
			return 0
		}
		x, err := ParseSeconds(v)
		if err != nil {
			in.errAt(k, "%v", err)
		}
		return float64(x)
	}
	s.MTBF, s.MTTR = secs(key("mtbf"), ro.MTBF), secs(key("mttr"), ro.MTTR)
	// The failure model's horizon: "jobs" (the default, 0) or a time.
	if h := ro.FailureHorizon; h != nil && h != HorizonJobs && ro.FailureModel != "" {
		if s.Horizon = int64(secs(key("failure_horizon"), h)); s.Horizon < 1 {
			in.errAt(key("failure_horizon"), "want %q or a time of at least 1 s", HorizonJobs)
		}
	}
	checkpointSettings(in, ro, s, secs)
	if ro.FailureModel == "" {
		for _, k := range []string{"mtbf", "weibull_shape", "repair", "mttr", "repair_sigma", "failure_horizon"} {
			if in.defined(k) {
				in.errAt(key(k), "is a setting of a failure_model")
			}
		}
	}
	for i, w := range ro.Windows {
		k := func(f string) []string { return key("windows", strconv.Itoa(i), f) }
		start, dur, every := secs(k("start"), w.Start), secs(k("duration"), w.Duration), secs(k("every"), w.Every)
		if w.Duration == nil {
			in.errAt(k("duration"), "a maintenance window needs a duration")
		}
		s.Windows = append(s.Windows, outages.Window{Start: int64(start), Duration: int64(dur), Every: int64(every), Nodes: nodeList(in, k("nodes"), w.Nodes)})
	}
	for i, d := range ro.Drains {
		k := func(f string) []string { return key("drains", strconv.Itoa(i), f) }
		end := int64(sim.MaxTime)
		if d.End != nil {
			end = int64(secs(k("end"), d.End))
		}
		s.Drains = append(s.Drains, outages.Drain{Start: int64(secs(k("start"), d.Start)), End: end, Nodes: nodeList(in, k("nodes"), d.Nodes)})
	}
	if err := s.Check(nodes); err != nil {
		in.errAt(key(), "%v", err)
	}
	return s
}

// checkpointSettings reads the checkpointing settings of on_failure =
// "checkpoint" into s.Faults.Checkpoint.
func checkpointSettings(in outageInput, ro *rawOutages, s *outages.Settings, secs func([]string, any) float64) {
	key := func(k ...string) []string { return k }
	if s.Faults.OnFailure != sim.FailCheckpoint {
		for _, k := range []string{"checkpoint_interval", "checkpoint_cost", "restart_cost", "checkpoint_mtbf"} {
			if in.defined(k) {
				in.errAt(key(k), "is a setting of on_failure = \"checkpoint\"")
			}
		}
		return
	}
	c := &s.Faults.Checkpoint
	c.Cost, c.Restart = int64(secs(key("checkpoint_cost"), ro.CheckCost)), int64(secs(key("restart_cost"), ro.RestartCost))
	switch v := ro.Interval.(type) {
	case nil:
		in.errAt(key(), "on_failure = \"checkpoint\" needs checkpoint_interval: a time, \"young\" or \"daly\"")
	case string:
		if r, err := sim.ParseIntervalRule(v); err == nil && r != sim.IntervalFixed {
			c.Rule = r
			break
		}
		c.Interval = int64(secs(key("checkpoint_interval"), v))
	default:
		c.Interval = int64(secs(key("checkpoint_interval"), v))
	}
	if c.Rule == sim.IntervalFixed {
		if ro.Interval != nil && c.Interval < 1 {
			in.errAt(key("checkpoint_interval"), "must be at least 1 s")
		}
		return
	}
	// Young's and Daly's rules need a node's mean time between failures:
	// the model's, unless given.
	c.MTBF = s.MTBF
	if ro.CheckMTBF != nil {
		c.MTBF = secs(key("checkpoint_mtbf"), ro.CheckMTBF)
	}
	if !(c.MTBF > 0) {
		in.errAt(key("checkpoint_interval"), "%s's rule needs a node's mean time between failures: a failure_model's mtbf, or checkpoint_mtbf", c.Rule)
	}
}

var rangeRE = regexp.MustCompile(`^\s*([0-9]+)\s*-\s*([0-9]+)\s*$`)

// nodeList reads a list of node indexes and ranges ("0-15"), sorted.
func nodeList(in outageInput, key []string, raw []any) []int32 {
	var out []int32
	for _, v := range raw {
		switch x := v.(type) {
		case int64:
			out = append(out, int32(x))
		case string:
			m := rangeRE.FindStringSubmatch(x)
			if m == nil {
				in.errAt(key, "%q is neither a node index nor a range a-b", x)
				continue
			}
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			if b < a || b-a > 1<<24 {
				in.errAt(key, "range %q is empty or too long", x)
				continue
			}
			for k := a; k <= b; k++ {
				out = append(out, int32(k))
			}
		default:
			in.errAt(key, "%v is neither a node index nor a range a-b", v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// secondUnits are the units ParseSeconds takes.
var secondUnits = map[string]int64{"": 1, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400}

var secondsRE = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$`)

// ParseSeconds reads a time in seconds: an integer, or a string of a number
// and a unit, s, m (or min), h, d or w: "30d", "4h", "90 m".
func ParseSeconds(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("%d seconds is negative", x)
		}
		return x, nil
	case string:
		m := secondsRE.FindStringSubmatch(strings.ToLower(x))
		if m == nil {
			return 0, fmt.Errorf("%q is not a time: want seconds or a number and a unit (s, m, h, d, w)", x)
		}
		u, ok := secondUnits[m[2]]
		if !ok {
			return 0, fmt.Errorf("%q: unknown unit %q (s, m, h, d, w)", x, m[2])
		}
		f, _ := strconv.ParseFloat(m[1], 64)
		if f*float64(u) > float64(sim.MaxTime) {
			return 0, fmt.Errorf("%q is beyond %d s", x, int64(sim.MaxTime))
		}
		return int64(f * float64(u)), nil
	}
	return 0, fmt.Errorf("%v is not a time: want seconds or a string such as \"30d\"", v)
}

// outagesSpec is what a run's spec (and key) holds of a platform's
// outages: every setting, the failure file by its sha256.
type outagesSpec struct {
	Checkpoint     *checkpointSpec `json:"checkpoint,omitempty"`
	Drains         []drainSpec     `json:"drains,omitempty"`
	FailureHorizon int64           `json:"failure_horizon,omitempty"`
	FailuresFile   string          `json:"failures_sha256,omitempty"`
	Maintenance    string          `json:"maintenance"`
	Model          string          `json:"model,omitempty"`
	MTBF           float64         `json:"mtbf,omitempty"`
	MTTR           float64         `json:"mttr,omitempty"`
	OnFailure      string          `json:"on_failure"`
	Repair         string          `json:"repair,omitempty"`
	RepairSigma    float64         `json:"repair_sigma,omitempty"`
	Requeue        string          `json:"requeue,omitempty"`
	Shape          float64         `json:"weibull_shape,omitempty"`
	Windows        []windowSpec    `json:"windows,omitempty"`
}

type checkpointSpec struct {
	Cost     int64   `json:"cost"`
	Interval int64   `json:"interval,omitempty"`
	MTBF     float64 `json:"mtbf,omitempty"`
	Restart  int64   `json:"restart"`
	Rule     string  `json:"rule"`
}

type drainSpec struct {
	End   int64   `json:"end"`
	Nodes []int32 `json:"nodes,omitempty"`
	Start int64   `json:"start"`
}

type windowSpec struct {
	Duration int64   `json:"duration"`
	Every    int64   `json:"every,omitempty"`
	Nodes    []int32 `json:"nodes,omitempty"`
	Start    int64   `json:"start"`
}

// OutagesSpec returns the settings of s as a run's spec holds them (JSON,
// in a jobs file's outages.settings metadata); nil for nil.
func OutagesSpec(s *outages.Settings) any {
	if s == nil {
		return nil
	}
	return specOutages(s)
}

func specOutages(s *outages.Settings) *outagesSpec {
	if s == nil {
		return nil
	}
	o := &outagesSpec{FailuresFile: s.FileSHA256, Maintenance: s.Faults.Maintenance.String(),
		Model: s.Model, MTBF: s.MTBF, MTTR: s.MTTR, OnFailure: s.Faults.OnFailure.String(), Shape: s.Shape}
	for _, d := range s.Drains {
		o.Drains = append(o.Drains, drainSpec{End: d.End, Nodes: d.Nodes, Start: d.Start})
	}
	for _, w := range s.Windows {
		o.Windows = append(o.Windows, windowSpec{Duration: w.Duration, Every: w.Every, Nodes: w.Nodes, Start: w.Start})
	}
	if s.Model != "" {
		o.Repair, o.RepairSigma = s.Repair, s.RepairSigma
		// 0, left out, is the default "jobs": specs without the setting
		// stay what they were.
		o.FailureHorizon = s.Horizon
	}
	if c := s.Faults.Checkpoint; s.Faults.OnFailure == sim.FailCheckpoint {
		o.Checkpoint = &checkpointSpec{Cost: c.Cost, Interval: c.Interval, MTBF: c.MTBF, Restart: c.Restart, Rule: c.Rule.String()}
	}
	if s.Faults.OnFailure != sim.FailKill {
		o.Requeue = RequeueInPlace
		if s.Faults.LosePlace {
			o.Requeue = RequeueLast
		}
	}
	return o
}

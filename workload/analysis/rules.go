package analysis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/schedlab/schedlab/workload/sacct"
)

// Rules are the modelling choices about how a job ended, applied to every
// job (Apply) before it is described, clustered or fitted: which jobs were
// killed at their limit (right-censored: their true runtime is only known
// to be at least T_lim) and which never ran. Each is a setting of
// `schedlab workload analyze` and `fit`, recorded in their outputs with the
// number of jobs it touched (Endings).
type Rules struct {
	// KilledBy says how a job killed at its limit is recognised:
	// KilledByState (the default) takes the log's record of how the job
	// ended where it has one (Slurm's state TIMEOUT), and the runtime rule
	// for jobs without; KilledByRuntime takes the runtime rule for every
	// job.
	KilledBy string `toml:"killed_by"`
	// LimitTolerance is the runtime rule's tolerance in seconds: a job is
	// killed at its limit when T_run >= T_lim, or when it ended at most
	// LimitTolerance seconds before a limit above ToleranceMinLimit
	// seconds. Schedulers log the end of a killed job a little before or
	// after its limit (a polling period, the time to signal and reap its
	// processes), and some logs record it before.
	LimitTolerance float64 `toml:"limit_tolerance"`
	// ToleranceMinLimit is the limit, in seconds, at or below which the
	// tolerance does not apply: within a short limit, ending in its last
	// LimitTolerance seconds says nothing about a kill (on KTH-SP2 most
	// jobs of a 60 s limit end in 5 to 20 s).
	ToleranceMinLimit float64 `toml:"tolerance_min_limit"`
	// NeverRan says what becomes of the jobs with T_run = 0, which never
	// ran (cancelled while waiting; a log cannot tell them from jobs that
	// ran less than its time unit): NeverRanExclude (the default) leaves
	// them out of the runtime, K_wall and wait statistics and fits and of
	// a fitted model, still counting them as submitted jobs; NeverRanKeep
	// keeps them, with K_wall 0 and the time to their cancellation as a
	// wait.
	NeverRan string `toml:"never_ran"`
}

// The ways of recognising a job killed at its limit (Rules.KilledBy).
const (
	KilledByState   = "state"
	KilledByRuntime = "runtime"
)

// What becomes of jobs that never ran (Rules.NeverRan).
const (
	NeverRanExclude = "exclude"
	NeverRanKeep    = "keep"
)

// DefaultLimitTolerance and DefaultToleranceMinLimit are the defaults of
// Rules. On KTH-SP2, CEA-Curie and HPC2N the jobs of limits above 300 s
// that end in the last minute before their limit are 2 to 40 times as
// many as those ending in the minute before it, and the excess ends
// within that minute; for limits of 120 to 300 s there is none (the
// counts of the two minutes are equal), and below 120 s the last minute
// is most of the limit (docs/reproductions/petunin-models.md).
const (
	DefaultLimitTolerance    = 60
	DefaultToleranceMinLimit = 300
)

// DefaultRules are the defaults: Slurm's state where the log has it, a
// tolerance of 60 s for limits above 300 s, and jobs that never ran left
// out.
func DefaultRules() Rules {
	return Rules{KilledBy: KilledByState, LimitTolerance: DefaultLimitTolerance,
		ToleranceMinLimit: DefaultToleranceMinLimit, NeverRan: NeverRanExclude}
}

// StrictRules are the rules of schedlab before the tolerance: killed only
// at T_run >= T_lim, whatever the log's state, and every job kept.
func StrictRules() Rules {
	return Rules{KilledBy: KilledByRuntime, NeverRan: NeverRanKeep}
}

// Check reports a setting out of its domain, naming it.
func (r Rules) Check() error {
	if r.KilledBy != KilledByState && r.KilledBy != KilledByRuntime {
		return fmt.Errorf("analysis: killed-by %q: want %s (the log's state where it has one) or %s", r.KilledBy, KilledByState, KilledByRuntime)
	}
	if !(r.LimitTolerance >= 0) || math.IsInf(r.LimitTolerance, 0) {
		return fmt.Errorf("analysis: limit-tolerance %v: want seconds, at least 0", r.LimitTolerance)
	}
	if !(r.ToleranceMinLimit >= 0) || math.IsInf(r.ToleranceMinLimit, 0) {
		return fmt.Errorf("analysis: tolerance-min-limit %v: want seconds, at least 0", r.ToleranceMinLimit)
	}
	if r.NeverRan != NeverRanExclude && r.NeverRan != NeverRanKeep {
		return fmt.Errorf("analysis: never-ran %q: want %s or %s", r.NeverRan, NeverRanExclude, NeverRanKeep)
	}
	return nil
}

// Endings counts the jobs the rules touched (Rules.Apply).
type Endings struct {
	Jobs int `toml:"jobs"`
	// WithState counts the jobs whose recorded state decided
	// (KilledByState and a log that records states); the runtime rule
	// decided for the others.
	WithState int `toml:"with_state"`
	// Killed is the number of jobs killed at their limit, the sum of
	// Timeout, AtLimit and NearLimit.
	Killed int `toml:"killed"`
	// Timeout counts the jobs whose state is TIMEOUT (KilledByState), and
	// OtherStateAtLimit those with another state whose runtime reaches
	// their limit, not counted as killed.
	Timeout           int `toml:"timeout"`
	OtherStateAtLimit int `toml:"other_state_at_limit"`
	// AtLimit counts the jobs the runtime rule finds killed with
	// T_run >= T_lim, NearLimit those it finds within the tolerance before
	// a limit above ToleranceMinLimit, and NearShortLimit the jobs that
	// end within the tolerance before a positive limit of at most
	// ToleranceMinLimit, which it does not count. NextWindow counts, for
	// comparison with NearLimit, the jobs that end between one and two
	// tolerances before a limit above ToleranceMinLimit: of the order of
	// the jobs within the tolerance that ended on their own.
	AtLimit        int `toml:"at_limit"`
	NearLimit      int `toml:"near_limit"`
	NearShortLimit int `toml:"near_short_limit"`
	NextWindow     int `toml:"next_window"`
	// NeverRan counts the jobs with T_run = 0 (left out or kept as
	// Rules.NeverRan says).
	NeverRan int `toml:"never_ran"`
}

// Apply sets every job's Killed and NeverRan as r says, and returns the
// counts. FromSWF and FromSacct apply DefaultRules; apply other rules to
// their jobs before describing them.
func (r Rules) Apply(jobs []Job) Endings {
	e := Endings{Jobs: len(jobs)}
	for i := range jobs {
		j := &jobs[i]
		j.Killed, j.NeverRan = false, false
		ran := !math.IsNaN(j.Runtime)
		if ran && j.Runtime == 0 {
			e.NeverRan++
			j.NeverRan = r.NeverRan == NeverRanExclude
		}
		limited := j.ReqTime > 0 && ran
		if r.KilledBy == KilledByState && j.State != "" {
			e.WithState++
			if j.State == sacct.StateTimeout {
				j.Killed = true
				e.Timeout++
			} else if limited && j.Runtime >= j.ReqTime {
				e.OtherStateAtLimit++
			}
			continue
		}
		if !limited || j.NeverRan {
			continue
		}
		early := j.ReqTime - j.Runtime
		switch {
		case early <= 0:
			j.Killed = true
			e.AtLimit++
		case early <= r.LimitTolerance && j.ReqTime > r.ToleranceMinLimit:
			j.Killed = true
			e.NearLimit++
		case early <= r.LimitTolerance:
			e.NearShortLimit++
		case early <= 2*r.LimitTolerance && j.ReqTime > r.ToleranceMinLimit:
			e.NextWindow++
		}
	}
	e.Killed = e.Timeout + e.AtLimit + e.NearLimit
	return e
}

// Lines describes the rules and the jobs they touched, one line each,
// naming the settings as the commands' flags do.
func (e Endings) Lines(r Rules) []string {
	sec := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	killed := fmt.Sprintf("killed at their limit (censored): %d of %d jobs:", e.Killed, e.Jobs)
	if e.WithState > 0 {
		killed += fmt.Sprintf(" of %d with a state, %d in state TIMEOUT (--killed-by %s; %d in another state reach their limit, not counted)",
			e.WithState, e.Timeout, r.KilledBy, e.OtherStateAtLimit)
		if e.WithState == e.Jobs {
			return []string{killed, never(e, r)}
		}
		killed += fmt.Sprintf("; of the %d without,", e.Jobs-e.WithState)
	} else if r.KilledBy == KilledByRuntime {
		killed += " (--killed-by runtime)"
	}
	killed += fmt.Sprintf(" %d with T_run >= T_lim, %d more ending at most %s s before a limit above %s s (--limit-tolerance %s --tolerance-min-limit %s; %d end %s to %s s before such a limit, %d within %s s of a shorter one)",
		e.AtLimit, e.NearLimit, sec(r.LimitTolerance), sec(r.ToleranceMinLimit), sec(r.LimitTolerance), sec(r.ToleranceMinLimit),
		e.NextWindow, sec(r.LimitTolerance), sec(2*r.LimitTolerance), e.NearShortLimit, sec(r.LimitTolerance))
	return []string{killed, never(e, r)}
}

func never(e Endings, r Rules) string {
	s := fmt.Sprintf("never ran (T_run = 0): %d jobs, ", e.NeverRan)
	if r.NeverRan == NeverRanExclude {
		return s + "left out of runtime, K_wall and wait (--never-ran exclude)"
	}
	return s + "kept, with K_wall 0 and their time to cancellation as a wait (--never-ran keep)"
}

// Meta returns the settings and counts as provenance keys ("rules.*").
func (e Endings) Meta(r Rules) map[string]string {
	sec := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return map[string]string{
		"rules.killed_by": r.KilledBy, "rules.limit_tolerance": sec(r.LimitTolerance),
		"rules.tolerance_min_limit": sec(r.ToleranceMinLimit), "rules.never_ran": r.NeverRan,
		"rules.jobs": strconv.Itoa(e.Jobs), "rules.with_state": strconv.Itoa(e.WithState), "rules.killed": strconv.Itoa(e.Killed),
		"rules.killed.timeout": strconv.Itoa(e.Timeout), "rules.killed.at_limit": strconv.Itoa(e.AtLimit),
		"rules.killed.near_limit": strconv.Itoa(e.NearLimit), "rules.other_state_at_limit": strconv.Itoa(e.OtherStateAtLimit),
		"rules.near_short_limit": strconv.Itoa(e.NearShortLimit), "rules.next_window": strconv.Itoa(e.NextWindow),
		"rules.never_ran.jobs": strconv.Itoa(e.NeverRan),
	}
}

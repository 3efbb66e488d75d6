package workload

import (
	"fmt"
	"strings"
)

// Rule names, in the order the rules apply. A job dropped by one rule is
// not seen by the later ones, so each dropped job is counted once.
const (
	// RuleOutsideJobIDs applies Clean.JobIDs: it drops the records whose
	// job number lies outside the selected range. It comes first, so the
	// other rules count within the selection only.
	RuleOutsideJobIDs = "outside-job-ids"
	// RuleMissingSubmit drops jobs with a negative (unknown) submit time;
	// there is no setting, since such a job cannot be placed in time.
	RuleMissingSubmit = "missing-submit"
	// RuleHugeTime applies Clean.HugeTime: a submit time, runtime or
	// requested walltime beyond sim.MaxTime (about 1,089 years), far past
	// any real log, which the engine refuses since its sums could overflow.
	RuleHugeTime = "huge-time"
	// RuleMissingProcs drops jobs with no positive processor count in the
	// field(s) chosen by Clean.Procs; there is no setting.
	RuleMissingProcs = "missing-procs"
	// RuleProcsFallback counts kept jobs whose processor count came from
	// the second field named by Clean.Procs (e.g. the allocation, for
	// "requested-else-allocated").
	RuleProcsFallback = "procs-fallback"
	// RuleNonPositiveRuntime applies Clean.NonPositiveRuntime.
	RuleNonPositiveRuntime = "nonpositive-runtime"
	// RuleMissingWalltime applies Clean.MissingWalltime.
	RuleMissingWalltime = "missing-walltime"
	// RuleOversize applies Clean.Oversize.
	RuleOversize = "oversize"
	// RuleRuntimeOverWalltime counts kept jobs whose runtime exceeds their
	// requested walltime; they are kept, and the engine kills them at
	// their walltime, as the real scheduler would have.
	RuleRuntimeOverWalltime = "runtime-over-walltime"
	// RuleSubmitOrder counts kept jobs that come before the previous kept
	// job in (submit, ID) order in the file; the workload is sorted, so
	// they move.
	RuleSubmitOrder = "submit-out-of-order"
	// RuleDuplicateID counts kept jobs whose ID (SWF job number) was
	// already used by another kept job; they are kept, but results keyed
	// by job ID would mix them up.
	RuleDuplicateID = "duplicate-id"
)

// Actions a rule takes on the jobs it matches.
const (
	// Dropped jobs are not in the workload.
	Dropped = "dropped"
	// Adjusted jobs are in the workload with a value changed.
	Adjusted = "adjusted"
	// Counted jobs are in the workload unchanged, but worth knowing about.
	Counted = "counted"
)

// Count is the number of jobs one rule touched.
type Count struct {
	// Rule is the rule's name (one of the Rule constants).
	Rule string `json:"rule"`
	// Setting is the value of the rule's setting in force; for the rules
	// without a setting it says what they always do ("drop", "keep",
	// "sort").
	Setting string `json:"setting"`
	// Action is Dropped, Adjusted or Counted.
	Action string `json:"action"`
	// Jobs is the number of jobs the rule touched.
	Jobs int `json:"jobs"`
}

// Report says what cleaning did to a trace.
type Report struct {
	// Records is the number of job records read.
	Records int `json:"records"`
	// Kept is the number of jobs in the workload.
	Kept int `json:"kept"`
	// Counts has one entry per rule, always in the same order (that of the
	// Rule constants), zero counts included, so reports of different
	// traces line up.
	Counts []Count `json:"counts"`
}

// Dropped returns the number of records that a rule dropped; it equals
// Records - Kept.
func (r Report) Dropped() int {
	n := 0
	for _, c := range r.Counts {
		if c.Action == Dropped {
			n += c.Jobs
		}
	}
	return n
}

// Get returns the count of the named rule.
func (r Report) Get(rule string) (Count, bool) {
	for _, c := range r.Counts {
		if c.Rule == rule {
			return c, true
		}
	}
	return Count{}, false
}

// String returns the report as one line per rule, for logs.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d records read, %d jobs kept, %d dropped\n", r.Records, r.Kept, r.Dropped())
	for _, c := range r.Counts {
		fmt.Fprintf(&b, "  %-22s %-25s %-8s %d\n", c.Rule, c.Setting, c.Action, c.Jobs)
	}
	return b.String()
}

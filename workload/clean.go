package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Values of Clean.Procs.
const (
	// ProcsRequestedElseAllocated uses the requested processors (SWF field
	// 8), or the allocated ones (field 5) when the request is unknown.
	ProcsRequestedElseAllocated = "requested-else-allocated"
	// ProcsAllocatedElseRequested uses the allocated processors, or the
	// requested ones when the allocation is unknown.
	ProcsAllocatedElseRequested = "allocated-else-requested"
	// ProcsRequested uses the requested processors only.
	ProcsRequested = "requested"
	// ProcsAllocated uses the allocated processors only.
	ProcsAllocated = "allocated"
)

// Values shared by several settings.
const (
	// Drop removes the job from the workload.
	Drop = "drop"
	// Clamp brings the offending value to the nearest allowed one.
	Clamp = "clamp"
	// Fail makes loading fail on the first such job, naming it.
	Fail = "error"
	// UseRuntime takes the job's actual runtime as its requested walltime.
	UseRuntime = "runtime"
	// AllJobs is the default of Clean.JobIDs: no selection.
	AllJobs = "all"
)

// Setting names, as used by Clean.Set and Clean.Settings and in provenance.
const (
	SettingProcs              = "procs"
	SettingMissingWalltime    = "missing-walltime"
	SettingNonPositiveRuntime = "nonpositive-runtime"
	SettingOversize           = "oversize"
	SettingJobIDs             = "job-ids"
	SettingHugeTime           = "huge-time"
)

// Clean holds the cleaning choices applied when SWF records become engine
// jobs. Every field is a named setting whose allowed values are listed
// below, default first; the empty string means the default. The rules that
// apply and how many jobs each touched are reported in Report.
type Clean struct {
	// Procs says which SWF field gives a job's processor count:
	// "requested-else-allocated" (default), "allocated-else-requested",
	// "requested" or "allocated". The request is what a scheduler saw at
	// submission, so it is the default; the allocation fills in where the
	// log lost the request. A job with no usable count is always dropped
	// (rule "missing-procs").
	Procs string
	// MissingWalltime says what to do with a job whose requested time
	// (field 9) is unknown or not positive: "runtime" (default) uses the
	// job's runtime, i.e. an exact estimate; "drop" removes the job. The
	// engine needs a walltime, and traces such as NASA-iPSC have none.
	MissingWalltime string
	// NonPositiveRuntime says what to do with a job whose run time (field
	// 4) is 0 or unknown: "drop" (default), since the engine needs at least
	// one second and such jobs are mostly cancelled before running, or
	// "clamp" to 1 s.
	NonPositiveRuntime string
	// Oversize says what to do with a job needing more processors than the
	// platform has: "drop" (default), "clamp" to the platform size, or
	// "error".
	Oversize string
	// JobIDs selects a part of the trace by SWF job number (field 1):
	// "all" (default) keeps every record, "FIRST-LAST" keeps the records
	// numbered FIRST to LAST, both included, and drops the others before
	// any other rule sees them (rule "outside-job-ids"). Papers that split
	// a log into parts define the parts this way.
	JobIDs string
	// HugeTime says what to do with a job whose submit time, runtime or
	// requested walltime exceeds sim.MaxTime (about 1,089 years; a
	// corrupted or synthetic record, which the engine refuses): "drop"
	// (default) or "error".
	HugeTime string
}

// DefaultClean returns the default settings, spelled out.
func DefaultClean() Clean {
	return Clean{
		Procs:              ProcsRequestedElseAllocated,
		MissingWalltime:    UseRuntime,
		NonPositiveRuntime: Drop,
		Oversize:           Drop,
		JobIDs:             AllJobs,
		HugeTime:           Drop,
	}
}

type setting struct {
	name    string
	value   *string
	allowed []string // allowed[0] is the default
	// parse, when set, also accepts values outside allowed: it returns
	// the value's canonical spelling, or an error saying what is wrong.
	parse func(string) (string, error)
}

// check returns the canonical spelling of v for setting s, or an error
// naming the setting and what it allows.
func (s setting) check(v string) (string, error) {
	if slices.Contains(s.allowed, v) {
		return v, nil
	}
	if s.parse != nil {
		c, err := s.parse(v)
		if err != nil {
			return "", fmt.Errorf("cleaning setting %s: value %q: %w", s.name, v, err)
		}
		return c, nil
	}
	return "", fmt.Errorf("cleaning setting %s: unknown value %q (allowed: %s)", s.name, v, strings.Join(s.allowed, ", "))
}

// table lists the settings of c, in the order Settings and errors use.
func (c *Clean) table() []setting {
	return []setting{
		{SettingProcs, &c.Procs, []string{ProcsRequestedElseAllocated, ProcsAllocatedElseRequested, ProcsRequested, ProcsAllocated}, nil},
		{SettingMissingWalltime, &c.MissingWalltime, []string{UseRuntime, Drop}, nil},
		{SettingNonPositiveRuntime, &c.NonPositiveRuntime, []string{Drop, Clamp}, nil},
		{SettingOversize, &c.Oversize, []string{Drop, Clamp, Fail}, nil},
		{SettingJobIDs, &c.JobIDs, []string{AllJobs}, parseJobIDs},
		{SettingHugeTime, &c.HugeTime, []string{Drop, Fail}, nil},
	}
}

// parseJobIDs reads "FIRST-LAST" and returns it canonical.
func parseJobIDs(v string) (string, error) {
	first, last, ok := JobIDRange(v)
	if !ok {
		return "", fmt.Errorf(`want "all" or FIRST-LAST, two job numbers with FIRST <= LAST, such as "15-1780"`)
	}
	return fmt.Sprintf("%d-%d", first, last), nil
}

// JobIDRange returns the range of a JobIDs value "FIRST-LAST", and false
// for "all" or a value that is not such a range.
func JobIDRange(v string) (first, last int64, ok bool) {
	a, b, found := strings.Cut(v, "-")
	if !found {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	last, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	if err1 != nil || err2 != nil || first < 0 || first > last {
		return 0, 0, false
	}
	return first, last, true
}

// Resolved returns c with empty settings replaced by their defaults, or an
// error naming the first setting with an unknown value and the values it
// allows.
func (c Clean) Resolved() (Clean, error) {
	for _, s := range c.table() {
		if *s.value == "" {
			*s.value = s.allowed[0]
			continue
		}
		v, err := s.check(*s.value)
		if err != nil {
			return Clean{}, err
		}
		*s.value = v
	}
	return c, nil
}

// Set sets the setting called name (e.g. "oversize") to value, checking
// both, so that command lines and configuration files can set any rule.
func (c *Clean) Set(name, value string) error {
	for _, s := range c.table() {
		if s.name != name {
			continue
		}
		v, err := s.check(value)
		if err != nil {
			return err
		}
		*s.value = v
		return nil
	}
	return fmt.Errorf("unknown cleaning setting %q (known: %s)", name, strings.Join(SettingNames(), ", "))
}

// Settings returns every setting by name with the value in force (defaults
// filled in), for recording in a result's provenance. Unknown values are
// returned as they are; Resolved reports them.
func (c Clean) Settings() map[string]string {
	out := make(map[string]string, 6)
	for _, s := range c.table() {
		v := *s.value
		if v == "" {
			v = s.allowed[0]
		}
		out[s.name] = v
	}
	return out
}

// SettingNames returns the names of the settings, sorted.
func SettingNames() []string {
	var c Clean
	var names []string
	for _, s := range c.table() {
		names = append(names, s.name)
	}
	slices.Sort(names)
	return names
}

// Allowed returns the values the setting called name allows, default
// first, or nil for an unknown name. For job-ids it is "all" only; Set also
// takes a range "FIRST-LAST" there.
func Allowed(name string) []string {
	var c Clean
	for _, s := range c.table() {
		if s.name == name {
			return s.allowed
		}
	}
	return nil
}

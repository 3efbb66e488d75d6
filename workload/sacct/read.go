package sacct

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Report counts what reading a log did, so that nothing is changed or
// dropped silently.
type Report struct {
	// Name is the file name given to Read, or the path.
	Name string
	// Fields is the number of header fields.
	Fields int
	// Lines is the number of lines read, header and blank lines included.
	Lines int
	// Blank is the number of blank lines skipped between records.
	Blank int
	// Records is the number of records converted: allocations, steps and
	// het components.
	Records int
	// Jobs is the number of jobs returned.
	Jobs int
	// Steps is the number of step records folded into their job.
	Steps int
	// HetComponents is the number of het-job component records ("123+1")
	// folded into the job of the first component met.
	HetComponents int
	// DuplicateIDs is the number of allocation records whose ID an
	// earlier allocation record already had (sacct -D prints every run of
	// a requeued job). They are kept as jobs of their own; steps go to the
	// latest.
	DuplicateIDs int
	// Orphans is the number of step records whose job record is not in
	// the log; they are listed in Skipped.
	Orphans int
	// Repairs lists the records with '|' or newlines inside fields.
	Repairs []Repair
	// Skipped lists the records not in the result: malformed ones under
	// Options.SkipMalformed, and orphan steps.
	Skipped []Skip
}

// RepairsByField counts the repaired records per free-text field that
// held '|' or a newline.
func (r Report) RepairsByField() map[string]int {
	m := map[string]int{}
	for _, rp := range r.Repairs {
		for _, f := range rp.Fields {
			m[f]++
		}
	}
	return m
}

// Counts returns the report's counts by name: lines, blank-lines,
// records, jobs, steps-folded, het-components-folded, duplicate-ids,
// orphan-steps, repaired-records and skipped-records.
func (r Report) Counts() map[string]int64 {
	return map[string]int64{"lines": int64(r.Lines), "blank-lines": int64(r.Blank), "records": int64(r.Records),
		"jobs": int64(r.Jobs), "steps-folded": int64(r.Steps), "het-components-folded": int64(r.HetComponents),
		"duplicate-ids": int64(r.DuplicateIDs), "orphan-steps": int64(r.Orphans), "repaired-records": int64(len(r.Repairs)),
		"skipped-records": int64(len(r.Skipped))}
}

// String summarises the report on one line.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d lines, %d records: %d jobs, %d steps folded, %d het components folded",
		r.Name, r.Lines, r.Records, r.Jobs, r.Steps, r.HetComponents)
	if r.DuplicateIDs > 0 {
		fmt.Fprintf(&b, ", %d duplicate ids", r.DuplicateIDs)
	}
	if len(r.Repairs) > 0 {
		fmt.Fprintf(&b, ", %d records repaired %v", len(r.Repairs), r.RepairsByField())
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, ", %d skipped (%d orphan steps)", len(r.Skipped), r.Orphans)
	}
	return b.String()
}

// Read reads the sacct log in r (plain or gzip-compressed) with the
// default Options and folds steps into jobs; name is used in errors. The
// jobs are in the order of their allocation records.
func Read(r io.Reader, name string) ([]Job, Report, error) { return Options{}.Read(r, name) }

// ReadFile is Read of the file at path.
func ReadFile(path string) ([]Job, Report, error) { return Options{}.ReadFile(path) }

// ReadFile is Read of the file at path with the options o.
func (o Options) ReadFile(path string) ([]Job, Report, error) {
	rd, err := Open(path, o)
	if err != nil {
		return nil, Report{Name: path}, err
	}
	jobs, rep, err := readAll(rd)
	if e := rd.Close(); err == nil && e != nil {
		err = e
	}
	return jobs, rep, err
}

// Read is the package-level Read with the options o.
func (o Options) Read(r io.Reader, name string) ([]Job, Report, error) {
	return readAll(NewReader(r, name, o))
}

// readAll reads every record of rd and folds them.
func readAll(rd *Reader) ([]Job, Report, error) {
	f := folder{latest: map[string]int{}, pending: map[string][]Row{}}
	for {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rep := rd.Report()
			return nil, rep, err
		}
		f.add(row)
	}
	rep := rd.Report()
	jobs := f.finish(&rep)
	return jobs, rep, nil
}

// folder folds steps and het components into their jobs.
type folder struct {
	jobs    []Job
	acc     []stepAcc
	latest  map[string]int   // job ID -> index of its latest allocation
	pending map[string][]Row // steps met before their job's allocation
	steps   int
	het     int
	dups    int
}

// stepAcc gathers what a job's steps contribute.
type stepAcc struct {
	hetSeen             []int64 // component offsets folded so far
	total, user, system float64 // sums of the known step values
	nTotal, nUser, nSys int
	start, end, elapsed int64 // min, max, max of the known step values
	maxRSS, maxVMSize   int64
}

func newAcc() stepAcc {
	return stepAcc{start: Missing, end: Missing, elapsed: Missing, maxRSS: Missing, maxVMSize: Missing}
}

func (f *folder) add(row Row) {
	key := row.ID
	if row.Step != "" {
		if i, ok := f.latest[key]; ok {
			f.step(i, row)
		} else {
			f.pending[key] = append(f.pending[key], row)
		}
		return
	}
	if i, ok := f.latest[key]; ok && row.Het >= 0 && f.jobs[i].HetComponents > 0 && !contains(f.acc[i].hetSeen, row.Het) {
		f.component(i, row)
		return
	} else if ok {
		f.dups++
	}
	job := row.Job
	acc := newAcc()
	if row.Het >= 0 {
		job.HetComponents = 1
		acc.hetSeen = []int64{row.Het}
	}
	f.latest[key] = len(f.jobs)
	f.jobs = append(f.jobs, job)
	f.acc = append(f.acc, acc)
	for _, s := range f.pending[key] {
		f.step(len(f.jobs)-1, s)
	}
	delete(f.pending, key)
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// step folds a step record into job i.
func (f *folder) step(i int, s Row) {
	f.steps++
	j, a := &f.jobs[i], &f.acc[i]
	j.Steps = append(j.Steps, stepName(s))
	sum := func(dst *float64, n *int, v float64) {
		if !math.IsNaN(v) {
			*dst += v
			*n++
		}
	}
	sum(&a.total, &a.nTotal, s.TotalCPU)
	sum(&a.user, &a.nUser, s.UserCPU)
	sum(&a.system, &a.nSys, s.SystemCPU)
	a.start = minKnown(a.start, s.Start)
	a.end = max(a.end, s.End)
	a.elapsed = max(a.elapsed, s.Elapsed)
	a.maxRSS = max(a.maxRSS, s.MaxRSS)
	a.maxVMSize = max(a.maxVMSize, s.MaxVMSize)
}

// component folds the allocation record of a further het-job component
// into job i.
func (f *folder) component(i int, c Row) {
	f.het++
	j, a := &f.jobs[i], &f.acc[i]
	a.hetSeen = append(a.hetSeen, c.Het)
	j.HetComponents++
	for _, p := range []struct{ dst, v *int64 }{
		{&j.AllocCPUS, &c.AllocCPUS}, {&j.NCPUS, &c.NCPUS}, {&j.ReqCPUS, &c.ReqCPUS},
		{&j.AllocNodes, &c.AllocNodes}, {&j.NNodes, &c.NNodes}, {&j.ReqNodes, &c.ReqNodes},
		{&j.CPUTime, &c.CPUTime},
	} {
		*p.dst = sumKnown(*p.dst, *p.v)
	}
	for _, p := range []struct{ dst, v *float64 }{
		{&j.TotalCPU, &c.TotalCPU}, {&j.UserCPU, &c.UserCPU}, {&j.SystemCPU, &c.SystemCPU},
	} {
		switch {
		case math.IsNaN(*p.dst):
			*p.dst = *p.v
		case !math.IsNaN(*p.v):
			*p.dst += *p.v
		}
	}
	j.AllocTRES = sumTRES(j.AllocTRES, c.AllocTRES)
	j.ReqTRES = sumTRES(j.ReqTRES, c.ReqTRES)
	j.Submit = minKnown(j.Submit, c.Submit)
	j.Eligible = minKnown(j.Eligible, c.Eligible)
	j.Start = minKnown(j.Start, c.Start)
	j.End = max(j.End, c.End)
	j.Elapsed = max(j.Elapsed, c.Elapsed)
	j.Timelimit = max(j.Timelimit, c.Timelimit)
	j.MaxRSS = max(j.MaxRSS, c.MaxRSS)
	j.MaxVMSize = max(j.MaxVMSize, c.MaxVMSize)
}

// sumKnown adds two counts, either of which may be Missing.
func sumKnown(a, b int64) int64 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return a + b
}

// minKnown is the smaller of two values, ignoring Missing ones.
func minKnown(a, b int64) int64 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
}

// sumTRES adds b into a copy of a, key by key.
func sumTRES(a, b TRES) TRES {
	if b == nil {
		return a
	}
	out := make(TRES, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

// finish applies what the steps contribute and reports orphan steps.
func (f *folder) finish(rep *Report) []Job {
	for i := range f.jobs {
		j, a := &f.jobs[i], &f.acc[i]
		fill := func(dst *float64, sum float64, n int) {
			if math.IsNaN(*dst) && n > 0 {
				*dst = sum
			}
		}
		fill(&j.TotalCPU, a.total, a.nTotal)
		fill(&j.UserCPU, a.user, a.nUser)
		fill(&j.SystemCPU, a.system, a.nSys)
		if j.Start < 0 {
			j.Start = a.start
		}
		if j.End < 0 {
			j.End = a.end
		}
		if j.Elapsed < 0 {
			j.Elapsed = a.elapsed
		}
		j.MaxRSS = max(j.MaxRSS, a.maxRSS)
		j.MaxVMSize = max(j.MaxVMSize, a.maxVMSize)
	}
	// Orphans in file order, so that the report reads like the log.
	var orphans []Row
	for _, rows := range f.pending {
		orphans = append(orphans, rows...)
	}
	slices.SortFunc(orphans, func(a, b Row) int { return a.Line - b.Line })
	for _, s := range orphans {
		id := s.ID + "." + s.Step
		if s.Het >= 0 {
			id = s.ID + stepName(s)
		}
		rep.Skipped = append(rep.Skipped, Skip{Line: s.Line, ID: id, Reason: "step without its job record"})
	}
	rep.Orphans = len(orphans)
	rep.Jobs = len(f.jobs)
	rep.Steps = f.steps
	rep.HetComponents = f.het
	rep.DuplicateIDs = f.dups
	return f.jobs
}

// stepName is a step's JobID after the job's ID: "batch", or "+1.0" for
// step 0 of het component 1.
func stepName(s Row) string {
	if s.Het >= 0 {
		return fmt.Sprintf("+%d.%s", s.Het, s.Step)
	}
	return s.Step
}

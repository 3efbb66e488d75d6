// Package workload turns SWF traces into engine input (sim.Input), making
// every cleaning choice a named setting (Clean) and counting every job each
// rule dropped, adjusted or merely flagged (Report), so that no job is
// changed silently.
//
// Jobs keep the trace's submit times: they are not shifted to start at 0,
// so a job's submit time can be matched with the trace (and with the
// header's UnixStartTime). The engine jumps to the first submission, so the
// offset costs nothing. The mapping and the rules are described in
// docs/semantics.md.
package workload

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/swf"
)

// Where the platform size of a workload came from (Workload.ProcsSource).
const (
	// ProcsFromArgument: the caller gave the size.
	ProcsFromArgument = "argument"
	// ProcsFromMaxProcs: the header's MaxProcs.
	ProcsFromMaxProcs = "header MaxProcs"
	// ProcsFromMaxNodes: the header's MaxNodes, used when MaxProcs is absent
	// (on machines with one processor per node they are equal).
	ProcsFromMaxNodes = "header MaxNodes"
)

// Workload is a cleaned trace, ready for the engine.
type Workload struct {
	// Path is the trace's file path, or the name given to FromRecords.
	Path string
	// SHA256 is the hex sha256 of the trace's uncompressed bytes (empty for
	// FromRecords), the identity SOURCES.md lists.
	SHA256 string
	// Header is the trace's header (empty for FromRecords).
	Header swf.Header
	// Procs is the platform size the jobs were checked against.
	Procs int64
	// ProcsSource says where Procs came from: one of the ProcsFrom
	// constants.
	ProcsSource string
	// Clean is the settings applied, defaults filled in.
	Clean Clean
	// Jobs is the workload, sorted by sim.Sort, with trace submit times.
	Jobs []sim.Input
	// Memory is each job's memory from the trace, by job index: what a
	// mapping onto nodes reads (workload/nodes); the engine schedules the
	// processors of Jobs only.
	Memory []Memory
	// Requests is, by job index, what a log of nodes (a Slurm accounting
	// log, package workload/sacct) says each job asks of nodes, which a
	// mapping onto nodes reads instead of the processors; nil for SWF.
	Requests []NodeRequest
	// Format is "" for SWF, else the format of the log read ("sacct"), and
	// ReadCounts what reading it did, by name (lines, jobs, steps folded,
	// ...); nil for SWF.
	Format     string
	ReadCounts map[string]int64
	// Report counts what each cleaning rule did.
	Report Report
	// Feedback says which jobs depend on others (sim.Input.After) and why
	// the others do not; empty under FeedbackNone.
	Feedback FeedbackReport
}

// Memory is what a trace says of a job's memory, in kilobytes per
// processor as SWF gives it (fields 10 and 7); -1 where the trace has
// nothing (or 0, which SWF does not distinguish from unknown).
type Memory struct {
	Requested, Used float64
}

// NodeRequest is what a log of nodes says of one job's request: its
// requested and allocated trackable resources, node count, partition
// and constraints.
type NodeRequest struct {
	// Requested and Allocated are the job's ReqTRES and AllocTRES.
	Requested, Allocated Resources
	// Nodes is the log's node count (sacct's NNodes), or -1.
	Nodes int64
	// Partition is the log's partition name; "" when it has none.
	Partition string
	// Constraints is the log's constraint expression ("a&b"); "" for none.
	Constraints string
	// Line is the job's line in the log, for errors.
	Line int
}

// Resources are the amounts of one TRES string that a mapping onto nodes
// reads, each -1 when the string does not give it: cores, nodes, memory in
// bytes and GPUs, all the job's totals. Known is false when the log has no
// such string (or one without a cpu count).
type Resources struct {
	Known                     bool
	CPUs, Nodes, Memory, GPUs int64
}

// ErrNoJobs is wrapped by the error of LoadSWF and FromRecords when no job
// is left to simulate: the input has no job record (an empty file, a header
// alone), or the cleaning dropped every one. A run of no job would end
// "ok" with statistics of nothing.
var ErrNoJobs = errors.New("no job to simulate")

// LoadSWF reads the SWF trace at path (plain or gzip) and cleans it with c.
// procs is the platform's processor count; procs <= 0 takes it from the
// header (MaxProcs, else MaxNodes) and fails, naming the file, when neither
// is there. The trace is streamed: only the kept jobs are held in memory. A
// trace that leaves no job is an error wrapping ErrNoJobs, which says what
// the cleaning dropped.
func LoadSWF(path string, procs int64, c Clean) (*Workload, error) {
	return LoadSWFWith(path, procs, c, Feedback{})
}

// LoadSWFWith is LoadSWF with a feedback setting: under FeedbackSWF or
// FeedbackSessions, jobs depend on others (sim.Input.After, Think) as f
// says, and Workload.Feedback counts what it did.
func LoadSWFWith(path string, procs int64, c Clean, f Feedback) (*Workload, error) {
	c, err := c.Resolved()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f, err = f.Resolved(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := swf.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	h := r.Header()
	procs, source, err := platformSize(path, h, procs)
	if err != nil {
		return nil, err
	}
	cl := newCleaner(path, procs, c)
	cl.fb = f
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := cl.add(rec); err != nil {
			return nil, err
		}
	}
	w, err := cl.finish()
	if err != nil {
		return nil, err
	}
	w.SHA256 = r.SHA256()
	w.Header = h
	w.ProcsSource = source
	return w, nil
}

// FromRecords cleans records with the same rules as LoadSWF; name stands
// for the file in errors and in Workload.Path. There is no header, so procs
// must be positive.
func FromRecords(name string, recs []swf.Record, procs int64, c Clean) (*Workload, error) {
	return FromRecordsWith(name, recs, procs, c, Feedback{})
}

// FromRecordsWith is FromRecords with a feedback setting (LoadSWFWith).
func FromRecordsWith(name string, recs []swf.Record, procs int64, c Clean, f Feedback) (*Workload, error) {
	c, err := c.Resolved()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if f, err = f.Resolved(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if procs <= 0 {
		return nil, fmt.Errorf("%s: platform size %d: give a positive number of processors (records carry no header)", name, procs)
	}
	cl := newCleaner(name, procs, c)
	cl.fb = f
	for i, rec := range recs {
		if rec.Line == 0 {
			rec.Line = -(i + 1) // so errors can still point at the record
		}
		if err := cl.add(rec); err != nil {
			return nil, err
		}
	}
	w, err := cl.finish()
	if err != nil {
		return nil, err
	}
	w.ProcsSource = ProcsFromArgument
	return w, nil
}

// platformSize picks the platform size: the argument when positive, else
// the header's MaxProcs, else its MaxNodes.
func platformSize(path string, h swf.Header, procs int64) (int64, string, error) {
	if procs > 0 {
		return procs, ProcsFromArgument, nil
	}
	if n, ok := h.MaxProcs(); ok && n > 0 {
		return n, ProcsFromMaxProcs, nil
	}
	if n, ok := h.MaxNodes(); ok && n > 0 {
		return n, ProcsFromMaxNodes, nil
	}
	return 0, "", fmt.Errorf("%s: the header gives no positive MaxProcs or MaxNodes; give the platform size explicitly", path)
}

// ruleIndex is the position of each rule in Report.Counts.
const (
	iOutsideJobIDs = iota
	iMissingSubmit
	iHugeTime
	iMissingProcs
	iProcsFallback
	iNonPositiveRuntime
	iMissingWalltime
	iOversize
	iRuntimeOverWalltime
	iSubmitOrder
	iDuplicateID
	numRules
)

// keptJob is a job the rules kept, as the cleaner holds it until finish.
// It holds no pointer, unlike sim.Input (whose Request is a slice): the
// collector does not scan the chunks of a trace being read, and finish
// builds the jobs once, at their final size. Loading CEA-Curie in a fresh
// process touched about half the memory it did when the jobs were
// appended to a slice sized from the header's MaxRecords, then copied.
type keptJob struct {
	id, submit, walltime, runtime, procs int64
	user, group, app, queue, partition   int32
	// pos is the job's position among the kept jobs in file order, which
	// the feedback's records name (traced.kept); it fills what was padding.
	pos             int32
	memReq, memUsed float64
}

// chunkJobs is the jobs of one chunk of kept jobs: 256 KiB.
const chunkJobs = 4 << 10

// cleaner applies the rules to one record at a time.
type cleaner struct {
	name  string
	procs int64
	c     Clean
	// selected says a job-ids range is in force; [first, last] is it.
	selected    bool
	first, last int64
	counts      [numRules]int
	recs        int
	// kept holds the kept jobs in file order, in chunks of chunkJobs, until
	// finish makes the workload's jobs of them.
	kept [][]keptJob

	// (prevSubmit, prevID) is the key of the last kept job, in file order.
	prevSubmit, prevID int64

	// fb is the feedback setting; under any but FeedbackNone, traced
	// holds every record with a submit time, kept or not, in file order.
	fb     Feedback
	traced []traced
	nkept  int32
}

func newCleaner(name string, procs int64, c Clean) *cleaner {
	cl := &cleaner{name: name, procs: procs, c: c}
	cl.first, cl.last, cl.selected = JobIDRange(c.JobIDs)
	return cl
}

// where names a record in errors: "file:line", or "name: record N" for records
// that did not come from a file.
func (cl *cleaner) where(rec *swf.Record) string {
	if rec.Line < 0 {
		return fmt.Sprintf("%s: record %d", cl.name, -rec.Line)
	}
	return fmt.Sprintf("%s:%d", cl.name, rec.Line)
}

// add applies every rule to rec, in the order of the Rule constants, and
// keeps the job unless a rule drops it. Adjustments and flags are tallied
// only for kept jobs, so every count refers to jobs of the workload except
// the drops.
func (cl *cleaner) add(rec swf.Record) error {
	cl.recs++
	tracked := -1
	if cl.fb.Mode != FeedbackNone && cl.fb.Mode != "" && rec.Submit >= 0 {
		tracked = len(cl.traced)
		cl.traced = append(cl.traced, tracedOf(&rec, cl.fb.UnknownWait == WaitZero))
	}
	var touched [numRules]bool
	drop := func(rule int) error { cl.counts[rule]++; return nil }

	if cl.selected && (rec.JobNumber < cl.first || rec.JobNumber > cl.last) {
		return drop(iOutsideJobIDs)
	}
	if rec.Submit < 0 {
		return drop(iMissingSubmit)
	}
	if rec.Submit > sim.MaxTime || rec.RunTime > sim.MaxTime || rec.ReqTime > sim.MaxTime {
		if cl.c.HugeTime == Fail {
			return fmt.Errorf("%s: job %d: submit time %d, run time %d or requested time %d exceeds %d s (about 1,089 years; %s=%s)",
				cl.where(&rec), rec.JobNumber, rec.Submit, rec.RunTime, rec.ReqTime, int64(sim.MaxTime), SettingHugeTime, Fail)
		}
		return drop(iHugeTime)
	}

	procs, fallback := chooseProcs(cl.c.Procs, rec.ReqProcs, rec.AllocProcs)
	if procs <= 0 {
		return drop(iMissingProcs)
	}
	touched[iProcsFallback] = fallback

	runtime := rec.RunTime
	if runtime <= 0 {
		if cl.c.NonPositiveRuntime == Drop {
			return drop(iNonPositiveRuntime)
		}
		runtime = 1
		touched[iNonPositiveRuntime] = true
	}

	walltime := rec.ReqTime
	if walltime <= 0 {
		if cl.c.MissingWalltime == Drop {
			return drop(iMissingWalltime)
		}
		walltime = runtime
		touched[iMissingWalltime] = true
	}

	if procs > cl.procs {
		switch cl.c.Oversize {
		case Drop:
			return drop(iOversize)
		case Fail:
			return fmt.Errorf("%s: job %d needs %d processors, the platform has %d (%s=%s)",
				cl.where(&rec), rec.JobNumber, procs, cl.procs, SettingOversize, Fail)
		}
		procs = cl.procs
		touched[iOversize] = true
	}

	touched[iRuntimeOverWalltime] = runtime > walltime

	job := keptJob{id: rec.JobNumber, submit: rec.Submit, walltime: walltime, runtime: runtime, procs: procs,
		memReq: knownMemory(rec.ReqMemory), memUsed: knownMemory(rec.UsedMemory)}
	attrs := []struct {
		field int
		v     int64
		dst   *int32
	}{
		{12, rec.User, &job.user},
		{13, rec.Group, &job.group},
		{14, rec.App, &job.app},
		{15, rec.Queue, &job.queue},
		{16, rec.Partition, &job.partition},
	}
	for _, a := range attrs {
		v, err := attr(a.v)
		if err != nil {
			return fmt.Errorf("%s: field %d (%s): %w", cl.where(&rec), a.field, swf.FieldName(a.field), err)
		}
		*a.dst = v
	}

	if len(cl.kept) > 0 && (job.submit < cl.prevSubmit || job.submit == cl.prevSubmit && job.id < cl.prevID) {
		touched[iSubmitOrder] = true
	}
	cl.prevSubmit, cl.prevID = job.submit, job.id
	for i, t := range touched {
		if t {
			cl.counts[i]++
		}
	}
	if n := len(cl.kept); n == 0 || len(cl.kept[n-1]) == chunkJobs {
		cl.kept = append(cl.kept, make([]keptJob, 0, chunkJobs))
	}
	job.pos = cl.nkept
	if tracked >= 0 {
		cl.traced[tracked].kept = cl.nkept
	}
	cl.nkept++
	last := &cl.kept[len(cl.kept)-1]
	*last = append(*last, job)
	return nil
}

// knownMemory is an SWF memory field, -1 when it says nothing: negative,
// zero or not a number.
func knownMemory(kb float64) float64 {
	if !(kb > 0) {
		return -1
	}
	return kb
}

// chooseProcs applies Clean.Procs; fallback reports that the second field
// of an "X-else-Y" choice was used.
func chooseProcs(choice string, req, alloc int64) (procs int64, fallback bool) {
	switch choice {
	case ProcsRequested:
		return req, false
	case ProcsAllocated:
		return alloc, false
	case ProcsAllocatedElseRequested:
		if alloc > 0 {
			return alloc, false
		}
		return req, req > 0
	default: // ProcsRequestedElseAllocated, checked by Resolved
		if req > 0 {
			return req, false
		}
		return alloc, alloc > 0
	}
}

// attr converts an SWF attribute to sdk.Job's int32, keeping -1 for
// unknown. Other negative or too large values are errors rather than being
// wrapped around or mapped to "unknown".
func attr(v int64) (int32, error) {
	if v < swf.Missing || v > math.MaxInt32 {
		return 0, fmt.Errorf("must be -1 (unknown) or between 0 and %d, is %d", math.MaxInt32, v)
	}
	return int32(v), nil
}

// finish counts duplicate IDs, sorts the jobs and builds the Workload; a
// workload of no job is an error (ErrNoJobs).
func (cl *cleaner) finish() (*Workload, error) {
	n := 0
	for _, c := range cl.kept {
		n += len(c)
	}
	ids := make([]int64, 0, n)
	for _, c := range cl.kept {
		for i := range c {
			ids = append(ids, c[i].id)
		}
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			cl.counts[iDuplicateID]++
		}
	}
	if cl.counts[iSubmitOrder] > 0 {
		// sim.Sort's order, on the smaller form (stable, so equal pairs keep
		// their file order). A trace in order, where no kept job came
		// before the one kept ahead of it, is not sorted again.
		all := make([]keptJob, 0, n)
		for _, c := range cl.kept {
			all = append(all, c...)
		}
		slices.SortStableFunc(all, func(a, b keptJob) int {
			if c := cmp.Compare(a.submit, b.submit); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
		cl.kept = [][]keptJob{all}
	}
	// One block holds every Request, each capped at its length so that an
	// append by a user cannot overwrite the next job's request.
	jobs := make([]sim.Input, 0, n)
	block := make([]int64, n)
	memory := make([]Memory, n)
	var index []int32 // by file position, the job's index
	if cl.traced != nil {
		index = make([]int32, n)
	}
	for _, c := range cl.kept {
		for i := range c {
			k, x := &c[i], len(jobs)
			if index != nil {
				index[k.pos] = int32(x)
			}
			block[x] = k.procs
			memory[x] = Memory{Requested: k.memReq, Used: k.memUsed}
			jobs = append(jobs, sim.Input{Job: sdk.Job{Index: x, ID: k.id, Submit: k.submit, Walltime: k.walltime,
				Request: sdk.Vector(block[x : x+1 : x+1]),
				User:    k.user, Group: k.group, App: k.app, Queue: k.queue, Partition: k.partition}, Runtime: k.runtime})
		}
	}
	cl.kept = nil

	settings := [numRules]string{
		iOutsideJobIDs:       cl.c.JobIDs,
		iMissingSubmit:       Drop,
		iHugeTime:            cl.c.HugeTime,
		iMissingProcs:        Drop,
		iProcsFallback:       cl.c.Procs,
		iNonPositiveRuntime:  cl.c.NonPositiveRuntime,
		iMissingWalltime:     cl.c.MissingWalltime,
		iOversize:            cl.c.Oversize,
		iRuntimeOverWalltime: "keep",
		iSubmitOrder:         "sort",
		iDuplicateID:         "keep",
	}
	names := [numRules]string{
		iOutsideJobIDs:       RuleOutsideJobIDs,
		iMissingSubmit:       RuleMissingSubmit,
		iHugeTime:            RuleHugeTime,
		iMissingProcs:        RuleMissingProcs,
		iProcsFallback:       RuleProcsFallback,
		iNonPositiveRuntime:  RuleNonPositiveRuntime,
		iMissingWalltime:     RuleMissingWalltime,
		iOversize:            RuleOversize,
		iRuntimeOverWalltime: RuleRuntimeOverWalltime,
		iSubmitOrder:         RuleSubmitOrder,
		iDuplicateID:         RuleDuplicateID,
	}
	rep := Report{Records: cl.recs, Kept: len(jobs), Counts: make([]Count, numRules)}
	for i := range rep.Counts {
		rep.Counts[i] = Count{Rule: names[i], Setting: settings[i], Action: action(i, settings[i]), Jobs: cl.counts[i]}
	}
	if len(jobs) == 0 {
		return nil, noJobs(cl.name, cl.procs, rep)
	}
	w := &Workload{Path: cl.name, Procs: cl.procs, Clean: cl.c, Jobs: jobs, Memory: memory, Report: rep}
	if cl.fb.Mode != FeedbackNone && cl.fb.Mode != "" {
		w.Feedback = applyFeedback(cl.fb, cl.traced, jobs, index)
		cl.traced = nil
	}
	return w, nil
}

// noJobs is the error for a workload of no job: no record, or the rules
// that dropped them, with their counts and settings.
func noJobs(name string, procs int64, rep Report) error {
	if rep.Records == 0 {
		return fmt.Errorf("%s: %w: it has no job record (an empty file, or a header alone)", name, ErrNoJobs)
	}
	var drops []string
	for _, c := range rep.Counts {
		if c.Action == Dropped && c.Jobs > 0 {
			drops = append(drops, fmt.Sprintf("%d by %s=%s", c.Jobs, c.Rule, c.Setting))
		}
	}
	return fmt.Errorf("%s: %w: the cleaning dropped all %d job records (%s; on %d processors); see docs/semantics.md for the settings",
		name, ErrNoJobs, rep.Records, strings.Join(drops, ", "), procs)
}

// action is what rule i does under the given setting value. Under
// oversize=error a loaded workload has no oversize job (loading fails on
// the first), so the rule only counts, and counts zero.
func action(i int, setting string) string {
	switch i {
	case iOutsideJobIDs, iMissingSubmit, iMissingProcs:
		return Dropped
	case iNonPositiveRuntime, iMissingWalltime, iOversize, iHugeTime:
		switch setting {
		case Drop:
			return Dropped
		case Fail:
			return Counted
		}
		return Adjusted
	}
	return Counted
}

package sacct

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/schedlab/schedlab/workload"
)

// Format is the name of the format of a sacct log (workload.Workload.Format).
const Format = "sacct"

// TRES keys a mapping onto nodes reads (see Resources).
const (
	TRESCPU  = "cpu"
	TRESMem  = "mem"
	TRESNode = "node"
	TRESGPU  = "gres/gpu"
)

// Resources returns the amounts of t that a mapping onto nodes reads: cpu,
// node, mem (bytes) and GPUs, gres/gpu or, without it, the sum of the
// typed gres/gpu:TYPE counts. An amount t does not give is -1; Known is
// false when t has no cpu count (an absent or empty TRES field).
func Resources(t TRES) workload.Resources {
	r := workload.Resources{CPUs: -1, Nodes: -1, Memory: -1, GPUs: -1}
	get := func(k string, dst *int64) {
		if v, ok := t[k]; ok {
			*dst = int64(math.Min(math.Round(v), math.MaxInt64/2))
		}
	}
	get(TRESCPU, &r.CPUs)
	get(TRESNode, &r.Nodes)
	get(TRESMem, &r.Memory)
	get(TRESGPU, &r.GPUs)
	if r.GPUs < 0 {
		for k, v := range t {
			if strings.HasPrefix(k, TRESGPU+":") {
				r.GPUs = max(r.GPUs, 0) + int64(math.Round(v))
			}
		}
	}
	r.Known = r.CPUs >= 0
	return r
}

// CheckNodeTRES checks the items of a TRES string that a mapping onto
// nodes reads, strictly: cpu, node and GPU counts (gres/gpu,
// gres/gpu:TYPE) are whole numbers, and mem a number with one of Slurm's
// binary unit suffixes K, M, G, T, P or E ("64G"; a bare 0 is allowed).
// Every item must be key=value. Other items are not checked.
func CheckNodeTRES(s string) error {
	if s == "" {
		return nil
	}
	for it := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(it, "=")
		if !ok || k == "" {
			return fmt.Errorf("%w: TRES item %q in %q, want key=value", ErrValue, it, s)
		}
		switch {
		case k == TRESMem:
			if err := checkMem(v); err != nil {
				return fmt.Errorf("%w: TRES %s=%q: %v", ErrValue, k, v, err)
			}
		case k == TRESCPU || k == TRESNode || k == TRESGPU || strings.HasPrefix(k, TRESGPU+":"):
			if _, ok := digits(v); !ok {
				return fmt.Errorf("%w: TRES %s=%q is not a whole number", ErrValue, k, v)
			}
		}
	}
	return nil
}

// checkMem checks a TRES memory amount: a decimal number and a unit.
func checkMem(v string) error {
	if v == "0" {
		return nil
	}
	i := len(v)
	for i > 0 && (v[i-1] < '0' || v[i-1] > '9') && v[i-1] != '.' {
		i--
	}
	num, unit := v[:i], v[i:]
	switch {
	case !isDecimal(num):
		return fmt.Errorf("not a number and a unit (K, M, G, T)")
	case unit == "":
		return fmt.Errorf("no unit: sacct writes memory with one (K, M, G, T)")
	case len(unit) > 1:
		return fmt.Errorf("unknown memory unit %q (K, M, G, T, P, E)", unit)
	}
	if _, ok := suffixShift(unit[0]); !ok {
		return fmt.Errorf("unknown memory unit %q (K, M, G, T, P, E)", unit)
	}
	return nil
}

// LoadWorkload reads the sacct log at path (strictly, or as opt says),
// converts its jobs to SWF records (ToSWF) and cleans them with c and f,
// like an SWF trace of procs processors (workload.FromRecordsWith); the
// workload's Requests hold, by job index, each job's ReqTRES and
// AllocTRES (Resources), NNodes, Partition and Constraints, for a mapping
// onto nodes. The ReqTRES and AllocTRES of every allocation record are
// checked by CheckNodeTRES. Errors name the file and the line. SHA256 is
// that of the log's uncompressed bytes. With opt.Groups = GroupsAccount
// each job's group is its Slurm account, and with opt.Priority its
// priority the log's Priority, each counted in ReadCounts.
func LoadWorkload(path string, procs int64, c workload.Clean, f workload.Feedback, opt Options) (*workload.Workload, error) {
	rd, err := Open(path, opt)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	fold := folder{latest: map[string]int{}, pending: map[string][]Row{}}
	for {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if row.Step == "" {
			for _, col := range []int{rd.cols.reqTRES, rd.cols.allocTRES} {
				if col < 0 {
					continue
				}
				if err := CheckNodeTRES(row.Raw[col]); err != nil {
					return nil, rd.errAt(row.Line, fmt.Errorf("field %s: %w", rd.hdr.names[col], err))
				}
			}
		}
		fold.add(row)
	}
	rep := rd.Report()
	jobs := fold.finish(&rep)
	var fromAccount, noAccount int64
	switch opt.Groups {
	case "", GroupsGroup:
	case GroupsAccount:
		for i := range jobs {
			jobs[i].Group = jobs[i].Account
			if jobs[i].Account == "" {
				noAccount++
			} else {
				fromAccount++
			}
		}
	default:
		return nil, fmt.Errorf("%s: groups %q: want %q or %q", path, opt.Groups, GroupsGroup, GroupsAccount)
	}
	recs, _ := ToSWF(jobs)
	w, err := workload.FromRecordsWith(path, recs, procs, c, f)
	if err != nil {
		return nil, err
	}
	if w.SHA256, err = workload.SHA256(path); err != nil {
		return nil, err
	}
	w.Format, w.ReadCounts = Format, rep.Counts()
	if opt.Groups == GroupsAccount {
		// Only then, so that the counts of other reads are what they were.
		w.ReadCounts["groups-from-account"], w.ReadCounts["groups-no-account"] = fromAccount, noAccount
	}
	w.Requests = make([]workload.NodeRequest, len(w.Jobs))
	var withPriority, noPriority int64
	for i, in := range w.Jobs {
		j := &jobs[in.Job.ID-1] // ToSWF numbers the jobs from 1 in order
		if opt.Priority {
			if j.Priority == Missing {
				noPriority++
			} else {
				w.Jobs[i].Job.Priority = float64(j.Priority)
				withPriority++
			}
		}
		w.Requests[i] = workload.NodeRequest{Requested: Resources(j.ReqTRES), Allocated: Resources(j.AllocTRES),
			Nodes: j.NNodes, Partition: j.Partition, Constraints: j.Constraints, Line: j.Line}
	}
	if opt.Priority {
		w.ReadCounts["priority-from-log"], w.ReadCounts["priority-missing"] = withPriority, noPriority
	}
	return w, nil
}

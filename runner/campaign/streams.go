package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/pwa"
)

// StreamIDBase is what a stream's job IDs are offset by: the k-th stream
// of a workload of streams (from 1, in name order) gives its job of ID i
// the ID k * StreamIDBase + i, so that jobs of two traces never share an ID
// and each can be traced back.
const StreamIDBase = 1_000_000_000

// streamPart is one stream of a workload of streams: its settings and the
// loaded workload it holds.
type streamPart struct {
	stream manifest.Stream
	entry  *workloadEntry
	home   int32
	// requires is the sdk.Job.Requires of a job of the stream that
	// requires its features (manifest.Stream.Require).
	requires uint64
}

// requireStream is the second word of the source that draws which jobs of
// a stream require its features: a source apart from the stream's payments
// and priorities, so that those stay what they were without requirements.
const requireStream = 0x7e9_0123_f3a7

// StreamReport is what the provenance records of one stream: where its
// jobs came from and how many the window kept.
type StreamReport struct {
	Name     string `json:"name"`
	Workload string `json:"workload"`
	SHA256   string `json:"sha256"`
	Home     string `json:"home"`
	Procs    int64  `json:"procs"`
	// Jobs is the number of jobs of the stream's workload, after its
	// cleaning; Kept the number the window kept.
	Jobs int `json:"jobs"`
	Kept int `json:"kept"`
	// Cut counts the jobs of a stream with a budget that paid less than
	// their drawn payment, Free those that paid nothing.
	Cut  int `json:"budget_cut,omitempty"`
	Free int `json:"budget_free,omitempty"`
	// Short counts the jobs in the window that min_runtime left out.
	Short int `json:"short,omitempty"`
	// Required counts the kept jobs of a stream with require that require
	// its features (drawn with probability require_share).
	Required int `json:"required,omitempty"`
	// Cleaning is the stream's workload's cleaning report.
	Cleaning workload.Report `json:"cleaning"`
}

// planStreams makes the entries of the streams of run r, generating the
// generated ones (their seeds are those of their own workloads, so a
// stream draws the jobs its workload draws alone), and returns them with
// the workload's identity: the sha256 of each stream's name and its
// workload's sha256.
func planStreams(m *manifest.Manifest, r manifest.Run, wls map[string]*workloadEntry, gens []manifest.Generator) ([]streamPart, string, error) {
	pl := m.Platforms[r.Platform]
	h := sha256.New()
	writeLen := func(s string) {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	writeLen("schedlab.streams/1")
	var parts []streamPart
	var firstErr error
	for _, st := range m.Workloads[r.Workload].Streams {
		w := m.Workloads[st.Workload]
		procs := pl.StreamProcs(st)
		if w.Procs > 0 {
			// A workload that says its size keeps it (a generator sizes its
			// jobs by it).
			procs = w.Procs
		}
		key := st.Workload + "/" + strconv.FormatInt(procs, 10)
		if w.Generator != "" {
			key += "/" + strconv.Itoa(r.Replicate)
		}
		e, ok := wls[key]
		if !ok {
			e = &workloadEntry{name: st.Workload, procs: procs}
			wls[key] = e
		}
		sha := w.SHA256
		if w.Generator != "" {
			seeds := manifest.Run{Workload: st.Workload, Replicate: r.Replicate}.Seeds(m)
			e.once.Do(func() {
				e.wl, e.cause = generate(gens, w, procs, seeds.Workload)
				if e.cause != nil {
					e.errKey, e.err = "generator", fmt.Errorf("workload %s: %w", w.Name, e.cause)
				}
			})
			if e.err != nil && firstErr == nil {
				firstErr = e.err
			}
			if e.wl != nil {
				sha = e.wl.SHA256
			}
		}
		writeLen(st.Name)
		writeLen(sha)
		parts = append(parts, streamPart{stream: st, entry: e, home: pl.Home(st), requires: pl.Requires(st)})
	}
	return parts, hex.EncodeToString(h.Sum(nil)), firstErr
}

// loadStreams loads every stream of e and merges them into one workload:
// each stream's window, shifted to start at 0, its jobs given their home,
// transfer time and priority or payment (drawn from seed, one source per
// stream, in the stream's job order), the features a share of a global
// stream's jobs require (from another source per stream), IDs offset (StreamIDBase), all
// sorted by submission.
func (e *workloadEntry) loadStreams(ctx context.Context, m *manifest.Manifest, archive pwa.Cache, seed uint64) {
	var jobs []sim.Input
	for k, part := range e.parts {
		st := part.stream
		wl, err := part.entry.load(ctx, m, archive)
		if err != nil {
			// Reported at the stream, naming its workload's table at fault.
			e.cause = fmt.Errorf("stream %s: workload %s: %s: %w", st.Name, st.Workload, part.entry.errKey, part.entry.cause)
			e.err, e.errKey = fmt.Errorf("workload %s: %w", e.name, e.cause), "streams"
			return
		}
		rng := rand.New(rand.NewPCG(seed, uint64(k)+1))
		var req *rand.Rand
		if part.requires != 0 {
			req = rand.New(rand.NewPCG(seed^requireStream, uint64(k)+1))
		}
		rep := StreamReport{Name: st.Name, Workload: st.Workload, SHA256: wl.SHA256, Home: st.Home, Procs: wl.Procs,
			Jobs: len(wl.Jobs), Cleaning: wl.Report}
		spent := map[[2]int64]float64{}
		var first int64
		if len(wl.Jobs) > 0 {
			first = wl.Jobs[0].Job.Submit
		}
		for _, in := range wl.Jobs {
			off := in.Job.Submit - first
			if off < st.From || (st.To > 0 && off >= st.To) {
				continue
			}
			if in.Runtime < st.MinRuntime {
				rep.Short++
				continue
			}
			if in.Job.ID < 0 || in.Job.ID >= StreamIDBase {
				e.cause = fmt.Errorf("stream %s: job id %d is outside 0..%d, which stream IDs need", st.Name, in.Job.ID, StreamIDBase-1)
				e.err, e.errKey = fmt.Errorf("workload %s: %w", e.name, e.cause), "streams"
				return
			}
			in.Job.Submit = off - st.From
			in.Job.ID += int64(k+1) * StreamIDBase
			in.Job.Home = part.home
			in.Job.Request = append(sdk.Vector(nil), in.Job.Request...)
			lo, hi := st.Priority[0], st.Priority[1]
			if st.Global() {
				lo, hi = st.Payment[0], st.Payment[1]
				in.Job.Transfer = st.Transfer
			}
			draw := lo + rng.Float64()*(hi-lo)
			if st.Global() {
				draw *= float64(in.Job.Request[0]) * float64(in.Job.Walltime)
			}
			if st.Budget > 0 {
				draw = spend(spent, in.Job.User, in.Job.Submit/st.BudgetPeriod, st.Budget, draw, &rep)
			}
			in.Job.Priority = draw
			if req != nil && req.Float64() < st.RequireShare {
				in.Job.Requires = part.requires
				rep.Required++
			}
			jobs = append(jobs, in)
			rep.Kept++
		}
		e.streamReports = append(e.streamReports, rep)
	}
	if len(jobs) == 0 {
		// Each stream's workload has jobs (loading says so otherwise): the
		// windows left none of them.
		var kept []string
		for _, r := range e.streamReports {
			kept = append(kept, fmt.Sprintf("%s %d of %d", r.Name, r.Kept, r.Jobs))
		}
		e.cause = fmt.Errorf("%w: the streams' windows keep no job (%s)", workload.ErrNoJobs, strings.Join(kept, ", "))
		e.err, e.errKey = fmt.Errorf("workload %s: %w", e.name, e.cause), "streams"
		return
	}
	sim.Sort(jobs)
	for i := range jobs {
		jobs[i].Job.Index = i
	}
	c, _ := workload.Clean{}.Resolved()
	e.wl = &workload.Workload{Path: "streams of " + e.name, SHA256: e.sha, Procs: e.procs, ProcsSource: workload.ProcsFromArgument,
		Clean: c, Jobs: jobs, Report: workload.Report{Records: len(jobs), Kept: len(jobs)}}
}

// spend pays a job's payment out of its user's budget for its period:
// what is left of budget after spent[user, period], at most, counting in
// rep the jobs that paid less or nothing.
func spend(spent map[[2]int64]float64, user int32, period int64, budget, payment float64, rep *StreamReport) float64 {
	k := [2]int64{int64(user), period}
	pay := min(payment, max(budget-spent[k], 0))
	spent[k] += pay
	switch {
	case pay == 0 && payment > 0:
		rep.Free++
	case pay < payment:
		rep.Cut++
	}
	return pay
}

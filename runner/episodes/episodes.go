// Package episodes serves the episodes of a learning environment (the
// Gymnasium environment of the schedlab Python package): each episode is a
// run of the engine on a window of a trace's jobs, its decisions asked at
// every scheduling point, by the call protocol of Python policies, from
// the process that drives the environment, and verified and measured as
// any run is.
//
// Between episodes the environment sends a Request frame ('Q', JSON) on
// the connection; the host answers it with the run's frames (Init, State
// at each scheduling point, End) and then a Finished frame ('F', JSON: the
// run's summary, or why it failed). A request that cannot run (no such
// trace, a window outside it) gets its Finished frame at once.
package episodes

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/schedlab/schedlab/experiments/data"
	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
)

// The frame types around the runs.
const (
	MsgRequest  = 'Q' // environment: run an episode (Request, JSON)
	MsgFinished = 'F' // host: the episode is over (Finished, JSON)
)

// Request asks for one episode.
type Request struct {
	// Trace is an SWF file; empty is the KTH-SP2 log schedlab ships.
	Trace string `json:"trace"`
	// Procs is the pool's size; 0 takes the trace's.
	Procs int64 `json:"procs"`
	// First and Count choose the window: jobs First to First+Count-1 of
	// the cleaned trace, in submit order. Count 0 runs to the end.
	First int `json:"first"`
	Count int `json:"count"`
	// Seed is the run's seed; Exact shows actual runtimes as walltimes.
	Seed  uint64 `json:"seed"`
	Exact bool   `json:"exact"`
	// BSLDTau is bounded slowdown's runtime floor in seconds; 0 takes 10.
	BSLDTau int64 `json:"bsld_tau"`
	// Policy, when set, runs the window under that reference policy
	// (fcfs, easy, conservative, in submit order) in this process instead
	// of asking the environment: a baseline for the same jobs.
	Policy string `json:"policy,omitempty"`
}

// Finished ends an episode.
type Finished struct {
	// Error says why the episode did not run or failed; empty when it ran.
	Error string `json:"error,omitempty"`
	// Jobs is the number of jobs in the trace after cleaning, which bounds
	// First and Count.
	Jobs    int              `json:"jobs"`
	Summary *metrics.Summary `json:"summary,omitempty"`
	// Starts and Ends are each window job's, in submit order.
	Starts []int64 `json:"starts,omitempty"`
	Ends   []int64 `json:"ends,omitempty"`
}

// conn reads through a buffer (host.CallsPolicy reads the same one) and
// writes straight to the socket.
type conn struct {
	*bufio.Reader
	io.Writer
}

// Serve serves episodes on rw until it reads an end of file.
func Serve(ctx context.Context, rw io.ReadWriter) error {
	c := conn{bufio.NewReaderSize(rw, 64<<10), rw}
	info := sdk.Info{Name: "environment", Version: "0", ProtocolVersion: 0}
	pol := host.CallsPolicy(info, c)
	traces := map[string]*workload.Workload{}
	for {
		typ, p, err := host.ReadCallsMessage(c)
		if errors.Is(err, io.EOF) || gone(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if typ != MsgRequest {
			return fmt.Errorf("episodes: a frame of type %q where a request was due", typ)
		}
		fin := episode(ctx, pol, traces, p)
		b, err := json.Marshal(fin)
		if err != nil {
			return err
		}
		if err := host.WriteCallsMessage(c, MsgFinished, b); err != nil {
			if gone(err) {
				// The environment closed in an episode: it is done.
				return nil
			}
			return err
		}
	}
}

// episode runs one request, or says why it cannot.
func episode(ctx context.Context, pol host.Policy, traces map[string]*workload.Workload, p []byte) Finished {
	var req Request
	if err := json.Unmarshal(p, &req); err != nil {
		return Finished{Error: fmt.Sprintf("request: %v", err)}
	}
	w, ok := traces[req.Trace]
	if !ok {
		var err error
		if w, err = load(req.Trace); err != nil {
			return Finished{Error: err.Error()}
		}
		traces[req.Trace] = w
	}
	n := len(w.Jobs)
	count := req.Count
	if count == 0 {
		count = n - req.First
	}
	if req.First < 0 || count <= 0 || req.First+count > n {
		return Finished{Jobs: n, Error: fmt.Sprintf("jobs %d to %d: the trace has %d jobs", req.First, req.First+count-1, n)}
	}
	procs := w.Procs
	if req.Procs > 0 {
		procs = req.Procs
	}
	ms := metrics.DefaultSettings()
	if req.BSLDTau > 0 {
		ms.SlowdownTau = req.BSLDTau
	}
	// The window's jobs, numbered from 0 as a run's are (already in
	// order, so sim.Sort only renumbers them).
	jobs := slices.Clone(w.Jobs[req.First : req.First+count])
	sim.Sort(jobs)
	spec := runner.Spec{
		Policy: &runner.Resolved{Ref: "environment"}, Use: pol,
		Platform: sdk.SingleCluster(name(req.Trace), procs), Jobs: jobs,
		Seed: req.Seed, ExactEstimates: req.Exact, Metrics: ms,
	}
	if req.Policy != "" {
		if _, ok := reference.Lookup(req.Policy); !ok {
			return Finished{Jobs: n, Error: fmt.Sprintf("no reference policy %q", req.Policy)}
		}
		spec.Policy, spec.Use, spec.InProcess = &runner.Resolved{Ref: req.Policy, Kind: runner.KindReference}, nil, true
	}
	out, err := runner.Execute(ctx, spec)
	if err != nil {
		return Finished{Jobs: n, Error: err.Error()}
	}
	fin := Finished{Jobs: n, Summary: &out.Summary, Starts: make([]int64, len(jobs)), Ends: make([]int64, len(jobs))}
	for i, r := range out.Records {
		fin.Starts[i], fin.Ends[i] = r.Start, r.End
	}
	return fin
}

func name(trace string) string {
	if trace == "" {
		return data.KTH
	}
	return filepath.Base(trace)
}

// load reads a trace with the default cleaning; "" is the KTH-SP2 log
// schedlab ships.
func load(trace string) (*workload.Workload, error) {
	if trace != "" {
		return workload.LoadSWF(trace, 0, workload.DefaultClean())
	}
	b, err := data.Files.ReadFile(data.KTH)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "schedlab-episodes-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, data.KTH)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, err
	}
	return workload.LoadSWF(path, 0, workload.DefaultClean())
}

// gone reports an error of a connection the environment closed.
func gone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
}

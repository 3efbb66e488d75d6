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
// trace, a window outside it) gets its Finished frame at once. A request
// whose steps this process takes (Request.Agent) gets an observation frame
// at each pick, answered by an action frame, and then its Finished frame.
package episodes

import (
	"bufio"
	"bytes"
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
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/outages"
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
	// Clean are the trace's cleaning settings by name (docs/semantics.md),
	// the others at their defaults.
	Clean map[string]string `json:"clean,omitempty"`
	// First and Count choose the window: jobs First to First+Count-1 of
	// the cleaned trace, in submit order. Count 0 runs to the end.
	First int `json:"first"`
	Count int `json:"count"`
	// Seed is the run's seed; Exact shows actual runtimes as walltimes.
	Seed  uint64 `json:"seed"`
	Exact bool   `json:"exact"`
	// BSLDTau is bounded slowdown's runtime floor in seconds; 0 takes 10.
	BSLDTau int64 `json:"bsld_tau"`
	// Policy, when set, runs the jobs under that policy instead of asking
	// the environment: a reference policy's name (fcfs, easy,
	// conservative; a baseline for the same jobs), or the path of a
	// policy (a Python file, a plugin binary) as a manifest's ref, with
	// Params. Its process serves the requests after, unless Fresh.
	Policy string            `json:"policy,omitempty"`
	Params map[string]string `json:"params,omitempty"`
	Fresh  bool              `json:"fresh,omitempty"`
	// Jobs, when set, are the workload instead of a window of a trace: a
	// policy's test scenario, on a pool of Procs processors, or on
	// Platform. Count and First are then ignored.
	Jobs []Job `json:"jobs,omitempty"`
	// Platform, for a scenario (Jobs), is its platform instead of a pool
	// of Procs processors: one cluster of nodes (sdk.Platform's JSON), on
	// which every job gives its tasks (Job.Tasks).
	Platform *sdk.Platform `json:"platform,omitempty"`
	// Nodes, when set, makes the platform one of nodes, as `schedlab
	// sim`'s node flags do (manifest.NodeSpec, the same names): the whole
	// trace's jobs are mapped onto it, and the window taken from the jobs
	// the mapping keeps. Procs is then ignored.
	Nodes *manifest.NodeSpec `json:"nodes,omitempty"`
	// Outages, on a platform of nodes, gives the episode outages of nodes
	// as `schedlab sim`'s outage flags do (OutageSpec).
	Outages *OutageSpec `json:"outages,omitempty"`
	// Power, on a platform of nodes, gives the episode a power model as
	// `schedlab sim`'s power flags do, by the keys of a manifest's
	// [platforms.NAME.power] table (one model for every node group). The
	// environment's own episodes (no Policy) take no cap: its agent does
	// not keep to one, and a start over it is refused.
	Power *manifest.PowerFlags `json:"power,omitempty"`
	// Agent, when set, takes the episode's steps in this process
	// (AgentSpec): observations and actions cross the connection in
	// place of the call protocol's frames. Policy must be empty.
	Agent *AgentSpec `json:"agent,omitempty"`
}

// powerModel returns the power model spec gives an episode on plat; nil
// for a nil spec.
func powerModel(spec *manifest.PowerFlags, plat *sdk.Platform, agent bool) (*sdk.Power, error) {
	if spec == nil {
		return nil, nil
	}
	if agent && spec.Cap != "" {
		return nil, errors.New("power: a cap needs a policy that keeps to it: the environment's agent does not")
	}
	f := *spec
	f.Names = func(k string) string { return "power." + k }
	m, err := f.Model(plat)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("power: no setting; give idle and full (or busy)")
	}
	return m, nil
}

// OutageSpec is an episode's outages of nodes: the settings of a
// manifest's [platforms.NAME.outages] table but drains, by the same
// names, as text ("20d", "requeue"), and maintenance windows of the whole
// machine as "START,DURATION[,EVERY]" (`schedlab sim`'s flags,
// manifest.OutageFlags). The failure model draws from Seed, or from the
// episode's seed when Seed is 0, so that episodes of different seeds
// see different failures. The environment's own episodes (no Policy)
// take windows under the soft rule only: its agent does not plan around
// them, and under the hard rule a start reaching one is refused.
type OutageSpec struct {
	manifest.OutageFlags
	Seed uint64 `json:"seed,omitempty"`
}

// outages returns the outages and the rule for the jobs they end that
// spec gives an episode of jobs on plat with seed; none for a nil spec.
func (spec *OutageSpec) outages(plat *sdk.Platform, jobs []sim.Input, seed uint64, agent bool) ([]sdk.Outage, sim.Faults, error) {
	if spec == nil {
		return nil, sim.Faults{}, nil
	}
	if !plat.HasNodes() {
		return nil, sim.Faults{}, errors.New("outages: outages are of nodes: give nodes")
	}
	if agent && len(spec.Windows) > 0 && spec.Maintenance != sim.MaintenanceSoft.String() {
		return nil, sim.Faults{}, fmt.Errorf("outages: maintenance windows need maintenance = %q in the environment's episodes: its agent does not plan around them", sim.MaintenanceSoft.String())
	}
	f := spec.OutageFlags
	f.Names = func(k string) string { return "outages." + k }
	s, err := f.Settings(int32(plat.Clusters[0].NodeCount()))
	if err != nil {
		return nil, sim.Faults{}, err
	}
	if spec.Seed != 0 {
		seed = spec.Seed
	}
	outs, _, err := outages.ForJobs(s, plat, jobs, manifest.NewRand(seed))
	if err != nil {
		return nil, sim.Faults{}, fmt.Errorf("outages: %w", err)
	}
	return outs, s.Faults, nil
}

// Job is a job of a scenario (Request.Jobs).
type Job struct {
	ID       int64 `json:"id"`
	Submit   int64 `json:"submit"`
	Runtime  int64 `json:"runtime"`
	Walltime int64 `json:"walltime"`
	Procs    int64 `json:"procs"`
	User     int32 `json:"user"`
	// Tasks is how the job lies on the nodes of Request.Platform (and
	// its request what they hold, sdk.Layout.Request; Procs is ignored).
	Tasks *Tasks `json:"tasks,omitempty"`
}

// Tasks is sdk.Tasks with JSON names: count tasks of cores, memory (bytes)
// and gpus each; exactly nodes nodes when positive; held whole when
// exclusive; partition 0 the default one, k the platform's (k-1)th;
// features a mask over the cluster's sorted feature names.
type Tasks struct {
	Count     int32  `json:"count"`
	Cores     int32  `json:"cores"`
	Memory    int64  `json:"memory"`
	GPUs      int32  `json:"gpus"`
	Nodes     int32  `json:"nodes"`
	Exclusive bool   `json:"exclusive"`
	Partition int32  `json:"partition"`
	Features  uint64 `json:"features"`
}

// Finished ends an episode.
type Finished struct {
	// Error says why the episode did not run or failed; empty when it ran.
	Error string `json:"error,omitempty"`
	// Jobs is the number of jobs in the trace after cleaning, which bounds
	// First and Count.
	Jobs    int              `json:"jobs"`
	Summary *metrics.Summary `json:"summary,omitempty"`
	// IDs, Starts and Ends are each job's, in submit order (then id);
	// Promised its first promised start, -1 without one; Killed whether
	// it reached its walltime.
	IDs      []int64 `json:"ids,omitempty"`
	Starts   []int64 `json:"starts,omitempty"`
	Ends     []int64 `json:"ends,omitempty"`
	Promised []int64 `json:"promised,omitempty"`
	Killed   []bool  `json:"killed,omitempty"`
	// Policy is the description of the policy that ran (Request.Policy).
	Policy *sdk.Info `json:"policy,omitempty"`
	// Nodes says, on a platform of nodes, what each rule of the mapping of
	// the trace's jobs did (the nodes_* columns of runs.parquet), and
	// Mapping its settings.
	Nodes   map[string]int64  `json:"nodes,omitempty"`
	Mapping map[string]string `json:"mapping,omitempty"`
	// Calls is the number of scheduling points of an episode whose steps
	// this process took (Request.Agent).
	Calls int `json:"calls,omitempty"`
	// NodeCount is, on a platform of nodes, its number of nodes, also
	// when the window asked for is not in the trace (the environment asks
	// an impossible window to learn the trace's size and the platform's).
	NodeCount int `json:"node_count,omitempty"`
}

// conn reads through a buffer (host.CallsPolicy reads the same one) and
// writes straight to the socket.
type conn struct {
	*bufio.Reader
	io.Writer
}

// server is what Serve keeps from request to request.
type server struct {
	conn conn
	// info describes the environment's policy: the agent answering the
	// calls over conn, or taking the steps here (Request.Agent).
	info   sdk.Info
	env    host.Policy
	traces map[string]*workload.Workload
	// mapped caches a trace's jobs mapped onto nodes, by trace, cleaning
	// and node settings.
	mapped map[string]mappedJobs
	procs  *runner.Processes
	// policies caches resolved policies by path, size and time of change.
	policies map[string]*runner.Resolved
}

// Serve serves episodes on rw until it reads an end of file.
func Serve(ctx context.Context, rw io.ReadWriter) error {
	c := conn{bufio.NewReaderSize(rw, 64<<10), rw}
	info := sdk.Info{Name: "environment", Version: "0", ProtocolVersion: 0}
	srv := &server{conn: c, info: info, env: host.CallsPolicy(info, c), traces: map[string]*workload.Workload{}, mapped: map[string]mappedJobs{},
		procs: &runner.Processes{}, policies: map[string]*runner.Resolved{}}
	defer srv.procs.Close()
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
		fin := srv.episode(ctx, p)
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
func (srv *server) episode(ctx context.Context, p []byte) Finished {
	var req Request
	// A misspelled key (a node setting, a task's field) is an error that
	// names it, not a setting silently left at its default.
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Finished{Error: fmt.Sprintf("request: %v", err)}
	}
	jobs, n, plat, mj, err := srv.workload(req)
	nodeCount := 0
	if plat != nil && plat.HasNodes() {
		nodeCount = plat.Clusters[0].NodeCount()
	}
	if err != nil {
		return Finished{Jobs: n, Error: err.Error(), NodeCount: nodeCount}
	}
	outs, faults, err := req.Outages.outages(plat, jobs, req.Seed, req.Policy == "")
	if err != nil {
		return Finished{Jobs: n, Error: err.Error()}
	}
	power, err := powerModel(req.Power, plat, req.Policy == "")
	if err != nil {
		return Finished{Jobs: n, Error: err.Error()}
	}
	ms := metrics.DefaultSettings()
	if req.BSLDTau > 0 {
		ms.SlowdownTau = req.BSLDTau
	}
	spec := runner.Spec{
		Policy: &runner.Resolved{Ref: "environment"}, Use: srv.env,
		Platform: plat, Jobs: jobs, Params: req.Params,
		Seed: req.Seed, ExactEstimates: req.Exact, Metrics: ms, Outages: outs, Faults: faults, Power: power,
	}
	var ag *agent
	if req.Agent != nil {
		if req.Policy != "" {
			return Finished{Jobs: n, Error: "agent and policy: an episode is the agent's or a policy's, not both"}
		}
		if err := req.Agent.check(plat); err != nil {
			return Finished{Jobs: n, Error: err.Error()}
		}
		ag = newAgent(srv.conn, *req.Agent)
		spec.Use = host.InProcess(sdk.Plugin{Info: srv.info, New: func() sdk.Policy { return ag }})
	}
	if req.Policy != "" {
		if spec.Policy, err = srv.resolve(ctx, req.Policy); err != nil {
			return Finished{Jobs: n, Error: err.Error()}
		}
		spec.Use = nil
		spec.InProcess = spec.Policy.Kind == runner.KindReference
		if !spec.InProcess && !req.Fresh {
			spec.Processes = srv.procs
		}
		spec.Timeout = runner.DefaultTimeout(len(jobs))
	}
	out, err := runner.Execute(ctx, spec)
	if err != nil {
		return Finished{Jobs: n, Error: err.Error()}
	}
	fin := Finished{Jobs: n, NodeCount: nodeCount, Summary: &out.Summary, IDs: make([]int64, len(jobs)), Starts: make([]int64, len(jobs)),
		Ends: make([]int64, len(jobs)), Promised: make([]int64, len(jobs)), Killed: make([]bool, len(jobs))}
	if req.Policy != "" {
		fin.Policy = &out.Info
	}
	if ag != nil {
		fin.Calls = ag.calls
	}
	if mj != nil {
		fin.Nodes, fin.Mapping = mj.counts, mj.mapping.Map()
	}
	for i, r := range out.Records {
		fin.IDs[i], fin.Starts[i], fin.Ends[i], fin.Killed[i] = jobs[i].Job.ID, r.Start, r.End, r.Killed
		fin.Promised[i] = -1
		if r.HasPromise {
			fin.Promised[i] = r.Promised
		}
	}
	return fin
}

// mappedJobs is a trace's jobs mapped onto a platform of nodes.
type mappedJobs struct {
	plat    *sdk.Platform
	mapping *nodes.Settings
	jobs    []sim.Input
	counts  map[string]int64
}

// workload returns the request's jobs, numbered from 0 as a run's are,
// the number of jobs in its trace (after the mapping onto nodes, when
// there are nodes) and the platform; on nodes also the mapping.
func (srv *server) workload(req Request) ([]sim.Input, int, *sdk.Platform, *mappedJobs, error) {
	if len(req.Jobs) > 0 {
		return scenario(req)
	}
	if req.Platform != nil {
		return nil, 0, nil, nil, errors.New("platform is a scenario's (jobs); a trace's platform of nodes is given by nodes")
	}
	clean := workload.DefaultClean()
	names := make([]string, 0, len(req.Clean))
	for k := range req.Clean {
		names = append(names, k)
	}
	slices.Sort(names)
	key := req.Trace
	for _, k := range names {
		if err := clean.Set(k, req.Clean[k]); err != nil {
			return nil, 0, nil, nil, fmt.Errorf("clean: %w", err)
		}
		key += "\x00" + k + "=" + req.Clean[k]
	}
	w, ok := srv.traces[key]
	if !ok {
		var err error
		if w, err = load(req.Trace, clean); err != nil {
			return nil, 0, nil, nil, err
		}
		srv.traces[key] = w
	}
	all := w.Jobs
	plat := sdk.SingleCluster(name(req.Trace), w.Procs)
	if req.Procs > 0 {
		plat = sdk.SingleCluster(name(req.Trace), req.Procs)
	}
	var mj *mappedJobs
	if req.Nodes != nil {
		spec, _ := json.Marshal(req.Nodes)
		nkey := key + "\x00nodes=" + string(spec)
		m, ok := srv.mapped[nkey]
		if !ok {
			p, mapping, err := req.Nodes.Platform(name(req.Trace), func(k string) string { return "nodes." + k })
			if err != nil {
				return nil, 0, nil, nil, err
			}
			jobs, counts, err := nodes.Apply(p, w, w.Jobs, *mapping)
			if err != nil {
				return nil, 0, nil, nil, err
			}
			m = mappedJobs{plat: p, mapping: mapping, jobs: jobs, counts: counts}
			srv.mapped[nkey] = m
		}
		mj, all, plat = &m, m.jobs, m.plat
	}
	n := len(all)
	count := req.Count
	if count == 0 {
		count = n - req.First
	}
	if req.First < 0 || count <= 0 || req.First+count > n {
		return nil, n, plat, mj, fmt.Errorf("jobs %d to %d: the trace has %d jobs", req.First, req.First+count-1, n)
	}
	// The window's jobs, numbered from 0 as a run's are (already in
	// order, so sim.Sort only renumbers them).
	jobs := slices.Clone(all[req.First : req.First+count])
	sim.Sort(jobs)
	return jobs, n, plat, mj, nil
}

// scenario returns the jobs and platform of a scenario (Request.Jobs): a
// pool of Procs processors, or Request.Platform, a cluster of nodes on
// which every job's tasks must fit when all nodes are free.
func scenario(req Request) ([]sim.Input, int, *sdk.Platform, *mappedJobs, error) {
	if req.Nodes != nil {
		return nil, 0, nil, nil, errors.New("a scenario (jobs) runs on a pool of procs or on its platform, not on nodes (which map a trace)")
	}
	sc := policytest.Scenario{Procs: req.Procs, Platform: req.Platform}
	var layout *sdk.Layout
	switch {
	case req.Platform != nil:
		if err := req.Platform.Validate(); err != nil {
			return nil, 0, nil, nil, err
		}
		if len(req.Platform.Clusters) != 1 || !req.Platform.HasNodes() {
			return nil, 0, nil, nil, fmt.Errorf("platform %q: a scenario's platform is one cluster of nodes (a pool: procs)", req.Platform.Name)
		}
		layout = sdk.NewLayout(req.Platform, 0)
	case req.Procs < 1:
		return nil, 0, nil, nil, errors.New("a scenario's pool needs procs")
	}
	for _, j := range req.Jobs {
		pj := policytest.Job{ID: j.ID, Submit: j.Submit, Runtime: j.Runtime, Walltime: j.Walltime, Procs: j.Procs, User: j.User}
		switch {
		case layout != nil && j.Tasks == nil:
			return nil, 0, nil, nil, fmt.Errorf("job %d: a job on nodes needs tasks", j.ID)
		case layout == nil && j.Tasks != nil:
			return nil, 0, nil, nil, fmt.Errorf("job %d: tasks are for a platform of nodes; this scenario is a pool of procs", j.ID)
		case layout != nil:
			t := sdk.Tasks(*j.Tasks)
			if err := layout.Check(&t); err != nil {
				return nil, 0, nil, nil, fmt.Errorf("job %d: %w", j.ID, err)
			}
			if err := layout.CheckWalltime(&t, j.Walltime); err != nil {
				return nil, 0, nil, nil, fmt.Errorf("job %d: %w", j.ID, err)
			}
			pj.Tasks = &t
		}
		sc.Jobs = append(sc.Jobs, pj)
	}
	jobs := sc.Inputs()
	sim.Sort(jobs)
	plat := req.Platform
	if plat == nil {
		plat = sdk.SingleCluster("scenario", req.Procs)
	}
	return jobs, len(jobs), plat, nil, nil
}

// resolve resolves a policy as a manifest's ref, once per file content:
// a reference policy by name, else a path.
func (srv *server) resolve(ctx context.Context, ref string) (*runner.Resolved, error) {
	if _, ok := reference.Lookup(ref); ok {
		return &runner.Resolved{Ref: ref, Kind: runner.KindReference}, nil
	}
	st, err := os.Stat(ref)
	if err != nil {
		// Not a file: the resolver says what it makes of the name.
		return runner.Resolver{}.Resolve(ctx, ref)
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", ref, st.Size(), st.ModTime().UnixNano())
	if res, ok := srv.policies[key]; ok {
		return res, nil
	}
	res, err := runner.Resolver{}.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	srv.policies[key] = res
	return res, nil
}

func name(trace string) string {
	if trace == "" {
		return data.KTH
	}
	return filepath.Base(trace)
}

// load reads a trace cleaned as c says; "" is the KTH-SP2 log schedlab
// ships.
func load(trace string, c workload.Clean) (*workload.Workload, error) {
	if trace != "" {
		return workload.LoadSWF(trace, 0, c)
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
	return workload.LoadSWF(path, 0, c)
}

// gone reports an error of a connection the environment closed.
func gone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.ErrClosedPipe)
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// Spec is one fully resolved simulation run.
type Spec struct {
	Policy   *Resolved
	Params   map[string]string
	Platform *sdk.Platform
	// Jobs is the workload, sorted with sim.Sort.
	Jobs []sim.Input
	// Outages are the outages of the platform's nodes, sorted by
	// sdk.CompareOutages, and Faults the rules for the jobs they reach
	// (sim.Config); none for a run without.
	Outages []sdk.Outage
	Faults  sim.Faults
	// Power is the power model of the platform's nodes (sim.Config);
	// nil for a run without.
	Power *sdk.Power
	// IO is the run's model of jobs that move data (sim.Config.IO); nil
	// for none. The host recomputes every end under it (verify.IO).
	IO             *sdk.IO
	Seed           uint64
	ExactEstimates bool
	Metrics        metrics.Settings
	// InProcess links a reference policy into this process instead of
	// starting its plugin; records are identical either way.
	InProcess bool
	// Timeout bounds the run; zero means no bound (DefaultTimeout gives
	// the default of campaigns and `schedlab sim`).
	Timeout time.Duration
	// StallTimeout ends a run in a plugin process whose engine shows no
	// progress for that long (host.RunSpec.StallTimeout); zero: never.
	StallTimeout time.Duration
	// StartTimeout bounds the start of a plugin process; zero means
	// host.DefaultStartTimeout.
	StartTimeout time.Duration
	// Use, when set, is the policy the run uses, Policy naming it: one the
	// caller holds, such as a learning environment's (host.CallsPolicy).
	Use host.Policy
	// Processes, when set, lends the run a plugin process that served
	// earlier runs and takes it back afterwards; nil starts a fresh process
	// for the run and ends it after. The records are the same either way.
	Processes *Processes
	// Log, when set, receives what the plugin process writes to its
	// standard output and error during the run.
	Log io.Writer
	// Write, when set, is called with the verified outcome, without its
	// Summary, while the metrics are computed; summary waits for them. Its
	// error fails the run. It lets a caller write the records at the same
	// time as the metrics are computed.
	Write func(out *Outcome, summary func() (metrics.Summary, error)) error
}

// Outcome is a verified run.
type Outcome struct {
	Info    sdk.Info
	Records []sim.Record
	// Units holds the placements on divided resources (sim.Result.Units);
	// nil on a platform without them.
	Units []int32
	// Allocs holds the allocations on nodes (sim.Result.Allocs); nil on a
	// platform without nodes.
	Allocs *sim.Allocs
	// Outages says the run had outages of nodes; Attempts and
	// AttemptAllocs are then the runs of jobs they ended
	// (sim.Result.Attempts and AttemptAllocs).
	Outages       bool
	Attempts      []sim.Attempt
	AttemptAllocs *sim.Allocs
	// Power holds, for a run with a power model, its power events and
	// the energy that the host's verification integrated from them and
	// the records (verify.Power), which is what results report, the same
	// whichever way the policy ran; nil otherwise. PowerSteps is the
	// platform's draw over the run's span, from the same integration
	// (verify.PowerSeries).
	Power      *sim.PowerResult
	PowerSteps []verify.PowerStep
	// Drains lists the nodes the policy drained (sim.Result.Drains),
	// verified; nil when it drained none.
	Drains []sim.PolicyDrain
	// Notes are the policy's notes per job (sim.Result.Notes), checked
	// against the records; nil for a policy that keeps none.
	Notes   *sdk.Notes
	Stats   sim.Stats
	Summary metrics.Summary
	// Transport is "in-process" or "plugin".
	Transport string
	// ProcessRun is the run's number in its plugin process: 1 for a fresh
	// process, more for one reused (Spec.Processes); 0 in process.
	ProcessRun int
	// HostNanos is the wall time of the whole run seen from the host,
	// plugin start and transfer included.
	HostNanos int64
}

// DefaultTimeout is the limit of a run of jobs jobs when the manifest or
// the command line sets none: 10 minutes, and 10 ms more per job, far more
// than any reference policy needs (EASY simulates about a million jobs a
// second; the slowest, plan-based policy of paper 004 takes some 3 ms a
// job), so that only a run that hangs reaches it.
func DefaultTimeout(jobs int) time.Duration {
	return 10*time.Minute + time.Duration(jobs)*10*time.Millisecond
}

// Execute runs spec, verifies the records against the workload and computes
// the metrics. A policy error, a crash, a hang past the timeout and an
// invalid schedule are all errors; nothing unverified is returned.
func Execute(ctx context.Context, spec Spec) (*Outcome, error) {
	begin := time.Now()
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, spec.Timeout, fmt.Errorf("run exceeded its timeout of %v", spec.Timeout))
		defer cancel()
	}
	p, transport, err := start(ctx, spec)
	if err != nil {
		return nil, err
	}
	// release gives the policy back once its answer is verified: to the
	// pool for another run, or, for a fresh process, ends it in the
	// background, so that the host computes the metrics meanwhile; Execute
	// returns once it has ended. A process whose run failed is ended.
	released := false
	var closed chan struct{}
	release := func(ok bool) {
		released = true
		if pp, pooled := p.(*process); pooled {
			pp.runs++
			spec.Processes.put(pp, ok)
			return
		}
		closed = make(chan struct{})
		go func() {
			defer close(closed)
			p.Close()
		}()
	}
	defer func() {
		if !released {
			release(false)
		}
		if closed != nil {
			<-closed
		}
	}()
	processRun := 0
	if pp, pooled := p.(*process); pooled {
		processRun = pp.runs + 1
	} else if transport == "plugin" {
		processRun = 1
	}
	// A plugin streams its records as its engine finalises them: the
	// checker verifies each piece on arrival, while the plugin simulates on.
	check := verify.NewChecker(spec.Platform, spec.Jobs)
	check.Expect(spec.Outages, spec.Faults, spec.ExactEstimates)
	check.ExpectIO(spec.IO)
	res, err := p.Run(ctx, host.RunSpec{
		Platform: spec.Platform, Params: spec.Params, Seed: spec.Seed, ExactEstimates: spec.ExactEstimates,
		Outages: spec.Outages, Faults: spec.Faults, Power: spec.Power, IO: spec.IO,
		Log: spec.Log, StallTimeout: spec.StallTimeout,
	}, spec.Jobs, check.Add)
	if err != nil {
		return nil, err
	}
	info := p.Info()
	check.SetAttempts(res.Attempts, res.AttemptAllocs)
	check.SetDrains(res.Drains)
	if res.Stats.PolicyDrains != int64(len(res.Drains)) {
		return nil, fmt.Errorf("policy %s returned an invalid schedule: its stats count %d drains of nodes, it lists %d", spec.Policy.Ref, res.Stats.PolicyDrains, len(res.Drains))
	}
	if err := check.Finish(res.Units, res.Allocs); err != nil {
		return nil, fmt.Errorf("policy %s returned an invalid schedule: %w", spec.Policy.Ref, err)
	}
	if spec.IO != nil {
		if err := verify.IO(spec.Platform, spec.IO, spec.Jobs, res); err != nil {
			return nil, fmt.Errorf("policy %s returned an invalid schedule: %w", spec.Policy.Ref, err)
		}
	}
	var power *sim.PowerResult
	var steps []verify.PowerStep
	if spec.Power != nil {
		en, st, err := verify.PowerSeries(spec.Platform, spec.Power, spec.Outages, spec.Jobs, res)
		if err != nil {
			return nil, fmt.Errorf("policy %s returned an invalid schedule: %w", spec.Policy.Ref, err)
		}
		power, steps = &sim.PowerResult{Events: res.Power.Events, Energy: en}, st
	}
	if res.Notes != nil {
		jobs := AsSubmitted(spec.Jobs, res.Records)
		if err := sim.CheckNotes(res.Notes, res.Records, func(i int) int64 { return jobs[i].Job.Submit }); err != nil {
			return nil, fmt.Errorf("policy %s returned invalid notes: %w", spec.Policy.Ref, err)
		}
	}
	release(true)
	// The metrics are computed beside the caller's Write, which may need
	// them only at its end (a jobs file's footer).
	var sum metrics.Summary
	var merr error
	computed := make(chan struct{})
	go func() {
		defer close(computed)
		// Waits and slowdowns count from each job's submission in the run:
		// with feedback, a dependent job's simulated one.
		jobs := AsSubmitted(spec.Jobs, res.Records)
		sum, merr = metrics.Compute(spec.Platform, jobs, res.Records, spec.Metrics)
		if merr == nil {
			metrics.AddNodes(&sum, spec.Platform, jobs, res.Records, res.Allocs)
			if len(spec.Outages) > 0 {
				metrics.AddOutages(&sum, spec.Platform, jobs, res, spec.Outages)
			}
			metrics.AddFeedback(&sum, spec.Jobs, jobs, res.Records)
			if power != nil {
				metrics.AddPower(&sum, spec.Platform, spec.Power, jobs, res, power.Energy)
			}
			if spec.IO != nil {
				metrics.AddIO(&sum, spec.Platform, spec.IO, jobs, res.Records)
			}
		}
	}()
	summary := func() (metrics.Summary, error) { <-computed; return sum, merr }
	out := &Outcome{Info: info, Records: res.Records, Units: res.Units, Allocs: res.Allocs, Stats: res.Stats,
		Outages: len(spec.Outages) > 0, Attempts: res.Attempts, AttemptAllocs: res.AttemptAllocs,
		Power: power, PowerSteps: steps, Drains: res.Drains, Notes: res.Notes, Transport: transport, ProcessRun: processRun}
	if spec.Write != nil {
		if err := spec.Write(out, summary); err != nil {
			<-computed
			return nil, err
		}
	}
	if out.Summary, err = summary(); err != nil {
		return nil, err
	}
	if closed != nil {
		<-closed // HostNanos includes the end of a fresh process
	}
	out.HostNanos = time.Since(begin).Nanoseconds()
	return out, nil
}

func start(ctx context.Context, spec Spec) (host.Policy, string, error) {
	pol := spec.Policy
	if pol == nil {
		return nil, "", errors.New("runner: no policy")
	}
	if spec.Use != nil {
		return held{spec.Use}, "held", nil
	}
	if spec.InProcess {
		ref, ok := reference.Lookup(pol.Ref)
		if pol.Kind != KindReference || !ok {
			return nil, "", fmt.Errorf("policy %s: only reference policies run in-process", pol.Ref)
		}
		return host.InProcess(ref), "in-process", nil
	}
	if len(pol.Command) == 0 {
		return nil, "", fmt.Errorf("policy %s: no plugin command (run it in-process)", pol.Ref)
	}
	if spec.StartTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.StartTimeout)
		defer cancel()
	}
	if spec.Processes != nil {
		p, err := spec.Processes.get(ctx, pol.Command)
		if err != nil {
			return nil, "", err
		}
		return p, "plugin", nil
	}
	p, err := startPlugin(ctx, pol.Command)
	if err != nil {
		return nil, "", err
	}
	return p, "plugin", nil
}

// held is a policy the caller holds (Spec.Use): a run does not close it.
type held struct{ host.Policy }

func (held) Close() error { return nil }

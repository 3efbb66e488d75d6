package runner

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
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
	Jobs           []sim.Input
	Seed           uint64
	ExactEstimates bool
	Metrics        metrics.Settings
	// InProcess links a reference policy into this process instead of
	// starting its plugin; records are identical either way.
	InProcess bool
	// Timeout bounds the run; zero means no bound.
	Timeout time.Duration
}

// Outcome is a verified run.
type Outcome struct {
	Info    sdk.Info
	Records []sim.Record
	// Units holds the placements on divided resources (sim.Result.Units);
	// nil on a platform without them.
	Units   []int32
	Stats   sim.Stats
	Summary metrics.Summary
	// Transport is "in-process" or "plugin".
	Transport string
	// HostNanos is the wall time of the whole run seen from the host,
	// plugin start and transfer included.
	HostNanos int64
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
	// closed is nil until the process is being ended in the background;
	// Execute returns only once it has ended.
	var closed chan struct{}
	defer func() {
		if closed == nil {
			p.Close()
			return
		}
		<-closed
	}()
	// A plugin streams its records as its engine finalises them: the
	// checker verifies each piece on arrival, while the plugin simulates on.
	check := verify.NewChecker(spec.Platform, spec.Jobs)
	res, err := p.Run(ctx, host.RunSpec{
		Platform: spec.Platform, Params: spec.Params, Seed: spec.Seed, ExactEstimates: spec.ExactEstimates,
	}, spec.Jobs, check.Add)
	if err != nil {
		return nil, err
	}
	// The policy has answered: end its process while the host finishes
	// the checks and the metrics.
	closed = make(chan struct{})
	go func() {
		defer close(closed)
		p.Close()
	}()
	if err := check.Finish(res.Units); err != nil {
		return nil, fmt.Errorf("policy %s returned an invalid schedule: %w", spec.Policy.Ref, err)
	}
	sum, err := metrics.Compute(spec.Platform, spec.Jobs, res.Records, spec.Metrics)
	if err != nil {
		return nil, err
	}
	<-closed // HostNanos includes the end of the process
	return &Outcome{
		Info: p.Info(), Records: res.Records, Units: res.Units, Stats: res.Stats, Summary: sum,
		Transport: transport, HostNanos: time.Since(begin).Nanoseconds(),
	}, nil
}

func start(ctx context.Context, spec Spec) (host.Policy, string, error) {
	pol := spec.Policy
	if pol == nil {
		return nil, "", errors.New("runner: no policy")
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
	cmd := exec.Command(pol.Command[0], pol.Command[1:]...)
	p, err := host.Start(ctx, cmd)
	if err != nil {
		return nil, "", err
	}
	return p, "plugin", nil
}

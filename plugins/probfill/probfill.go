// Package probfill is probabilistic backfilling after Nissimov & Feitelson
// (2007) with the analytic error probability of Mazalov & Nikitina (2012):
// jobs start in submit order while they fit; when the first waiting job
// (the head) does not, later jobs that fit are started, in submit order,
// only if the probability that doing so delays the head is below a
// threshold tau. There is no reservation: the probability replaces it.
//
// The probability is PErr, whose model needs three numbers, each given as
// a parameter or estimated online from what the policy has observed (never
// from runtimes it may not see):
//
//   - te, the candidate's expected runtime: its walltime as the policy sees
//     it (te = "walltime"; the actual runtime only under exact estimates),
//     or the mean actual runtime of the jobs completed so far (te = "mean";
//     before the first completion, the mean walltime of the jobs seen);
//   - lambda, the rate of job completions: the lambda parameter (per
//     minute) when positive, else R / (mean runtime) for R running jobs,
//     the completion rate of R jobs with exponential (memoryless) runtimes,
//     with the mean runtime estimated as for te = "mean";
//   - mu, the rate of the exponential number of processors a completion
//     frees: the mu parameter when positive, else 1 / (mean processors of
//     the jobs completed so far; before the first completion, of the jobs
//     running or waiting).
//
// The head's shortfall cq is its request minus the free processors, after
// the jobs already started in the same call; each backfilled job adds its
// processors to it and one to R. The paper's derivation starts the freed
// count at S_0 = 0 and compares it with the head's request c_q; read
// literally, cq is the whole request, which the parameter cq = "request"
// selects (for comparison: it ignores the processors already free). tau = 0 is FCFS; tau = 1 starts every job
// that fits (greedy backfilling, no protection of the head).
//
// On a platform of nodes a job fits when the cluster's placement rule
// places it (as for fcfs and easy: nodes out of service, maintenance
// windows ahead and a power cap included), and the model still counts
// processors (cores): completions free cores, a candidate takes the cores
// it holds, and the head's shortfall is what its tasks lack on the nodes
// that could take them (Shortfall): the free cores on nodes none of its
// tasks fits do not count, and a head that fits no node for another reason
// is short of at least one task's cores.
package probfill

import (
	"errors"
	"fmt"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
)

// Plugin returns the probfill policy.
func Plugin() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "probfill",
			Version:     "1.1.0",
			Description: "probabilistic backfilling: backfill a job when the analytic probability that it delays the head is below tau (Mazalov & Nikitina 2012); on pools and on nodes",
			Params: []sdk.Param{
				{Name: "tau", Type: sdk.Float, Default: "0.1", Doc: "backfill when the error probability is below this threshold, in [0, 1]"},
				{Name: "te", Type: sdk.String, Default: "walltime", Choices: []string{"walltime", "mean"}, Doc: "a candidate's expected runtime: its walltime, or the mean observed runtime"},
				{Name: "lambda", Type: sdk.Float, Default: "0", Doc: "completion rate per minute; 0 estimates R / mean runtime online"},
				{Name: "mu", Type: sdk.Float, Default: "0", Doc: "rate of the exponential processors freed per completion; 0 estimates 1 / mean request online"},
				{Name: "cq", Type: sdk.String, Default: "shortfall", Choices: []string{"shortfall", "request"}, Doc: "what the head needs freed: its request minus the free processors, or its whole request (the paper's formula read literally, S_0 = 0)"},
				backfill.WindowsParam(),
			},
		},
		New: func() sdk.Policy { return &policy{} },
	}
}

type policy struct {
	tau, lambda, mu float64 // lambda per second
	teMean          bool
	cqRequest       bool
	// Online estimates from completed jobs.
	completed       int
	sumRun, sumProc float64
	room            *backfill.Room
	out             []sdk.Decision
}

func (p *policy) Init(env sdk.Env) error {
	if len(env.Platform.Clusters) != 1 {
		return errors.New("probfill: the model is of one cluster")
	}
	if env.Platform.HasNodes() {
		// Its room places jobs on the nodes, not pieces on units.
		if err := backfill.Supported("probfill", env.Platform); err != nil {
			return err
		}
	}
	p.room = backfill.NewRoom(env)
	p.tau = env.Params.Float("tau")
	if p.tau < 0 || p.tau > 1 {
		return fmt.Errorf("probfill: tau = %v: want a probability in [0, 1]", p.tau)
	}
	p.lambda = env.Params.Float("lambda") / 60
	p.mu = env.Params.Float("mu")
	if p.lambda < 0 || p.mu < 0 {
		return fmt.Errorf("probfill: lambda = %v and mu = %v must not be negative", env.Params.Float("lambda"), p.mu)
	}
	p.teMean = env.Params.String("te") == "mean"
	p.cqRequest = env.Params.String("cq") == "request"
	return nil
}

func (p *policy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	for _, c := range s.Completed {
		p.completed++
		p.sumRun += float64(c.End - c.Start)
		p.sumProc += float64(c.Job.Request[0])
	}
	p.room.Reset(s)
	q := s.Queue
	var i int
	p.out, i = p.room.StartInOrder(q, p.out)
	if i >= len(q)-1 || p.tau == 0 {
		return p.out, nil // nothing behind the head, or FCFS
	}
	head := q[i]
	running := len(s.Running) + i
	meanRun, mu := p.estimates(s)
	cq := float64(head.Request[0])
	known := p.cqRequest // the shortfall changes with each backfill
	for _, j := range q[i+1:] {
		if !j.Request.Fits(p.room.Free()) {
			continue
		}
		te := float64(j.Walltime)
		if p.teMean {
			te = meanRun
		}
		lambda := p.lambda
		if lambda == 0 {
			lambda = float64(running) / meanRun
		}
		if !known {
			cq, known = float64(Shortfall(head, p.room.Free(), p.room.Nodes())), true
		}
		if PErr(lambda, te, mu, cq, float64(j.Request[0])) >= p.tau {
			continue
		}
		if d, ok := p.room.Start(j); ok {
			known = p.cqRequest
			running++
			p.out = append(p.out, d)
		}
	}
	return p.out, nil
}

// estimates returns the mean runtime and mu: from completed jobs when
// there are some, else from walltimes and requests of the jobs in sight.
func (p *policy) estimates(s *sdk.State) (meanRun, mu float64) {
	if p.completed > 0 {
		meanRun = p.sumRun / float64(p.completed)
		mu = float64(p.completed) / p.sumProc
	} else {
		var n, wall, procs float64
		for _, r := range s.Running {
			n++
			wall += float64(r.Job.Walltime)
			procs += float64(r.Job.Request[0])
		}
		for _, j := range s.Queue {
			n++
			wall += float64(j.Walltime)
			procs += float64(j.Request[0])
		}
		meanRun, mu = wall/n, n/procs
	}
	if p.mu > 0 {
		mu = p.mu
	}
	return meanRun, mu
}

// Shortfall returns the processors (cores) head lacks to start: on a pool,
// its request less what is free (free[0]); on nodes (free nodes, not nil),
// the tasks of head that the nodes of its partition cannot take now, times
// the cores of a task, where a node takes as many as fit it (Nodes.Fit:
// none on a node without its features, or, for an exclusive job, not
// wholly free). A job of a fixed node count lacks at least the nodes
// short of that count that can take one of its tasks, at its cores per
// node. Free cores on nodes that none of its tasks fits do not count. A
// head that does not start although its tasks would find room (its
// placement rule, a maintenance window, a power cap) is short of one task.
func Shortfall(head *sdk.Job, free sdk.Vector, nodes *sdk.Nodes) int64 {
	if nodes == nil {
		return head.Request[0] - free[0]
	}
	t := head.Tasks
	var fit, usable int64
	for _, k := range nodes.Layout.PartitionNodes(t.Partition) {
		if x := nodes.Fit(t, k); x > 0 {
			fit += x
			usable++
		}
	}
	short := max(int64(t.Count)-fit, 0) * int64(t.Cores)
	if t.Nodes > 0 && usable < int64(t.Nodes) {
		short = max(short, (int64(t.Nodes)-usable)*head.Request[0]/int64(t.Nodes))
	}
	return max(short, int64(t.Cores))
}

package sim

import (
	"fmt"

	"github.com/schedlab/schedlab/sdk"
)

// pull loads the next jobs of a streamed workload (stream.Hooks.More).
func (e *engine) pull() error {
	more, err := e.hooks.More()
	if err != nil {
		return fmt.Errorf("sim: receiving jobs: %w", err)
	}
	if len(more) == 0 {
		return fmt.Errorf("sim: the workload ended after %d of its %d jobs", e.loaded, e.n)
	}
	return e.loadJobs(more)
}

// loadJobs checks the next jobs of the workload and copies them, so that a
// policy that writes into the jobs it is shown cannot change what the engine
// enforces.
func (e *engine) loadJobs(jobs []Input) error {
	caps := e.cfg.Platform.Clusters
	if e.loaded+len(jobs) > e.n {
		return fmt.Errorf("sim: more jobs than the %d of the workload", e.n)
	}
	for k := range jobs {
		i := e.loaded
		in := &jobs[k]
		j := in.Job
		if j.Index != i {
			return fmt.Errorf("sim: job %d (id %d) has index %d; call sim.Sort first", i, j.ID, j.Index)
		}
		if i == 0 && e.pow != nil {
			e.pow.from = j.Submit // the first submission: energy counts from it
		}
		if i > 0 {
			prev := &e.jobs[i-1]
			if j.Submit < prev.Submit || (j.Submit == prev.Submit && j.ID < prev.ID) {
				return fmt.Errorf("sim: job %d (id %d) is out of (submit, id) order; call sim.Sort first", i, j.ID)
			}
		}
		if len(j.Request) != e.dims {
			return fmt.Errorf("sim: job id %d requests %d resources, platform has %d", j.ID, len(j.Request), e.dims)
		}
		if j.Walltime < 1 || j.Walltime > MaxTime {
			return fmt.Errorf("sim: job id %d has walltime %d; it must be at least 1 s and at most %d s (sim.MaxTime)", j.ID, j.Walltime, int64(MaxTime))
		}
		if in.Runtime < 1 || in.Runtime > MaxTime {
			return fmt.Errorf("sim: job id %d has runtime %d; it must be at least 1 s and at most %d s (sim.MaxTime)", j.ID, in.Runtime, int64(MaxTime))
		}
		if j.Submit < -MaxTime || j.Submit > MaxTime {
			return fmt.Errorf("sim: job id %d has submit time %d, beyond ±%d s (sim.MaxTime)", j.ID, j.Submit, int64(MaxTime))
		}
		fitsSomewhere := false
		for k, x := range j.Request {
			if x < 0 {
				return fmt.Errorf("sim: job id %d requests %d %s", j.ID, x, e.cfg.Platform.Resources[k])
			}
		}
		for ci := range caps {
			c := &caps[ci]
			for _, u := range c.Units {
				if _, _, err := u.Pieces(j.Request); err != nil {
					return fmt.Errorf("sim: job id %d %s %s on cluster %q", j.ID, err, e.cfg.Platform.Resources[u.Resource], c.Name)
				}
			}
			if fitsCluster(j.Request, c) {
				fitsSomewhere = true
			}
		}
		if !fitsSomewhere {
			return fmt.Errorf("sim: job id %d requests %v, more than any cluster has (or than its units hold); drop or resize it when cleaning the trace", j.ID, []int64(j.Request))
		}
		if j.Home < 0 || int(j.Home) > len(caps) {
			return fmt.Errorf("sim: job id %d has home %d; it must be 0 (none) or 1 + a cluster's index (1 to %d)", j.ID, j.Home, len(caps))
		}
		if home, ok := j.HomeCluster(); ok && !fitsCluster(j.Request, &caps[home]) {
			return fmt.Errorf("sim: job id %d requests %v, more than its home cluster %q has (or than its units hold)", j.ID, []int64(j.Request), caps[home].Name)
		}
		if j.Requires != 0 {
			if err := e.loadRequires(&j); err != nil {
				return err
			}
		}
		if j.Transfer < 0 || j.Transfer > MaxTime {
			return fmt.Errorf("sim: job id %d has transfer time %d; it must be between 0 and %d s (sim.MaxTime)", j.ID, j.Transfer, int64(MaxTime))
		}
		if e.deps != nil {
			if err := e.deps.load(i, in); err != nil {
				return err
			}
		} else if in.After != 0 || in.Think != 0 {
			return fmt.Errorf("sim: job id %d depends on another in a streamed workload that announced no dependencies (sim.Config.Dependencies)", j.ID)
		}
		if e.nodes != nil {
			if err := e.nodes.load(i, &j, j.Request); err != nil {
				return err
			}
		} else if HasTasks(&j) {
			return fmt.Errorf("sim: job id %d has tasks (%+v) on a platform without nodes", j.ID, *j.Tasks)
		} else {
			j.Tasks = nil
		}
		if e.outs != nil {
			e.outs.load(i, in)
		}
		copy(e.req[i*e.dims:], j.Request)
		e.runtime[i] = min(in.Runtime, j.Walltime)
		e.killed[i] = in.Runtime > j.Walltime
		// The policy's copy of the request is a piece of one slab rather
		// than an allocation per job (300,000 on CEA-Curie); its capacity
		// ends with it, so an append by a policy cannot reach the next job's.
		shown := e.shown[i*e.dims : (i+1)*e.dims : (i+1)*e.dims]
		copy(shown, j.Request)
		j.Request = shown
		if e.cfg.ExactEstimates {
			j.Walltime = e.runtime[i]
		}
		e.jobs[i] = j
		e.loaded++
	}
	return nil
}

// loadRequires checks the features job j requires: features of the
// platform's clusters, and for a local job, features of its home.
func (e *engine) loadRequires(j *sdk.Job) error {
	p := e.cfg.Platform
	if n := len(p.ClusterFeatures()); n < 64 && j.Requires>>n != 0 {
		return fmt.Errorf("sim: job id %d requires features %s; the platform's clusters have %d (%v)", j.ID, p.FeatureList(j.Requires), n, p.ClusterFeatures())
	}
	if home, ok := j.HomeCluster(); ok && !p.Serves(home, j) {
		return fmt.Errorf("sim: job id %d requires features %s that its home cluster %q lacks", j.ID, p.FeatureList(j.Requires), p.Clusters[home].Name)
	}
	return nil
}

package sim_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/stream"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// chaos is a randomized but valid policy: at each call it visits the queue
// in random order and, per job, starts it on a random cluster where it fits,
// promises it a random start not in the past, does both, or leaves it; it
// also asks for random wake-ups. It draws all randomness from Env.Rand, so a
// run is a function of its seed. It also checks that the state the engine
// shows is consistent, and fails the run when it is not.
type chaos struct {
	rnd     *rand.Rand
	plat    *sdk.Platform
	exact   bool
	prevNow int64
	called  bool
	out     []sdk.Decision
	free    []sdk.Vector
	used    []sdk.Vector
	seen    []bool // the jobs seen in the queue, by index
}

func (c *chaos) Init(env sdk.Env) error {
	c.rnd, c.plat, c.exact = env.Rand, env.Platform, env.ExactEstimates
	return nil
}

// check returns the first inconsistency of s.
func (c *chaos) check(s *sdk.State) error {
	if c.called && s.Now <= c.prevNow {
		return fmt.Errorf("called at %d after a call at %d", s.Now, c.prevNow)
	}
	if len(s.Queue) == 0 {
		return fmt.Errorf("called at %d with an empty queue", s.Now)
	}
	for k, j := range s.Queue {
		if j.Submit > s.Now {
			return fmt.Errorf("job index %d submitted at %d is queued at %d", j.Index, j.Submit, s.Now)
		}
		// Submit order, ties by index: index order when no job depends on
		// another.
		if p := s.Queue[max(k-1, 0)]; k > 0 && (p.Submit > j.Submit || p.Submit == j.Submit && p.Index >= j.Index) {
			return fmt.Errorf("queue out of (submit, index) order at %d", k)
		}
	}
	// The engine calls the policy at every submission time, so a job not
	// seen before must have been submitted now.
	for _, j := range s.Queue {
		for j.Index >= len(c.seen) {
			c.seen = append(c.seen, false)
		}
		if !c.seen[j.Index] {
			if j.Submit != s.Now {
				return fmt.Errorf("job index %d submitted at %d is first shown at %d", j.Index, j.Submit, s.Now)
			}
			c.seen[j.Index] = true
		}
	}
	c.used = c.used[:0]
	for range s.Platform.Clusters {
		c.used = append(c.used, make(sdk.Vector, s.Platform.Dims()))
	}
	for k, r := range s.Running {
		if r.ExpectedEnd != r.Start+r.Job.Walltime || r.ExpectedEnd <= s.Now || r.Start > s.Now {
			return fmt.Errorf("running job index %d: start %d, expected end %d, walltime %d at %d",
				r.Job.Index, r.Start, r.ExpectedEnd, r.Job.Walltime, s.Now)
		}
		if k > 0 {
			p := s.Running[k-1]
			if p.ExpectedEnd > r.ExpectedEnd || p.ExpectedEnd == r.ExpectedEnd && p.Job.Index >= r.Job.Index {
				return fmt.Errorf("running list out of (expected end, index) order at %d", k)
			}
		}
		c.used[r.Cluster].Add(r.Job.Request)
	}
	for ci, cl := range s.Platform.Clusters {
		for k := range cl.Capacity {
			if s.Free[ci][k] < 0 || s.Free[ci][k]+c.used[ci][k] != cl.Capacity[k] {
				return fmt.Errorf("cluster %d resource %d: free %d + used %d != capacity %d",
					ci, k, s.Free[ci][k], c.used[ci][k], cl.Capacity[k])
			}
		}
	}
	for _, d := range s.Completed {
		if d.End > s.Now || (c.called && d.End <= c.prevNow) || d.End <= d.Start {
			return fmt.Errorf("completion of job index %d [%d,%d) reported at %d (previous call %d)",
				d.Job.Index, d.Start, d.End, s.Now, c.prevNow)
		}
		// With exact estimates a job never ends before its shown walltime;
		// otherwise it ends at or before it.
		if run := d.End - d.Start; run > d.Job.Walltime || (c.exact && run != d.Job.Walltime) {
			return fmt.Errorf("job index %d ran %d s, shown walltime %d (exact %v)", d.Job.Index, run, d.Job.Walltime, c.exact)
		}
	}
	return nil
}

func (c *chaos) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if err := c.check(s); err != nil {
		return nil, err
	}
	c.called, c.prevNow = true, s.Now
	c.out = c.out[:0]
	c.free = c.free[:0]
	for _, f := range s.Free {
		c.free = append(c.free, f.Clone())
	}
	started := false
	tryStart := func(j *sdk.Job) {
		nc := len(c.free)
		c0 := c.rnd.IntN(nc)
		for k := range nc {
			cl := (c0 + k) % nc
			if j.Request.Fits(c.free[cl]) {
				c.free[cl].Sub(j.Request)
				c.out = append(c.out, sdk.StartOn(j, cl))
				started = true
				return
			}
		}
	}
	for _, k := range c.rnd.Perm(len(s.Queue)) {
		j := s.Queue[k]
		switch c.rnd.IntN(5) {
		case 0, 1:
			tryStart(j)
		case 2:
			c.out = append(c.out, sdk.Promise(j, s.Now+c.rnd.Int64N(100)))
		case 3:
			c.out = append(c.out, sdk.Promise(j, s.Now+c.rnd.Int64N(100)))
			tryStart(j)
		}
	}
	// Keep the run alive: with nothing running and nothing started, only a
	// wake-up brings another call.
	if c.rnd.IntN(3) == 0 || (!started && len(s.Running) == 0) {
		c.out = append(c.out, sdk.WakeAt(s.Now+1+c.rnd.Int64N(30)))
	}
	return c.out, nil
}

func chaosPlugin() sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "chaos"}, New: func() sdk.Policy { return &chaos{} }}
}

// randomConfig draws a platform of 1-3 resources and 1-2 clusters and a
// workload of 1-30 jobs, each of which fits at least one cluster. Submit
// times are multiples of 10 from -20 on, so that ties (and negative times,
// which the engine accepts) are common; about half the jobs are killed.
func randomConfig(r *rand.Rand) sim.Config {
	dims := 1 + r.IntN(3)
	p := &sdk.Platform{Name: "rand", Resources: []string{sdk.Processors, "mem", "gpu"}[:dims]}
	for c := range 1 + r.IntN(2) {
		capa := make(sdk.Vector, dims)
		capa[0] = 1 + r.Int64N(16)
		for k := 1; k < dims; k++ {
			capa[k] = r.Int64N(17) // 0 is allowed: only jobs needing none fit
		}
		p.Clusters = append(p.Clusters, sdk.Cluster{Name: fmt.Sprintf("c%d", c), Capacity: capa})
	}
	jobs := make([]sim.Input, 1+r.IntN(30))
	for i := range jobs {
		capa := p.Clusters[r.IntN(len(p.Clusters))].Capacity
		req := make(sdk.Vector, dims)
		req[0] = 1 + r.Int64N(capa[0])
		for k := 1; k < dims; k++ {
			req[k] = r.Int64N(capa[k] + 1)
		}
		jobs[i] = sim.Input{
			Job: sdk.Job{
				ID: r.Int64N(40), Submit: 10*r.Int64N(20) - 20, Walltime: 1 + r.Int64N(50), Request: req,
				User: -1, Group: -1, App: -1, Queue: -1, Partition: -1,
			},
			Runtime: 1 + r.Int64N(60),
		}
	}
	sim.Sort(jobs)
	return sim.Config{Platform: p, Jobs: jobs, Seed: r.Uint64(), ExactEstimates: r.IntN(2) == 0}
}

// TestRandomSchedulesVerify runs 200 random workloads under the chaos policy:
// every run must succeed, pass verify.Records, and give identical records and
// counts when repeated with the same seed.
func TestRandomSchedulesVerify(t *testing.T) {
	r := rand.New(rand.NewPCG(20240601, 7))
	var sawKilled, sawBackfilled, sawPromise, sawCluster1 bool
	for it := range 200 {
		cfg := randomConfig(r)
		res, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		if err := verify.Records(cfg.Platform, cfg.Jobs, res.Records); err != nil {
			t.Fatalf("iteration %d: engine records rejected: %v\nplatform %+v\njobs %+v\nrecords %+v",
				it, err, cfg.Platform, cfg.Jobs, res.Records)
		}
		again, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil {
			t.Fatalf("iteration %d, second run: %v", it, err)
		}
		if !slices.Equal(res.Records, again.Records) {
			t.Fatalf("iteration %d: same seed, different records\n%+v\n%+v", it, res.Records, again.Records)
		}
		a, b := res.Stats, again.Stats
		if a.Events != b.Events || a.PolicyCalls != b.PolicyCalls || a.Decisions != b.Decisions {
			t.Fatalf("iteration %d: same seed, different stats %+v, %+v", it, a, b)
		}
		for _, rec := range res.Records {
			sawKilled = sawKilled || rec.Killed
			sawBackfilled = sawBackfilled || rec.Backfilled
			sawPromise = sawPromise || rec.HasPromise
			sawCluster1 = sawCluster1 || rec.Cluster == 1
		}
	}
	// The generator must exercise what verify checks, or the test proves
	// little.
	if !sawKilled || !sawBackfilled || !sawPromise || !sawCluster1 {
		t.Errorf("coverage: killed %v, backfilled %v, promise %v, second cluster %v",
			sawKilled, sawBackfilled, sawPromise, sawCluster1)
	}
}

// TestSeedChangesChaos guards against a policy stream that ignores the seed
// (which would make the determinism check above vacuous): over a few
// workloads, some pair of runs with different seeds must differ.
func TestSeedChangesChaos(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 1))
	for range 20 {
		cfg := randomConfig(r)
		a, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Seed++
		b, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Records, b.Records) {
			return
		}
	}
	t.Error("20 workloads gave the same records under two seeds")
}

// hooked returns a context that carries h to the engine.
func hooked(h *stream.Hooks[sim.Input, sim.Record]) context.Context {
	return stream.With(context.Background(), h)
}

// TestEmit runs random workloads with stream.Hooks.Emit set, and a random
// EmitAtLeast: the emitted records must be the final records
// (Result.Records), in index order, each job once, at least EmitAtLeast at a
// time but for the last call, never changed after they were emitted, and
// emitting must not change the run. An error from Emit must end the run
// with that error.
func TestEmit(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 4))
	early := false
	for it := range 200 {
		cfg := randomConfig(r)
		plain, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		var kept, copies [][]sim.Record
		h := &stream.Hooks[sim.Input, sim.Record]{EmitAtLeast: r.IntN(4)}
		h.Emit = func(recs []sim.Record) error {
			if len(recs) == 0 {
				return fmt.Errorf("empty emit")
			}
			if len(kept) > 0 && len(copies[len(copies)-1]) < h.EmitAtLeast {
				return fmt.Errorf("a call of %d records, fewer than %d, before the last", len(copies[len(copies)-1]), h.EmitAtLeast)
			}
			kept = append(kept, recs)
			copies = append(copies, slices.Clone(recs))
			return nil
		}
		res, err := sim.Run(hooked(h), chaosPlugin(), cfg)
		if err != nil {
			t.Fatalf("iteration %d with Emit: %v", it, err)
		}
		if !slices.Equal(res.Records, plain.Records) || res.Stats.Events != plain.Stats.Events ||
			res.Stats.PolicyCalls != plain.Stats.PolicyCalls || res.Stats.Decisions != plain.Stats.Decisions {
			t.Fatalf("iteration %d: Emit changed the run", it)
		}
		var got []sim.Record
		for k := range kept {
			if !slices.Equal(kept[k], copies[k]) {
				t.Fatalf("iteration %d: emitted records changed after the call", it)
			}
			got = append(got, kept[k]...)
		}
		if !slices.Equal(got, res.Records) {
			t.Fatalf("iteration %d: emitted\n%+v\nfinal\n%+v", it, got, res.Records)
		}
		early = early || len(kept) > 1
	}
	if !early {
		t.Error("no run emitted records before its end: the test checked nothing about finality")
	}

	cfg := randomConfig(r)
	boom := errors.New("host went away")
	fail := &stream.Hooks[sim.Input, sim.Record]{Emit: func([]sim.Record) error { return boom }}
	if _, err := sim.Run(hooked(fail), chaosPlugin(), cfg); !errors.Is(err, boom) {
		t.Fatalf("Emit's error: run returned %v", err)
	}
}

// TestMore streams random workloads to the engine in random pieces
// (stream.Hooks.More): the run must be the one of the whole workload, the engine
// must not ask for more after the last job nor keep what it took once it asks
// again, and a workload
// that ends early, runs over, or whose source fails must fail the run.
func TestMore(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 3))
	for it := range 200 {
		cfg := randomConfig(r)
		whole, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		all := cfg.Jobs
		first := r.IntN(len(all) + 1)
		rest := all[first:]
		var emitted []sim.Record
		streamed := cfg
		streamed.Jobs = all[:first]
		h := &stream.Hooks[sim.Input, sim.Record]{Total: len(all)}
		var lent []sim.Input
		h.More = func() ([]sim.Input, error) {
			if len(rest) == 0 {
				t.Fatalf("iteration %d: More called after the last job", it)
			}
			// The engine must have copied what it took before: spoil it.
			for k := range lent {
				req := lent[k].Job.Request
				for x := range req {
					req[x] = 1 << 40
				}
				lent[k] = sim.Input{Job: sdk.Job{ID: -99, Submit: -99, Request: req}, Runtime: -99}
			}
			n := 1 + r.IntN(len(rest))
			lent = make([]sim.Input, n)
			copy(lent, rest[:n])
			for k := range lent {
				lent[k].Job.Request = lent[k].Job.Request.Clone()
			}
			rest = rest[n:]
			return lent, nil
		}
		h.Emit = func(recs []sim.Record) error { emitted = append(emitted, recs...); return nil }
		res, err := sim.Run(hooked(h), chaosPlugin(), streamed)
		if err != nil {
			t.Fatalf("iteration %d streamed: %v", it, err)
		}
		if !slices.Equal(res.Records, whole.Records) || !slices.Equal(emitted, whole.Records) ||
			res.Stats.Events != whole.Stats.Events || res.Stats.PolicyCalls != whole.Stats.PolicyCalls {
			t.Fatalf("iteration %d: streamed run differs", it)
		}
	}

	cfg := randomConfig(r)
	for cfg.Jobs = nil; len(cfg.Jobs) < 3; {
		cfg = randomConfig(r)
	}
	all := cfg.Jobs
	boom := errors.New("connection reset")
	served := false
	for _, tc := range []struct {
		name  string
		total int
		more  func() ([]sim.Input, error)
		want  string
	}{
		{"source fails", len(all), func() ([]sim.Input, error) { return nil, boom }, "sim: receiving jobs: connection reset"},
		{"ends early", len(all) + 1, func() ([]sim.Input, error) {
			if served {
				return nil, nil
			}
			served = true
			return all, nil
		}, fmt.Sprintf("sim: the workload ended after %d of its %d jobs", len(all), len(all)+1)},
		{"runs over", len(all) - 1, func() ([]sim.Input, error) { return all, nil }, fmt.Sprintf("more jobs than the %d of the workload", len(all)-1)},
		{"fewer than given", 0, nil, "a streamed workload of 0 jobs, 1 of them given"},
	} {
		c := cfg
		c.Jobs = nil
		h := &stream.Hooks[sim.Input, sim.Record]{Total: tc.total, More: tc.more}
		if tc.more == nil {
			c.Jobs, h.More = all[:1], func() ([]sim.Input, error) { return nil, nil }
		}
		_, err := sim.Run(hooked(h), chaosPlugin(), c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.name == "source fails" && !errors.Is(err, boom) {
			t.Errorf("source fails: %v does not wrap the source's error", err)
		}
	}
}

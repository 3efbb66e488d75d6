package backfill

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// randomOutages draws, for a platform of nodes whose jobs are submitted
// before horizon, failures of every node, a drain and maintenance windows
// (one machine-wide, one of a few nodes).
func randomOutages(p *sdk.Platform, seed uint64, horizon int64) []sdk.Outage {
	r := rand.New(rand.NewPCG(seed, 99))
	n := int32(p.Clusters[0].NodeCount())
	var outs []sdk.Outage
	for k := range n {
		for at := r.Int64N(horizon); at < horizon; at += 1 + r.Int64N(horizon) {
			d := 1 + r.Int64N(horizon/10+1)
			outs = append(outs, sdk.Outage{Nodes: []int32{k}, Start: at, End: at + d, Kind: sdk.Failure})
			at += d
		}
	}
	s := r.Int64N(horizon)
	ends := []int32{0, n - 1}
	if n == 1 {
		ends = ends[:1]
	}
	outs = append(outs,
		sdk.Outage{Nodes: []int32{r.Int32N(n)}, Start: s, End: s + 1 + r.Int64N(horizon/4+1), Kind: sdk.Drain},
		sdk.Outage{Start: horizon / 3, End: horizon/3 + 1 + r.Int64N(horizon/10+1), Kind: sdk.Maintenance},
		sdk.Outage{Nodes: ends, Start: 2 * horizon / 3, End: 2*horizon/3 + 50, Kind: sdk.Maintenance})
	sdk.SortOutages(outs)
	return outs
}

// TestReferencePoliciesUnderOutages runs the reference policies that take
// outages on random node platforms with random failures, drains and
// maintenance windows, under every rule, and checks each schedule with
// the host's verification of outages (every run of every job on nodes in
// service, none started into a window under the hard rule, attempts as
// the outages say) and the policies' own checks. Conservative counting
// totals refuses such runs, saying so; holding nodes, it takes them.
func TestReferencePoliciesUnderOutages(t *testing.T) {
	rules := []sim.Faults{{}, {OnFailure: sim.FailRequeue}, {OnFailure: sim.FailRequeue, LosePlace: true, Maintenance: sim.MaintenanceSoft}}
	interrupted := 0
	for seed := range uint64(25) {
		for _, tc := range []struct {
			p      sdk.Plugin
			params map[string]string
		}{
			{FCFS(), nil},
			{EASY(), nil},
			{EASY(), map[string]string{"reservation": ReservationBatsched}},
			{EASY(), map[string]string{"order": OrderShortest}},
			{Multifactor(), nil},
			{Multifactor(), map[string]string{"SchedulerType": "sched/backfill"}},
			{Conservative(), map[string]string{"reservation": ReservationNodes}},
		} {
			sc := policytest.Random{Nodes: true, Jobs: 120, Params: tc.params}.Scenario(seed)
			in := sc.Inputs()
			horizon := in[len(in)-1].Job.Submit + 1
			outs := randomOutages(sc.Platform, seed, horizon)
			f := rules[int(seed)%len(rules)]
			res, err := host.InProcess(tc.p).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: sc.Params, Seed: sc.Seed, Outages: outs, Faults: f}, in, nil)
			if err != nil {
				t.Fatalf("seed %d, %s %v, %+v: %v", seed, tc.p.Info.Name, tc.params, f, err)
			}
			if err := verify.Outages(sc.Platform, in, outs, f, false, res); err != nil {
				t.Fatalf("seed %d, %s %v, %+v: %v", seed, tc.p.Info.Name, tc.params, f, err)
			}
			interrupted += len(res.Attempts)
		}
	}
	if interrupted == 0 {
		t.Error("no outage reached a job: the test tests too little")
	}
	sc := policytest.Random{Nodes: true, Jobs: 50}.Scenario(1)
	in := sc.Inputs()
	outs := randomOutages(sc.Platform, 1, in[len(in)-1].Job.Submit+1)
	_, err := host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Outages: outs}, in, nil)
	if err == nil || !strings.Contains(err.Error(), errConservativeOutages.Error()) {
		t.Errorf("conservative with outages: %v", err)
	}
}

// TestEASYAroundOutagesHandWorked checks EASY's reservation where nodes
// are out of service, in two cases worked by hand (an independent
// review's).
//
//   - A repair: 2 nodes of 4 cores; A (4 tasks, 1,000 s) on node 0 from 0;
//     node 1 fails from 10 to 50; H (8 tasks) arrives at 20 and fits only
//     once node 1 is back and A has ended: no reservation while node 1 is
//     down, then 1,000 once it is back. C (4 tasks, 5,000 s), at 60, would
//     delay H: it waits for H's end, 1,500.
//   - A drain: 4 nodes of 4 cores; A and B (4 tasks, 100 s) on nodes 0 and
//     1, X and Y (4 tasks, 5 s) on 2 and 3; node 0 drains from 10 to
//     5,000. H (12 tasks, 500 s) arrives at 20: A's end gives nothing back
//     (node 0 drains), so H's shadow is B's end, 100, on nodes 1-3, and no
//     core is spare then. C (4 tasks, 1,000 s) waits for H's end, 600.
func TestEASYAroundOutagesHandWorked(t *testing.T) {
	four := sdk.Tasks{Count: 4, Cores: 1}
	for _, tc := range []struct {
		name   string
		nodes  int
		jobs   []job
		outs   []sdk.Outage
		params map[string]string
		want   map[int64]int64 // start by job id
	}{
		{"repair", 2, []job{
			{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Tasks: &four},
			{ID: 2, Submit: 20, Runtime: 500, Walltime: 500, Tasks: &sdk.Tasks{Count: 8, Cores: 1}},
			{ID: 3, Submit: 60, Runtime: 5000, Walltime: 5000, Tasks: &four},
		}, []sdk.Outage{{Nodes: []int32{1}, Start: 10, End: 50, Kind: sdk.Failure}}, nil, map[int64]int64{1: 0, 2: 1000, 3: 1500}},
		{"drain", 4, []job{
			{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Tasks: &four},
			{ID: 2, Submit: 0, Runtime: 100, Walltime: 100, Tasks: &four},
			{ID: 3, Submit: 0, Runtime: 5, Walltime: 5, Tasks: &four},
			{ID: 4, Submit: 0, Runtime: 5, Walltime: 5, Tasks: &four},
			{ID: 5, Submit: 20, Runtime: 500, Walltime: 500, Tasks: &sdk.Tasks{Count: 12, Cores: 1}},
			{ID: 6, Submit: 20, Runtime: 1000, Walltime: 1000, Tasks: &four},
		}, []sdk.Outage{{Nodes: []int32{0}, Start: 10, End: 5000, Kind: sdk.Drain}}, nil, map[int64]int64{5: 100, 6: 600}},
		{"drain, batsched", 4, nil, nil, map[string]string{"reservation": ReservationBatsched}, map[int64]int64{5: 100, 6: 600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.jobs == nil { // the drain case again, another reading
				tc.jobs = []job{
					{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Tasks: &four},
					{ID: 2, Submit: 0, Runtime: 100, Walltime: 100, Tasks: &four},
					{ID: 3, Submit: 0, Runtime: 5, Walltime: 5, Tasks: &four},
					{ID: 4, Submit: 0, Runtime: 5, Walltime: 5, Tasks: &four},
					{ID: 5, Submit: 20, Runtime: 500, Walltime: 500, Tasks: &sdk.Tasks{Count: 12, Cores: 1}},
					{ID: 6, Submit: 20, Runtime: 1000, Walltime: 1000, Tasks: &four},
				}
				tc.outs = []sdk.Outage{{Nodes: []int32{0}, Start: 10, End: 5000, Kind: sdk.Drain}}
			}
			p := onNodes(tc.nodes, 4, sdk.FirstFit)
			sc := policytest.Scenario{Name: tc.name, Platform: p, Jobs: tc.jobs, Params: tc.params}
			in := sc.Inputs()
			for _, pl := range []sdk.Plugin{EASY(), Multifactor()} {
				if pl.Info.Name == "multifactor" && tc.params != nil {
					continue
				}
				res, err := host.InProcess(pl).Run(context.Background(), host.RunSpec{Platform: p, Params: tc.params, Outages: tc.outs}, in, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := verify.Outages(p, in, tc.outs, sim.Faults{}, false, res); err != nil {
					t.Fatal(err)
				}
				for i, r := range res.Records {
					if want, ok := tc.want[in[i].Job.ID]; ok && r.Start != want {
						t.Errorf("%s: job %d starts at %d, want %d", pl.Info.Name, in[i].Job.ID, r.Start, want)
					}
				}
			}
		})
	}
}

// TestWindowsParameter: one node of 4 cores, a job of 4 tasks and 200 s
// submitted at 0, a window from 100 to 150. With windows = avoid the job
// waits for the window's end and runs from 150; with ignore it starts at
// 0 and, under the soft rule, the window kills it at 100; under the hard
// rule the engine refuses that start.
func TestWindowsParameter(t *testing.T) {
	four := sdk.Tasks{Count: 4, Cores: 1}
	p := onNodes(1, 4, sdk.FirstFit)
	sc := policytest.Scenario{Platform: p, Jobs: []job{{ID: 1, Submit: 0, Runtime: 200, Walltime: 200, Tasks: &four}}}
	in := sc.Inputs()
	outs := []sdk.Outage{{Start: 100, End: 150, Kind: sdk.Maintenance}}
	soft := sim.Faults{Maintenance: sim.MaintenanceSoft}
	for _, pl := range []sdk.Plugin{FCFS(), EASY(), Multifactor()} {
		for _, tc := range []struct {
			windows string
			f       sim.Faults
			want    string
		}{
			{WindowsAvoid, sim.Faults{}, "150-350"},
			{WindowsAvoid, soft, "150-350"},
			{WindowsIgnore, soft, "0-100 maintenance"},
			{WindowsIgnore, sim.Faults{}, "refused"},
		} {
			res, err := host.InProcess(pl).Run(context.Background(), host.RunSpec{Platform: p, Params: map[string]string{"windows": tc.windows}, Outages: outs, Faults: tc.f}, in, nil)
			got := "refused"
			if err == nil {
				r := res.Records[0]
				got = strconv.FormatInt(r.Start, 10) + "-" + strconv.FormatInt(r.End, 10)
				if r.Interrupted != 0 {
					got += " " + r.Interrupted.String()
				}
				if verr := verify.Outages(p, in, outs, tc.f, false, res); verr != nil {
					t.Errorf("%s, windows %s, %+v: %v", pl.Info.Name, tc.windows, tc.f, verr)
				}
			} else if !strings.Contains(err.Error(), "fenced off by maintenance windows") {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("%s, windows %s, %+v: %s, want %s", pl.Info.Name, tc.windows, tc.f, got, tc.want)
			}
		}
	}
}

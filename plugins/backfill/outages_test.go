package backfill

import (
	"context"
	"math/rand/v2"
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
// the outages say) and the policies' own checks. Conservative refuses
// such runs, saying so.
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
			if err := verify.Outages(sc.Platform, in, outs, f, res); err != nil {
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

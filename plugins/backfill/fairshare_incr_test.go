package backfill

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// randomAccounts is a random declared tree of users 0 to users-1, some
// accounts with FairShare=parent, shares from 1 to 3 (so that siblings
// tie), and accounts without users.
func randomAccounts(rng *rand.Rand, users int) string {
	next, acct := 0, 0
	var entries func(depth int) string
	entries = func(depth int) string {
		var out []string
		for n := 1 + rng.IntN(4); n > 0 || len(out) == 0; n-- {
			shares := fmt.Sprint(1 + rng.IntN(3))
			if rng.IntN(6) == 0 {
				shares = "parent"
			}
			if next < users && (depth >= 3 || rng.IntN(2) == 0) {
				out = append(out, fmt.Sprintf("%d:%s", next, shares))
				next++
				continue
			}
			if depth >= 3 {
				break
			}
			acct++
			name := fmt.Sprintf("a%d:%s", acct, shares)
			out = append(out, name+"("+entries(depth+1)+")")
		}
		return strings.Join(out, ", ") // empty: an account without users

	}
	s := entries(0)
	for ; next < users; next++ {
		s += fmt.Sprintf(", %d", next)
	}
	return s
}

// TestIncrementalFairShare compares the incremental calculations with
// calc from scratch, in both algorithms, on random declared trees and on
// automatic trees (own accounts and groups) that grow between
// calculations, under random charges (from a few values, so that usages
// and level fair shares tie) and decays, with the classic factors read
// for a random few users between calculations: every factor read must be
// the one computed from scratch.
func TestIncrementalFairShare(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 36))
		fairTree := seed%2 == 0
		kind := []string{"declared", "users", "groups"}[seed%3]
		var trees [2]*fsTree // from scratch, incremental
		users := 2 + rng.IntN(30)
		accounts := randomAccounts(rng, users)
		damp := float64(1 + rng.IntN(3))
		for i := range trees {
			var tr *fsTree
			switch kind {
			case "declared":
				var err error
				if tr, err = parseAccounts(accounts); err != nil {
					t.Fatalf("%s: %v", accounts, err)
				}
			default:
				tr = newAutoTree()
				if kind == "groups" {
					tr.groups = true
					tr.groupAcct, tr.firstGroup, tr.multiGroup = map[int32]int{}, map[int32]int32{}, map[int32]bool{}
				}
			}
			tr.fairTree, tr.damp, tr.incremental = fairTree, damp, i == 1
			trees[i] = tr
		}
		met := users
		if kind != "declared" {
			met = 0
		}
		for round := range 60 {
			if kind != "declared" && met < users && rng.IntN(2) == 0 {
				// A user met between calculations, in a random group.
				j := &sdk.Job{User: int32(met), Group: int32(rng.IntN(4))}
				for _, tr := range trees {
					tr.meet(j)
				}
				met++
			}
			for range rng.IntN(4) {
				if met == 0 {
					break
				}
				u, x := int32(rng.IntN(met)), float64(1+rng.IntN(3))*100
				for _, tr := range trees {
					tr.charge(tr.users[u], x)
				}
			}
			switch rng.IntN(8) {
			case 0:
				for _, tr := range trees {
					tr.decay(0.5)
				}
			case 1:
				for _, tr := range trees {
					tr.reset()
				}
			}
			if rng.IntN(3) > 0 {
				for _, tr := range trees {
					tr.calc()
				}
			}
			for range rng.IntN(met + 1) {
				u := int32(rng.IntN(met))
				want, got := trees[0].factor(trees[0].users[u]), trees[1].factor(trees[1].users[u])
				if got != want {
					t.Fatalf("seed %d (%s, Fair Tree %v), round %d: user %d: factor %v; from scratch %v", seed, kind, fairTree, round, u, got, want)
				}
			}
		}
	}
}

// TestIncrementalMultifactorChangesNothing runs multifactor with the
// incremental fair share and with every factor computed from scratch at
// every calculation (and every priority computed, the queue sorted, at
// every call), on KTH-SP2 and random workloads, with and without limits,
// under EASY and Slurm's loops, in both algorithms, and compares every
// record.
func TestIncrementalMultifactorChangesNothing(t *testing.T) {
	base := map[string]string{"PriorityWeightFairshare": "10000", "PriorityWeightAge": "1000", "PriorityWeightJobSize": "1000"}
	with := func(kv ...string) map[string]string {
		m := maps.Clone(base)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	type run struct {
		name   string
		plat   *sdk.Platform
		jobs   []sim.Input
		params map[string]string
	}
	w := loadTrace(t, "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	kth := sdk.SingleCluster("kth", w.Procs)
	var runs []run
	for _, flags := range []string{"", flagNoFairTree} {
		runs = append(runs,
			run{"KTH " + flags, kth, w.Jobs, with("PriorityFlags", flags)},
			run{"KTH groups " + flags, kth, w.Jobs, with("PriorityFlags", flags, "AutoAccounts", AccountsGroup, "PriorityDecayHalfLife", "1-0")},
			run{"KTH every call " + flags, kth, w.Jobs, with("PriorityFlags", flags, "PriorityCalcPeriod", "0")},
		)
		for seed := range uint64(20) {
			sc := policytest.Random{Procs: 32, Users: 12, Jobs: 300}.Scenario(seed)
			runs = append(runs, run{fmt.Sprintf("random %s seed %d", flags, seed), sdk.SingleCluster("r", 32), sc.Inputs(),
				with("PriorityFlags", flags, "PriorityCalcPeriod", "1", "PriorityDecayHalfLife", "0:30",
					"Accounts", "A:2(0, 1:2, B:parent(2, 3, 4)), C(5, 6:3, D:2(7, 8), 9), E:parent(10, 11)")})
		}
	}
	// Limits hold jobs out of the queue the order is brought to, and
	// Slurm's loops read it too; on nodes, the billing is what a job's
	// allocation holds.
	for mode := range limitModes {
		for seed := range uint64(6) {
			sc := policytest.Random{Procs: 64, Users: 4, Jobs: 150, Nodes: seed%2 == 1, Params: withMode(mode, limitSet)}.Scenario(seed)
			plat := sc.Platform
			if plat == nil {
				plat = sdk.SingleCluster("r", sc.Procs)
			}
			for _, flags := range []string{"", flagNoFairTree} {
				params := maps.Clone(sc.Params)
				params["PriorityFlags"] = flags
				runs = append(runs, run{fmt.Sprintf("limits %s %s seed %d", mode, flags, seed), plat, sc.Inputs(), params})
			}
		}
	}
	for _, r := range runs {
		scratch := Multifactor()
		scratch.New = func() sdk.Policy { return &multifactor{fromScratch: true} }
		a, err := sim.Run(context.Background(), Multifactor(), sim.Config{Platform: r.plat, Jobs: r.jobs, Params: r.params})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		b, err := sim.Run(context.Background(), scratch, sim.Config{Platform: r.plat, Jobs: r.jobs, Params: r.params})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if !reflect.DeepEqual(a.Records, b.Records) {
			t.Errorf("%s: the incremental fair share changes the schedule", r.name)
		}
	}
}

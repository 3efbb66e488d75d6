package manifest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// gridBase is a grid of clusters a and b, a workload of three streams (a
// window of trace t on a, all of t on b, generator-free global stream of t)
// and a policy.
const gridBase = `[campaign]
seed = 7
[platforms.g.clusters.b]
procs = 8
price_factor = 2
[platforms.g.clusters.a]
procs = 4
[workloads.t]
trace = "a.swf"
sha256 = "` + sha + `"
[workloads.grid.streams.la]
workload = "t"
home = "a"
window = [0, 3600]
priority = [1, 3]
[workloads.grid.streams.lb]
workload = "t"
home = "b"
[workloads.grid.streams.glob]
workload = "t"
payment = [0, 2.5]
transfer = 60
budget = 1000
[policies.p]
ref = "grid-lookahead"
[matrix]
workload = ["grid"]
platform = ["g"]
policy = ["p"]
`

func TestGrid(t *testing.T) {
	m := mustParse(t, gridBase)
	pl := m.Platforms["g"]
	if want := []Cluster{{Name: "a", Procs: 4, PriceFactor: 1}, {Name: "b", Procs: 8, PriceFactor: 2}}; !reflect.DeepEqual(pl.Clusters, want) || pl.Procs != 8 {
		t.Errorf("clusters %+v (procs %d), want %+v (8)", pl.Clusters, pl.Procs, want)
	}
	sp := pl.SDK()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{4}}, {Name: "b", Capacity: sdk.Vector{8}, PriceFactor: 2}}; !reflect.DeepEqual(sp.Clusters, want) {
		t.Errorf("engine clusters %+v, want %+v", sp.Clusters, want)
	}
	want := []Stream{
		{Name: "glob", Workload: "t", Priority: [2]float64{1, 1}, Payment: [2]float64{0, 2.5}, Transfer: 60, Budget: 1000, BudgetPeriod: 86400},
		{Name: "la", Workload: "t", Home: "a", To: 3600, Priority: [2]float64{1, 3}, Payment: [2]float64{1, 1}},
		{Name: "lb", Workload: "t", Home: "b", Priority: [2]float64{1, 1}, Payment: [2]float64{1, 1}},
	}
	if got := m.Workloads["grid"].Streams; !reflect.DeepEqual(got, want) {
		t.Errorf("streams %+v\nwant %+v", got, want)
	}
	for _, s := range want {
		if got, w := pl.StreamProcs(s), map[string]int64{"": 8, "a": 4, "b": 8}[s.Home]; got != w {
			t.Errorf("stream %s loads on %d processors, want %d", s.Name, got, w)
		}
		if got, w := pl.Home(s), map[string]int32{"": 0, "a": 1, "b": 2}[s.Home]; got != w {
			t.Errorf("stream %s: home %d, want %d", s.Name, got, w)
		}
	}

	// The lock reads back to the same specs.
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.WriteLock(&b, m.Dir, Lock{}); err != nil {
		t.Fatal(err)
	}
	m2 := mustParse(t, b.String())
	runs2, err := m2.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(runs2[0].Spec(m2)), string(runs[0].Spec(m)); got != want {
		t.Errorf("the lock's spec\n%s\nwant\n%s\nlock:\n%s", got, want, b.String())
	}
	// Every setting is in the spec: changing one changes the key.
	for _, c := range [][2]string{
		{"window = [0, 3600]", "window = [0, 3601]"}, {"priority = [1, 3]", "priority = [1, 4]"},
		{"payment = [0, 2.5]", "payment = [0, 2]"}, {"transfer = 60", "transfer = 61"},
		{"budget = 1000", "budget = 1001"}, {"budget = 1000", "budget = 1000\nbudget_period = 3600"},
		{"price_factor = 2", "price_factor = 3"}, {"procs = 4", "procs = 5"}, {"home = \"b\"", "home = \"a\""},
		{"transfer = 60", "transfer = 60\nmin_runtime = 1800"},
	} {
		m3 := mustParse(t, strings.Replace(gridBase, c[0], c[1], 1))
		r3, err := m3.Expand()
		if err != nil {
			t.Fatal(err)
		}
		if string(r3[0].Spec(m3)) == string(runs[0].Spec(m)) {
			t.Errorf("%s -> %s leaves the spec as it was", c[0], c[1])
		}
		// And the lock keeps it.
		var lock bytes.Buffer
		if err := m3.WriteLock(&lock, m3.Dir, Lock{}); err != nil {
			t.Fatal(err)
		}
		m4 := mustParse(t, lock.String())
		r4, err := m4.Expand()
		if err != nil {
			t.Fatal(err)
		}
		if string(r4[0].Spec(m4)) != string(r3[0].Spec(m3)) {
			t.Errorf("%s -> %s: the lock's spec differs:\n%s", c[0], c[1], lock.String())
		}
	}
}

func TestGridErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"procs and clusters", "[platforms.g.clusters.a]\n", "[platforms.g]\nprocs = 4\n[platforms.g.clusters.a]\n", "m.toml:7: platforms.g.procs: a platform has procs (one cluster) or clusters, not both"},
		{"zero procs", "procs = 4\n", "procs = 0\n", "m.toml:7: platforms.g.clusters.a.procs: procs (the cluster's processors) must be at least 1, got 0"},
		{"zero price factor", "price_factor = 2", "price_factor = 0", "m.toml:5: platforms.g.clusters.b.price_factor: must be a positive number, got 0"},
		{"unknown cluster key", "price_factor = 2", "price = 2", "m.toml:5: unknown key platforms.g.clusters.b.price (did you mean price_factor?)"},
		{"unknown stream key", "transfer = 60", "transfre = 60", "unknown key workloads.grid.streams.glob.transfre (did you mean transfer?)"},
		{"unknown workload", "workload = \"t\"\nhome = \"a\"", "workload = \"u\"\nhome = \"a\"", "m.toml:12: workloads.grid.streams.la.workload: no workload \"u\" in the manifest"},
		{"unknown home", "home = \"b\"", "home = \"c\"", "m.toml:18: workloads.grid.streams.lb.home: cluster \"c\" is not a cluster of platform g (known: a, b)"},
		{"bad window", "window = [0, 3600]", "window = [3600, 0]", "m.toml:14: workloads.grid.streams.la.window: must be [from, to]"},
		{"payment on a local stream", "priority = [1, 3]", "payment = [1, 3]", "m.toml:15: workloads.grid.streams.la.payment: a local stream's jobs have a priority, not a payment"},
		{"priority on a global stream", "payment = [0, 2.5]", "priority = [0, 2.5]", "m.toml:21: workloads.grid.streams.glob.priority: a global stream's jobs have a payment, not a priority"},
		{"negative payment", "payment = [0, 2.5]", "payment = [-1, 2.5]", "m.toml:21: workloads.grid.streams.glob.payment: must be [low, high], numbers with 0 <= low <= high"},
		{"transfer on a local stream", "home = \"b\"", "home = \"b\"\ntransfer = 5", "m.toml:19: workloads.grid.streams.lb.transfer: a local stream runs at home: it has no transfer time"},
		{"a trace beside streams", "[workloads.grid.streams.la]", "[workloads.grid]\ntrace = \"x.swf\"\n[workloads.grid.streams.la]", "workloads.grid.trace: a workload of streams has no trace of its own"},
		{"streams without clusters", "platform = [\"g\"]\npolicy = [\"p\"]\n", "platform = [\"one\"]\npolicy = [\"p\"]\n[platforms.one]\nprocs = 4\n", "workloads.grid.streams: a workload of streams runs on a platform of clusters"},
		{"a budget on a local stream", "priority = [1, 3]", "priority = [1, 3]\nbudget = 5", "m.toml:16: workloads.grid.streams.la.budget: budgets pay for global jobs"},
		{"a zero budget", "budget = 1000", "budget = 0", "m.toml:23: workloads.grid.streams.glob.budget: must be a positive number, got 0"},
		{"a period without a budget", "budget = 1000", "budget_period = 60", "m.toml:23: workloads.grid.streams.glob.budget_period: a budget period needs a budget"},
		{"a zero min_runtime", "transfer = 60", "transfer = 60\nmin_runtime = 0", "m.toml:23: workloads.grid.streams.glob.min_runtime: must be at least 1 second, got 0"},
		{"no cluster", "[platforms.g.clusters.b]\nprocs = 8\nprice_factor = 2\n[platforms.g.clusters.a]\nprocs = 4\n", "[platforms.g.clusters]\n", "m.toml:3: platforms.g.clusters: a grid needs at least one cluster"},
		{"a stream of streams", "workload = \"t\"\npayment", "workload = \"grid\"\npayment", "m.toml:20: workloads.grid.streams.glob.workload: workload \"grid\" is made of streams itself"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(gridBase, tc.old) {
				t.Fatalf("%q is not in the base", tc.old)
			}
			_, err := parse(t, strings.Replace(gridBase, tc.old, tc.new, 1))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant\n%s", err, tc.want)
			}
		})
	}
}

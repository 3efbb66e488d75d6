package manifest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// featureBase is gridBase with features on both clusters and a global
// stream whose jobs require one of b's with probability 0.25.
var featureBase = strings.NewReplacer(
	"price_factor = 2\n", "price_factor = 2\nfeatures = [\"gpu\", \"big\"]\n",
	"procs = 4\n", "procs = 4\nfeatures = [\"big\"]\n",
	"budget = 1000\n", "budget = 1000\nrequire = [\"gpu\"]\nrequire_share = 0.25\n",
).Replace(gridBase)

func TestGridFeatures(t *testing.T) {
	m := mustParse(t, featureBase)
	pl := m.Platforms["g"]
	sp := pl.SDK()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := []sdk.Cluster{sp.Clusters[0], sp.Clusters[1]}, []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4}, Features: []string{"big"}},
		{Name: "b", Capacity: sdk.Vector{8}, PriceFactor: 2, Features: []string{"gpu", "big"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("engine clusters %+v, want %+v", got, want)
	}
	glob := m.Workloads["grid"].Streams[0]
	if !reflect.DeepEqual(glob.Require, []string{"gpu"}) || glob.RequireShare != 0.25 {
		t.Errorf("stream %+v, want require [gpu] at 0.25", glob)
	}
	// The platform's features sorted are big (bit 0) and gpu (bit 1).
	if got := pl.Requires(glob); got != 2 || sp.FeatureList(got) != "[gpu]" {
		t.Errorf("requires %b (%s), want 10 ([gpu])", got, sp.FeatureList(got))
	}
	if got := pl.Requires(m.Workloads["grid"].Streams[1]); got != 0 {
		t.Errorf("a local stream requires %b", got)
	}

	// The lock reads back to the same spec, and each setting is in it.
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
	for _, c := range [][2]string{
		{"require_share = 0.25", "require_share = 0.5"}, {"require = [\"gpu\"]", "require = [\"big\"]"},
		{"features = [\"big\"]", "features = [\"big\", \"fast\"]"},
	} {
		m3 := mustParse(t, strings.Replace(featureBase, c[0], c[1], 1))
		r3, err := m3.Expand()
		if err != nil {
			t.Fatal(err)
		}
		if string(r3[0].Spec(m3)) == string(runs[0].Spec(m)) {
			t.Errorf("%s -> %s leaves the spec as it was", c[0], c[1])
		}
	}
	// Without features the spec is what it was before they existed: no
	// key of theirs in it.
	plain := mustParse(t, gridBase)
	rp, err := plain.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(rp[0].Spec(plain)); strings.Contains(s, "features") || strings.Contains(s, "require") {
		t.Errorf("a spec without features names them: %s", s)
	}
}

func TestGridFeatureErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"a repeated feature", `features = ["big"]`, `features = ["big", "big"]`, `m.toml:9: platforms.g.clusters.a.features: feature "big" is listed twice`},
		{"a bad feature name", `features = ["big"]`, `features = ["b g"]`, `m.toml:9: platforms.g.clusters.a.features: "b g" is not a valid feature name`},
		{"features not a list", `features = ["big"]`, `features = "big"`, `platforms.g.clusters.a.features`},
		{"a feature no cluster has", `require = ["gpu"]`, `require = ["gpus"]`, `m.toml:26: workloads.grid.streams.glob.require: no cluster of platform g has feature "gpus" (features: [big gpu]) (did you mean gpu?)`},
		{"an empty require", `require = ["gpu"]`, `require = []`, `m.toml:26: workloads.grid.streams.glob.require: lists the features the stream's jobs require: at least one`},
		{"a share above 1", "require_share = 0.25", "require_share = 1.5", `m.toml:27: workloads.grid.streams.glob.require_share: must be a number from 0 to 1, got 1.5`},
		{"a share without require", "require = [\"gpu\"]\n", "", `workloads.grid.streams.glob.require_share: a share of jobs requiring features needs require (the features)`},
		{"require on a local stream", "priority = [1, 3]", "priority = [1, 3]\nrequire = [\"big\"]", `workloads.grid.streams.la.require: a local stream runs at home`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(featureBase, tc.old) {
				t.Fatalf("%q is not in the base", tc.old)
			}
			_, err := parse(t, strings.Replace(featureBase, tc.old, tc.new, 1))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant\n%s", err, tc.want)
			}
		})
	}
}

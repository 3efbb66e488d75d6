package manifest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// ioBase is bbBase with an I/O table on its platform, written by the
// tests.
func ioBase(io string) string {
	return strings.Replace(bbBase, "[platforms.kth-bb.resources.lic]", "[platforms.kth-bb.io]\n"+io+"[platforms.kth-bb.resources.lic]", 1)
}

// TestIOSettings reads an I/O table, its defaults (the authors') and its
// units, and checks that it is in the run's spec, and that a platform
// without one keeps its spec.
func TestIOSettings(t *testing.T) {
	m, runs := mustExpand(t, ioBase("fs_bandwidth = \"5000 MB/s\"\nunit_bandwidth = 1_250_000_000\nsplit_duplex = true\n"))
	got := m.Platforms["kth-bb"].IO
	want := sdk.IO{Resource: 1, FSBandwidth: 5e9, UnitBandwidth: 1.25e9, SplitDuplex: true, StageIn: 1, Checkpoint: 0.5, StageOut: 1,
		Drain: true, PhaseSeconds: 3600, MaxPhases: 10}
	if got == nil || *got != want {
		t.Fatalf("model %+v, want %+v", got, want)
	}
	spec := string(runs[0].Spec(m))
	for _, w := range []string{`"io":{"checkpoint":0.5,"drain":true,"fs_bandwidth":5000000000,`, `"resource":"bb","split_duplex":true`} {
		if !strings.Contains(spec, w) {
			t.Errorf("spec %s lacks %s", spec, w)
		}
	}
	m, _ = mustExpand(t, ioBase("fs_bandwidth = 10\nunit_bandwidth = \"2 KiB/s\"\ncheckpoint = 0\nphase_seconds = \"2h\"\nmax_phases = 3\n"))
	got = m.Platforms["kth-bb"].IO
	if got.UnitBandwidth != 2048 || got.Drain || got.PhaseSeconds != 7200 || got.MaxPhases != 3 {
		t.Errorf("model %+v: want 2,048 B/s per unit, no drain without checkpoints, phases of 2 h, at most 3", *got)
	}
	m, runs = mustExpand(t, bbBase)
	if s := string(runs[0].Spec(m)); strings.Contains(s, `"io"`) {
		t.Errorf("a platform without a model has an io spec: %s", s)
	}
}

// TestIOErrors checks that each bad I/O setting is refused, naming the
// file, line and key.
func TestIOErrors(t *testing.T) {
	for _, tc := range []struct{ name, io, want string }{
		{"no fs bandwidth", "unit_bandwidth = 1\n", "platforms.kth-bb.io: fs_bandwidth is required"},
		{"bad unit", "fs_bandwidth = \"5 GBit/s\"\nunit_bandwidth = 1\n", "platforms.kth-bb.io.fs_bandwidth: \"5 GBit/s\": unknown unit \"GBit\""},
		{"zero bandwidth", "fs_bandwidth = 0\nunit_bandwidth = 1\n", "platforms.kth-bb.io.fs_bandwidth: a bandwidth must be positive"},
		{"not a divided resource", "resource = \"lic\"\nfs_bandwidth = 1\nunit_bandwidth = 1\n", "platforms.kth-bb.io.resource: \"lic\" is not a resource of the platform divided into units"},
		{"negative size", "fs_bandwidth = 1\nunit_bandwidth = 1\nstage_in = -1\n", "platforms.kth-bb.io.stage_in: -1 is not a share of each piece's size from 0 to 1"},
		{"a phase larger than the space", "fs_bandwidth = 1\nunit_bandwidth = 1\nstage_out = 1.5\n", "platforms.kth-bb.io.stage_out: 1.5 is not a share of each piece's size from 0 to 1"},
		{"no phase", "fs_bandwidth = 1\nunit_bandwidth = 1\nmax_phases = 0\n", "platforms.kth-bb.io.max_phases: 0 is not a number of compute phases"},
		{"drain without checkpoints", "fs_bandwidth = 1\nunit_bandwidth = 1\ncheckpoint = 0\ndrain = true\n", "platforms.kth-bb.io: io: drain without checkpoints"},
		{"unknown key", "fs_bandwidth = 1\nunit_bandwidth = 1\nstagein = 1\n", "stagein"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, ioBase(tc.io))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant\n%s", err, tc.want)
			}
			var es Errors
			if !asErrors(err, &es) || es[0].Line == 0 {
				t.Errorf("error has no line: %#v", err)
			}
		})
	}
	// Not without a burst buffer.
	if _, err := parse(t, strings.Replace(powerBase(""), "[platforms.m.power]\n", "", 1)+"[platforms.m.io]\nfs_bandwidth = 1\nunit_bandwidth = 1\n"); err == nil ||
		!strings.Contains(err.Error(), "platforms.m.io: the platform has no resource divided into units") {
		t.Errorf("an I/O model on nodes without a burst buffer: %v", err)
	}
}

// TestBurstBufferIOTransform: burst-buffer-io draws burst-buffer-lognormal's
// requests for the same seed, then shortens compute times by the
// authors' rule, computed here by hand for three jobs.
func TestBurstBufferIOTransform(t *testing.T) {
	m := mustParse(t, ioBase("fs_bandwidth = 1\nunit_bandwidth = 1\n"))
	plat := m.Platforms["kth-bb"].SDK()
	jobs := func() []sim.Input {
		return []sim.Input{
			{Job: sdk.Job{ID: 1, Walltime: 3600, Request: sdk.Vector{4, 0, 0}}, Runtime: 3000},
			{Job: sdk.Job{ID: 2, Walltime: 120, Request: sdk.Vector{1, 0, 0}}, Runtime: 100},
			{Job: sdk.Job{ID: 3, Walltime: 600, Request: sdk.Vector{2, 0, 0}}, Runtime: 20},
		}
	}
	lt, _ := LookupTransform(TransformBurstBuffer)
	it, _ := LookupTransform(TransformBurstBufferIO)
	lp, err := sdk.ResolveParams(lt.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	ip, err := sdk.ResolveParams(it.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := jobs(), jobs()
	if _, err := lt.Apply(lp, plat, a, rand.New(rand.NewPCG(5, 6))); err != nil {
		t.Fatal(err)
	}
	counts, err := it.Apply(ip, plat, b, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for k := range a {
		if !a[k].Job.Request.Fits(b[k].Job.Request) || !b[k].Job.Request.Fits(a[k].Job.Request) {
			t.Errorf("job %d: requests %v and %v differ", k+1, a[k].Job.Request, b[k].Job.Request)
		}
		per := float64(b[k].Job.Request[1]) / float64(b[k].Job.Request[0])
		want := a[k].Runtime
		switch k {
		case 0, 2:
			// max(runtime - 40 x bytes per piece / 1.25e9, 0.05 x runtime),
			// rounded, at least 1.
			cut := max(float64(a[k].Runtime)-40*per/1.25e9, 0.05*float64(a[k].Runtime))
			want = max(int64(cut+0.5), 1)
		}
		if b[k].Runtime != want {
			t.Errorf("job %d: runtime %d, want %d (%.0f bytes per piece)", k+1, b[k].Runtime, want, per)
		}
	}
	if counts["shortened"]+counts["kept"] != 3 || counts["kept"] < 1 {
		t.Errorf("counts %v: the short job 2 is kept, every job counted once", counts)
	}
}

package host_test

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestIOOverTheWire runs gridJobs on gridPlatform's first cluster under an
// I/O model through a plugin of this SDK: the model crosses the wire, and
// the records and placements come back as the in-process run's, and valid
// by verify.IO's own recomputation. A plugin of protocol 5 is refused
// such a run, naming the protocol.
func TestIOOverTheWire(t *testing.T) {
	p := servedPlugin(t, "1")
	plat := gridPlatform()
	plat.Clusters = plat.Clusters[:1]
	jobs := gridJobs(400)
	model := &sdk.IO{Resource: 2, FSBandwidth: 0.15, UnitBandwidth: 0.1, SplitDuplex: true, NodeBandwidth: 0.075,
		StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 60, MaxPhases: 4}
	spec := host.RunSpec{Platform: plat, Seed: 3, IO: model}
	got, err := p.Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := verify.NewChecker(plat, jobs)
	c.ExpectIO(model)
	c.Add(got.Records)
	if err := c.Finish(got.Units, got.Allocs); err != nil {
		t.Fatal(err)
	}
	if err := verify.IO(plat, model, jobs, got); err != nil {
		t.Fatal(err)
	}
	want, err := host.InProcess(firstFitPlugin()).Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	slowed := 0
	for i, r := range want.Records {
		if r.End > r.Start+min(jobs[i].Runtime, jobs[i].Job.Walltime) {
			slowed++
		}
	}
	if slowed < 40 {
		t.Fatalf("%d jobs slowed by their data: the test crosses too little of the model", slowed)
	}
	if !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Units, want.Units) {
		t.Fatal("the plugin's records or placements differ from the in-process run's")
	}
	old, err := host.Start(context.Background(), exec.Command(buildFixture(t, "testdata/proto5", "./cmd/firstfit", true)))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.Run(context.Background(), spec, jobs, nil); err == nil || !strings.Contains(err.Error(), "protocol 10") {
		t.Fatalf("a protocol-5 plugin with an I/O model: %v", err)
	}
}

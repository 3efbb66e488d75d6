package host_test

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestFeaturesOverTheWire runs streamJobs on gridPlatform with cluster
// features, one in three global jobs requiring cluster a's, through a
// plugin of this SDK: the features cross the wire (a job that lost its
// requirement would go to cluster b, the first fit's choice), the records
// come back as the in-process run's and valid, and a plugin of protocol 5
// is refused the run, naming protocol 11.
func TestFeaturesOverTheWire(t *testing.T) {
	p := servedPlugin(t, "1")
	plat := gridPlatform()
	plat.Clusters[0].Features = []string{"gpu", "big"} // bits: big 0, gpu 1
	plat.Clusters[1].Features = []string{"big"}
	jobs := streamJobs(500)
	required := 0
	for i := range jobs {
		if j := &jobs[i].Job; j.Transfer > 0 && i%3 == 0 {
			j.Requires = 2
			required++
		}
	}
	spec := host.RunSpec{Platform: plat, Seed: 7}
	check := verify.NewChecker(plat, jobs)
	got, err := p.Run(context.Background(), spec, jobs, check.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := check.Finish(got.Units, got.Allocs); err != nil {
		t.Fatalf("invalid schedule: %v", err)
	}
	want, err := host.InProcess(firstFitPlugin()).Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Records, want.Records) {
		t.Fatal("the plugin's records differ from the in-process run's")
	}
	onA := 0
	for i, r := range got.Records {
		if jobs[i].Job.Requires != 0 && r.Cluster == 0 && jobs[i].Job.Request.Fits(plat.Clusters[1].Capacity) {
			onA++
		}
	}
	if required < 20 || onA < 10 {
		t.Fatalf("%d jobs require gpu, %d of those that fit cluster b ran on a: the test crosses too little", required, onA)
	}
	old, err := host.Start(context.Background(), exec.Command(buildFixture(t, "testdata/proto5", "./cmd/firstfit", true)))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.Run(context.Background(), spec, jobs, nil); err == nil || !strings.Contains(err.Error(), "protocol 11") {
		t.Fatalf("a protocol-5 plugin with cluster features: %v", err)
	}
}

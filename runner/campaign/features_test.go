package campaign

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// TestGridFeaturesCampaign runs gridManifest with feature gpu on cluster
// nasa and 30 % of the global jobs requiring it, beside the same manifest
// without features, in process: the provenance counts the jobs drawn to
// require gpu; every job sees the payment it sees without features (the
// draw of requirements has a source of its own); the policies count no job
// rejected unmatched (nasa is the larger cluster); requiring gpu moves
// global work from kth to nasa; and the lock reruns identically.
func TestGridFeaturesCampaign(t *testing.T) {
	plain := gridManifest(t)
	src := strings.NewReplacer(
		"price_factor = 2\n", "price_factor = 2\nfeatures = [\"gpu\"]\n",
		"transfer = 300\n", "transfer = 300\nrequire = [\"gpu\"]\nrequire_share = 0.3\n",
	).Replace(gridSource())
	m := loadManifest(t, src)
	dirPlain, dir := t.TempDir(), t.TempDir()
	repPlain := run(t, plain, Options{Dir: dirPlain, InProcess: true})
	rep := run(t, m, Options{Dir: dir, InProcess: true})
	if rep.Done != 2 {
		t.Fatalf("%d of 2 runs completed", rep.Done)
	}
	onKth := func(rep *Report, dir, label string) (global, kth int64, payments []float64, meta map[string]string) {
		for _, r := range rep.Runs {
			if r.Label != label {
				continue
			}
			jobs, x, md, err := results.ReadJobsWith(JobsPath(dir, r.Key))
			if err != nil {
				t.Fatal(err)
			}
			for i, j := range jobs {
				if x.Grid[i].Home >= 0 {
					continue
				}
				payments = append(payments, *x.Grid[i].Payment)
				if x.Grid[i].Rejected {
					continue
				}
				global += j.Procs * j.Runtime
				if j.Cluster == 0 {
					kth += j.Procs * j.Runtime
				}
			}
			return global, kth, payments, md
		}
		t.Fatalf("no run %s in %s", label, dir)
		return
	}
	for _, r := range rep.Runs {
		g0, k0, p0, _ := onKth(repPlain, dirPlain, r.Label)
		g1, k1, p1, meta := onKth(rep, dir, r.Label)
		if fmt.Sprint(p0) != fmt.Sprint(p1) {
			t.Errorf("%s: the global jobs' payments differ with features", r.Label)
		}
		var streams []StreamReport
		if err := json.Unmarshal([]byte(meta["workload.streams"]), &streams); err != nil {
			t.Fatal(err)
		}
		if s := streams[0]; s.Name != "global" || s.Required == 0 || s.Required < s.Kept/5 || s.Required > s.Kept*2/5 {
			t.Errorf("%s: stream %+v: want about 30 %% of its jobs required gpu", r.Label, s)
		}
		if r.PolicyCounts["rejected_unmatched"] != 0 || r.PolicyCounts == nil {
			t.Errorf("%s: counts %v, want rejected_unmatched 0", r.Label, r.PolicyCounts)
		}
		if g0 != g1 || float64(k1)/float64(g1) >= float64(k0)/float64(g0) {
			t.Errorf("%s: kth's share of the global work %d/%d with features, %d/%d without: want it smaller", r.Label, k1, g1, k0, g0)
		}
		t.Logf("%s: kth's share of the global work %.3f without features, %.3f with; %d of %d global jobs require gpu",
			r.Label, float64(k0)/float64(g0), float64(k1)/float64(g1), streams[0].Required, streams[0].Kept)
	}
	rerunIdentical(t, dir, t.TempDir())
}

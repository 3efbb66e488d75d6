package campaign

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// TestNotesCampaign runs multifactor with fair share on the shipped
// KTH-SP2 log in a campaign: its jobs file keeps the policy's notes, every
// job's wait spells sum to its wait (start - submit), as docs/results.md
// says, and the ```sql notes queries of docs/results.md run on it.
func TestNotesCampaign(t *testing.T) {
	m := loadManifest(t, fmt.Sprintf(`[campaign]
seed = 36
[workloads.kth]
trace = %q
sha256 = %q
[policies.mf]
ref = "multifactor"
params = { PriorityWeightFairshare = 10000, PriorityWeightAge = 1000 }
[matrix]
workload = ["kth"]
policy = ["mf"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA))
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, InProcess: true})
	if len(rep.Runs) != 1 {
		t.Fatalf("%d runs", len(rep.Runs))
	}
	rows, x, meta, err := results.ReadJobsWith(JobsPath(dir, rep.Runs[0].Key))
	if err != nil {
		t.Fatal(err)
	}
	if x.Notes == nil || x.Notes.Waits == nil || meta[results.PolicyNotesKey] == "" {
		t.Fatalf("no notes in the jobs file (provenance %q)", meta[results.PolicyNotesKey])
	}
	waited := 0
	for i, r := range rows {
		ws := x.Notes.Waits[i]
		sum := int64(0)
		for k, w := range ws {
			to := r.Start
			if k+1 < len(ws) {
				to = ws[k+1].From
			}
			sum += to - w.From
		}
		if sum != r.Start-r.Submit || len(ws) > 0 && ws[0].From != r.Submit {
			t.Fatalf("job %d: submitted %d, started %d; spells %v sum to %d", r.JobID, r.Submit, r.Start, ws, sum)
		}
		if len(ws) > 0 {
			waited++
		}
	}
	if waited < 1000 {
		t.Fatalf("%d jobs waited: the test tests too little", waited)
	}
	docQueries(t, dir, "notes", "out/notes-kth")
}

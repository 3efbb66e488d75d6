package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
)

// TestResumeEditedManifest resumes a campaign with its manifest grown, then
// shrunk and changed, then as it was: completed runs whose keys the
// manifest still has are kept, the others run, and the runs of the folder
// the manifest no longer has are listed with why, kept on disk and left out
// of runs.parquet.
func TestResumeEditedManifest(t *testing.T) {
	dir := t.TempDir()
	resume := func(m *manifest.Manifest) *Report {
		t.Helper()
		return run(t, m, Options{Dir: dir, Resume: true, InProcess: true, Source: m.Path})
	}
	rows := func() int {
		t.Helper()
		_, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	a := quickstart(t, "", `policy = ["fcfs", "easy"]`)
	run(t, a, Options{Dir: dir, InProcess: true, Source: a.Path})

	// Grown: two new runs.
	grown := quickstart(t, "", `policy = ["fcfs", "easy", "conservative"]`)
	rep := resume(grown)
	if rep.Reused != 4 || rep.Done != 6 || len(rep.Stale) != 0 || rows() != 6 {
		t.Fatalf("grown: reused %d done %d stale %v rows %d; want 4, 6, none, 6", rep.Reused, rep.Done, rep.Stale, rows())
	}
	lock, err := manifest.Load(filepath.Join(dir, LockFile))
	if err != nil || lock.Lock.Source != grown.Path || len(lock.Matrix.Axes[1].Values) != 3 {
		t.Fatalf("the lock does not record the grown manifest: %v", err)
	}

	// Shrunk and changed: fcfs removed, the slowdown bound changed.
	changed := quickstart(t, "", `policy = ["easy", "conservative"]`)
	changed.Metrics.SlowdownTau = 60
	rep = resume(changed)
	if rep.Reused != 0 || rep.Done != 4 || rows() != 4 {
		t.Fatalf("changed: reused %d done %d rows %d; want 0, 4, 4", rep.Reused, rep.Done, rows())
	}
	removed, moved := 0, 0
	for _, s := range rep.Stale {
		switch {
		case strings.Contains(s.Label, "policy=fcfs") && s.Change == "":
			removed++
		case !strings.Contains(s.Label, "policy=fcfs") && s.Change == "metrics.bsld_tau: 10 -> 60":
			moved++
		default:
			t.Errorf("stale %s: change %q", s.Label, s.Change)
		}
	}
	if removed != 2 || moved != 4 {
		t.Errorf("stale: %d removed and %d changed, want 2 and 4: %+v", removed, moved, rep.Stale)
	}
	// Their files stay: 6 + 4 runs' status and jobs files.
	if n := len(jobFiles(t, dir)); n != 10 {
		t.Errorf("%d jobs files, want 10 (nothing deleted)", n)
	}

	// As it was: every run of the grown manifest is still there.
	rep = resume(grown)
	if rep.Reused != 6 || rows() != 6 || len(rep.Stale) != 4 {
		t.Errorf("back to the grown manifest: reused %d rows %d stale %d; want 6, 6, 4", rep.Reused, rows(), len(rep.Stale))
	}
	// A status file that is not ours is ignored.
	if err := os.WriteFile(filepath.Join(dir, StatusDir, "notes.json"), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep = resume(grown); len(rep.Stale) != 4 {
		t.Errorf("with a foreign file in status/: %d stale, want 4", len(rep.Stale))
	}
}

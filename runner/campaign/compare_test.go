package campaign

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// copyCampaign copies the files of a campaign folder (runs.parquet and the
// jobs files) into a new folder.
func copyCampaign(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	if err := os.MkdirAll(filepath.Join(to, JobsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(from, JobsDir, "*.parquet"))
	for _, f := range append(files, filepath.Join(from, RunsFile)) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(from, f)
		if err := os.WriteFile(filepath.Join(to, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// TestCompareExplains checks the reason Compare gives for a run that
// differs: a different plugin binary or workload sha256 in runs.parquet
// explains it; equal provenance leaves it unexplained; provenance that
// differs while the records agree is no difference at all.
func TestCompareExplains(t *testing.T) {
	m := quickstart(t, "", `policy = ["easy", "fcfs"]`)
	orig := t.TempDir()
	run(t, m, Options{Dir: orig, InProcess: true})
	cases := []struct {
		name      string
		column    string // of runs.parquet changed for the run, "" for none
		changeJob bool   // change one job record of the run
		identical bool
		why       string // in Diff.Why; "" for an empty Why
	}{
		{"plugin binary", "policy_sha256", true, false, "different plugin binary"},
		{"workload", "workload_sha256", true, false, "different workload"},
		{"unexplained", "", true, false, ""},
		{"provenance only", "policy_sha256", false, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyCampaign(t, orig)
			cols, rows, meta, err := results.ReadTable(filepath.Join(dir, RunsFile))
			if err != nil {
				t.Fatal(err)
			}
			idx := slices.IndexFunc(cols, func(col results.Column) bool { return col.Name == "run_key" })
			const target = 1 // the run changed
			key := rows[target][idx].(string)
			if c.column != "" {
				ci := slices.IndexFunc(cols, func(col results.Column) bool { return col.Name == c.column })
				if ci < 0 {
					t.Fatalf("runs.parquet has no column %s", c.column)
				}
				rows[target][ci] = strings.Repeat("0", 64)
				if err := results.WriteTable(filepath.Join(dir, RunsFile), cols, rows, meta); err != nil {
					t.Fatal(err)
				}
			}
			if c.changeJob {
				path := JobsPath(dir, key)
				jobs, jmeta, err := results.ReadJobs(path)
				if err != nil {
					t.Fatal(err)
				}
				jobs[3].Wait++
				if err := results.WriteJobs(path, jobs, jmeta); err != nil {
					t.Fatal(err)
				}
			}
			diffs, err := Compare(orig, dir)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range diffs {
				if i != target {
					if !d.Identical || d.Why != "" {
						t.Errorf("run %d: identical %v, why %q; only run %d was changed", i, d.Identical, d.Why, target)
					}
					continue
				}
				if d.Identical != c.identical {
					t.Errorf("run %d: identical %v, want %v (%s)", i, d.Identical, c.identical, d.What)
				}
				if c.why == "" && d.Why != "" || !strings.Contains(d.Why, c.why) {
					t.Errorf("run %d: why %q, want %q", i, d.Why, c.why)
				}
			}
		})
	}
}

package campaign

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
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

// TestCompareNotes: two jobs files whose rows agree but whose policy
// notes differ (a value, a wait reason, the columns) differ, and say
// where.
func TestCompareNotes(t *testing.T) {
	dir := t.TempDir()
	rows := []results.JobRow{{JobID: 1, Start: 5, End: 9}, {JobID: 2, Start: 6, End: 9}}
	notes := func(prio float64, reason string, name string) *sdk.Notes {
		return &sdk.Notes{Columns: []sdk.NoteColumn{{Name: name, Values: []float64{math.NaN(), prio}}},
			Waits: [][]sdk.WaitSpell{nil, {{From: 0, Reason: reason}}}}
	}
	write := func(name string, n *sdk.Notes, meta string) string {
		path := filepath.Join(dir, name)
		if err := results.WriteJobsWith(path, rows, results.JobExtras{Notes: n}, results.Metadata{"run.key": meta}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := write("a.parquet", notes(10, "Priority", "priority"), "a")
	for _, c := range []struct {
		name string
		n    *sdk.Notes
		want string // in the difference; "" for none
	}{
		{"same", notes(10, "Priority", "priority"), ""},
		{"value", notes(11, "Priority", "priority"), "policy_priority 10 then 11"},
		{"reason", notes(10, "Resources", "priority"), "policy wait reasons"},
		{"columns", notes(10, "Priority", "age"), "policy notes"},
		{"none", nil, "policy notes"},
	} {
		got, err := compareJobs(base, write(c.name+".parquet", c.n, c.name))
		if err != nil {
			t.Fatal(err)
		}
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

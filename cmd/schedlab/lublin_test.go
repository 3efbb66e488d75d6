package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/workload/lublin"
)

// lublinManifest is a campaign of two Lublin-Feitelson workloads of 3,000
// jobs on 128 processors under EASY: gen without sessions, gens with the
// parameters given.
func lublinManifest(sessions string) string {
	return fmt.Sprintf(`[campaign]
seed = 1
[workloads.gen]
generator = "lublin-feitelson"
procs = 128
params = { jobs = 3000 }
[workloads.gens]
generator = "lublin-feitelson"
procs = 128
params = { jobs = 3000, %s }
feedback = "swf"
[policies.easy]
ref = "easy"
[matrix]
workload = ["gen", "gens"]
policy = ["easy"]
`, sessions)
}

// TestLublinSessions: the generator's session model is off unless
// session_users is given, and a workload that leaves it off lists none of
// its parameters (its spec is what it was); with 30 users and feedback =
// "swf" about 1 - 1/session_jobs_mean of the jobs depend on another, and
// each job not dependent opens a session; a session setting without users,
// or a bad one, exits 2 naming the manifest's line and the parameter.
func TestLublinSessions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(path, []byte(lublinManifest("session_users = 30")), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path, generators()...)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"gen": 0, "gens": 1} {
		n := 0
		for k := range m.Workloads[name].Params {
			if strings.HasPrefix(k, "session_") || strings.HasPrefix(k, "think_") {
				n++
			}
		}
		if n != want {
			t.Errorf("%s: %d session parameters in %v, want %d", name, n, m.Workloads[name].Params, want)
		}
	}
	out := filepath.Join(dir, "out")
	if text, err := run(t, "run", path, "--out", out, "-q", "-j", "1"); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(out, "runs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		v := map[string]any{}
		for i, c := range cols {
			v[c.Name] = r[i]
		}
		if v["workload"] == "gen" {
			if v["feedback_dependent"] != nil || v["sessions"] != nil {
				t.Errorf("gen: dependent %v, sessions %v, want NULL", v["feedback_dependent"], v["sessions"])
			}
			continue
		}
		dep, jobs := v["feedback_dependent"].(int64), v["jobs"].(int64)
		p := 1 - 1/lublin.DefaultSessions().JobsMean
		if share := float64(dep) / float64(jobs); math.Abs(share-p) > 5*math.Sqrt(p*(1-p)/float64(jobs)) {
			t.Errorf("gens: %d of %d jobs dependent, want about %.3f", dep, jobs, p)
		}
		if v["sessions"] != jobs-dep || v["feedback_think_time_unknown"] != int64(0) {
			t.Errorf("gens: %v sessions for %d jobs, %d dependent; %v think times unknown", v["sessions"], jobs, dep, v["feedback_think_time_unknown"])
		}
	}
	for _, c := range []struct{ params, want string }{
		{"session_jobs_mean = 2.0", "session_jobs_mean = 2 needs session_users above 0"},
		{"session_users = 10, session_jobs_mean = 0.5", "session_jobs_mean = 0.5 must be at least 1"},
		{"session_users = 10, think_median = 2000.0, think_sigma = 0.0", "think_median = 2000 is not below think_max = 1200"},
		{"session_users = -2", "session_users -2 must be 0 (off) or more"},
	} {
		bad := filepath.Join(dir, "bad.toml")
		if err := os.WriteFile(bad, []byte(lublinManifest(c.params)), 0o644); err != nil {
			t.Fatal(err)
		}
		text, err := run(t, "run", bad, "--out", filepath.Join(dir, "bad"), "-q", "-j", "1")
		if exitCode(err) != exitBadInput || !strings.Contains(text, c.want) || !strings.Contains(text, "bad.toml:8: workloads.gens.generator") {
			t.Errorf("%s: exit %d, want %d naming %q:\n%s", c.params, exitCode(err), exitBadInput, c.want, text)
		}
	}
}

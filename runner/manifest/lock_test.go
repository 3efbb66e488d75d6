package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockRoundTrip writes the quickstart manifest as a lock into another
// folder, reads it back from there and checks that it expands to the same
// runs with the same specs and seeds, and that paths still resolve.
func TestLockRoundTrip(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "quickstart.toml"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "campaign")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := Lock{Schedlab: "0.1.0", Revision: "abc", Modified: "false", Source: "quickstart.toml", SourceSHA256: strings.Repeat("0", 64),
		Policies: map[string]LockedPolicy{"easy": {Kind: "reference", SHA256: strings.Repeat("a", 64), Name: "easy", Version: "1.0.0", SDK: "0.1.0"}}}
	var b bytes.Buffer
	if err := m.WriteLock(&b, dir, lock); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "manifest.lock.toml")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(path)
	if err != nil {
		t.Fatalf("reading the lock back: %v\n%s", err, b.String())
	}
	runs2, err := m2.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs2) != len(runs) {
		t.Fatalf("%d runs, want %d", len(runs2), len(runs))
	}
	for i := range runs {
		if s1, s2 := string(runs[i].Spec(m)), string(runs2[i].Spec(m2)); s1 != s2 {
			t.Errorf("run %d spec changed:\n%s\n%s", i, s1, s2)
		}
		if runs[i].Seeds(m) != runs2[i].Seeds(m2) || runs[i].Label() != runs2[i].Label() {
			t.Errorf("run %d: seeds or label changed", i)
		}
	}
	for name, w := range m.Workloads {
		if m2.Workloads[name].Trace != w.Trace {
			t.Errorf("workload %s: trace %s, want %s", name, m2.Workloads[name].Trace, w.Trace)
		}
	}
	for name, p := range m.Policies {
		if m2.Policies[name].Target != p.Target {
			t.Errorf("policy %s: target %s, want %s", name, m2.Policies[name].Target, p.Target)
		}
	}
	if m2.Campaign.Out != dir || m2.Campaign.Timeout != m.Campaign.Timeout {
		t.Errorf("campaign %+v", m2.Campaign)
	}
	if m2.Lock == nil || m2.Lock.Policies["easy"] != lock.Policies["easy"] || m2.Lock.Revision != "abc" {
		t.Errorf("lock %+v", m2.Lock)
	}
	// The lock table is strict like the rest.
	bad := strings.Replace(b.String(), "\n[lock]\n", "\n[lock]\nbogus = 1\n", 1)
	if _, err := Parse(path, []byte(bad), dir); err == nil || !strings.Contains(err.Error(), "unknown key lock.bogus") {
		t.Errorf("unknown lock key: %v", err)
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"plain", `a"b`, `back\slash`, "new\nline", "tab\tx", "<&>", "é"} {
		m, err := Parse("q.toml", []byte("[campaign]\nseed = 1\nname = "+quote("n")+"\n[workloads.w]\ntrace = \"./t\"\nsha256 = \""+strings.Repeat("0", 64)+"\"\n[policies.p]\nref = \"easy\"\nparams = { x = "+quote(s)+" }\n[matrix]\nworkload = [\"w\"]\npolicy = [\"p\"]\n"), "/lab")
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := m.Policies["p"].Params["x"]; got != s {
			t.Errorf("quote(%q) reads back as %q", s, got)
		}
	}
}

// TestLockCost checks that a policy's cost, which shards are balanced by,
// survives the lock (as an integer or not), and defaults to 1.
func TestLockCost(t *testing.T) {
	dir := t.TempDir()
	src := "[campaign]\nseed = 1\n[workloads.a]\ntrace = \"a.swf\"\nsha256 = \"" + strings.Repeat("0", 64) + "\"\n" +
		"[policies.p]\nref = \"fcfs\"\ncost = 3\n[policies.q]\nref = \"easy\"\ncost = 2.5\n[policies.r]\nref = \"easy\"\n" +
		"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\", \"q\", \"r\"]\n"
	path := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.WriteLock(&b, dir, Lock{Schedlab: "test"}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(dir, "manifest.lock.toml")
	if err := os.WriteFile(lockPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(lockPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	for name, want := range map[string]float64{"p": 3, "q": 2.5, "r": 1} {
		if m.Policies[name].Cost != want || m2.Policies[name].Cost != want {
			t.Errorf("policy %s: cost %g, %g in the lock; want %g", name, m.Policies[name].Cost, m2.Policies[name].Cost, want)
		}
	}
}

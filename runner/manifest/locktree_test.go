package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sameAfterLock writes m's lock into another folder, reads it back and
// fails t unless its runs have m's specs; it returns the lock's text.
func sameAfterLock(t *testing.T, m *Manifest) string {
	t.Helper()
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var b bytes.Buffer
	if err := m.WriteLock(&b, dir, Lock{Schedlab: "test"}); err != nil {
		t.Fatal(err)
	}
	m2, err := Parse(filepath.Join(dir, "manifest.lock.toml"), b.Bytes(), dir)
	if err != nil {
		t.Fatalf("reading the lock back: %v\n%s", err, b.String())
	}
	runs2, err := m2.Expand()
	if err != nil || len(runs2) != len(runs) {
		t.Fatalf("%d runs from the lock (%v), want %d", len(runs2), err, len(runs))
	}
	for i := range runs {
		if s1, s2 := string(runs[i].Spec(m)), string(runs2[i].Spec(m2)); s1 != s2 {
			t.Errorf("run %d: the lock's spec\n%s\nwant\n%s\nlock:\n%s", i, s2, s1, b.String())
		}
	}
	return b.String()
}

// TestLockKeepsLogAndFailures: a sacct log's settings and partitions map,
// and a platform's failures file (a path relative to the manifest, written
// relative to the lock's folder), survive the lock.
func TestLockKeepsLogAndFailures(t *testing.T) {
	src := `[campaign]
seed = 7
[platforms.n.nodes.a]
count = 2
cores = 4
[platforms.n.partitions.batch]
groups = ["a"]
[workloads.log]
trace = "c.sacct"
sha256 = "` + sha + `"
format = "sacct"
partitions = { general-compute = "batch" }
tres = "allocated"
unknown_partition = "drop"
[policies.p]
ref = "fcfs"
[matrix]
workload = ["log"]
platform = ["n"]
policy = ["p"]
`
	lock := sameAfterLock(t, mustParse(t, src))
	if !strings.Contains(lock, `tres = "allocated"`) || !strings.Contains(lock, `"general-compute" = "batch"`) {
		t.Errorf("lock without the log's settings:\n%s", lock)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte("node,down,up\n3,10,20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Parse(filepath.Join(dir, "m.toml"), []byte(outagesBase("failures_file = "+strconv.Quote("f.csv")+"\n")), dir)
	if err != nil {
		t.Fatal(err)
	}
	lock = sameAfterLock(t, m)
	if !strings.Contains(lock, "failures_file = ") || strings.Contains(lock, `failures_file = "f.csv"`) {
		t.Errorf("the failures file is not written relative to the lock:\n%s", lock)
	}
}

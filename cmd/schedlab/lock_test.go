package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/runner/manifest"
)

// TestLockKeepsCommittedManifests writes every committed manifest of the
// repository as a lock into another folder, reads it back and checks that
// it expands to the same runs with the same specs and seeds: a setting the
// lock left out would make `schedlab rerun` and `run --resume` run
// another campaign.
func TestLockKeepsCommittedManifests(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "experiments", "*", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.toml"))
	paths = append(paths, more...)
	more, _ = filepath.Glob(filepath.Join("..", "..", "runner", "manifest", "testdata", "*.toml"))
	paths = append(paths, more...)
	checked := 0
	for _, path := range paths {
		m, err := manifest.Load(path, generators()...)
		if err != nil {
			continue // not a manifest, or one made to fail
		}
		runs, err := m.Expand()
		if err != nil {
			continue
		}
		checked++
		t.Run(path, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "campaign")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := m.WriteLock(&b, dir, manifest.Lock{Schedlab: "test"}); err != nil {
				t.Fatal(err)
			}
			lock := filepath.Join(dir, "manifest.lock.toml")
			if err := os.WriteFile(lock, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			m2, err := manifest.LoadLock(lock, generators()...)
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
					t.Fatalf("run %d (%s) spec changed:\n%s\n%s\nlock:\n%s", i, runs[i].Label(), s1, s2, b.String())
				}
				if runs[i].Seeds(m) != runs2[i].Seeds(m2) {
					t.Fatalf("run %d: seeds changed", i)
				}
			}
		})
	}
	if checked < 20 {
		t.Errorf("only %d manifests checked", checked)
	}
	t.Logf("%d manifests checked", checked)
}

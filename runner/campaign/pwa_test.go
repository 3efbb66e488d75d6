package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/workload/pwa"
)

// TestArchiveTrace runs a campaign whose trace is pwa:KTH-SP2-1996-2.1-cln,
// found in a cache folder, and the same campaign naming the file: the run
// keys and jobs files are the same, and the lock keeps the name.
func TestArchiveTrace(t *testing.T) {
	cacheDir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cacheDir, "KTH-SP2-1996-2.1-cln.swf.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	const body = "[policies.easy]\nref = \"easy\"\n[matrix]\nworkload = [\"kth\"]\npolicy = [\"easy\"]\n"
	byName := loadManifest(t, "[campaign]\nseed = 3\n[workloads.kth]\ntrace = \"pwa:KTH-SP2-1996-2.1-cln\"\n"+body)
	byPath := loadManifest(t, fmt.Sprintf("[campaign]\nseed = 3\n[workloads.kth]\ntrace = %q\nsha256 = %q\n", filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)+body)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	ra := run(t, byName, Options{Dir: a, InProcess: true, Archive: pwa.Cache{Dir: cacheDir}})
	rb := run(t, byPath, Options{Dir: b, InProcess: true})
	if ra.Done != 1 || rb.Done != 1 || ra.Runs[0].Key != rb.Runs[0].Key {
		t.Fatalf("by name %+v, by path %+v", ra.Runs, rb.Runs)
	}
	fa, fb := jobFiles(t, a), jobFiles(t, b)
	for name, x := range fb {
		if string(fa[name]) != string(x) {
			t.Errorf("jobs file %s differs between the name and the path", name)
		}
	}
	lock, err := manifest.Load(filepath.Join(a, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	if w := lock.Workloads["kth"]; w.Trace != "pwa:KTH-SP2-1996-2.1-cln" || w.SHA256 != kthSHA {
		t.Errorf("the lock's workload: %+v", w)
	}
}

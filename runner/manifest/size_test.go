package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/peakmem"
)

// policyTables is a manifest of n policy tables, the first ten in the
// matrix, with
// an unknown key at line 3 when typo is set, padded with a comment line to
// exactly size bytes when size is larger.
func policyTables(n int, typo bool, size int) []byte {
	var b strings.Builder
	b.WriteString("[campaign]\nseed = 1\n")
	if typo {
		b.WriteString("sede = 2\n")
	}
	fmt.Fprintf(&b, "[workloads.w]\ntrace = \"w.swf\"\nsha256 = %q\n", sha)
	var names []string
	for i := range n {
		if i < 10 {
			names = append(names, fmt.Sprintf("%q", fmt.Sprintf("p%d", i)))
		}
		fmt.Fprintf(&b, "[policies.p%d]\nref = \"easy\"\n", i)
	}
	fmt.Fprintf(&b, "[matrix]\nworkload = [\"w\"]\npolicy = [%s]\n", strings.Join(names, ", "))
	if pad := size - b.Len(); pad > 1 {
		b.WriteString("#" + strings.Repeat("x", pad-2) + "\n")
	}
	return []byte(b.String())
}

// TestSizeBound: Load reads a manifest of MaxBytes and refuses one byte
// more before parsing it, naming the file and its size; LoadLock reads a
// lock file up to MaxLockBytes.
func TestSizeBound(t *testing.T) {
	dir := t.TempDir()
	at := filepath.Join(dir, "at.toml")
	over := filepath.Join(dir, "over.toml")
	data := policyTables(10, false, MaxBytes)
	if len(data) != MaxBytes {
		t.Fatalf("the manifest has %d bytes, want %d", len(data), MaxBytes)
	}
	if err := os.WriteFile(at, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := Load(at); err != nil || len(m.Policies) != 10 {
		t.Errorf("a manifest of MaxBytes: %v", err)
	}
	_, err := Load(over)
	want := fmt.Sprintf("%s: file too large: %d bytes, more than the %d (1 MiB) a manifest may have", over, MaxBytes+1, MaxBytes)
	if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a manifest of MaxBytes+1: %v, want %q", err, want)
	}
	if _, err := LoadLock(over); err != nil {
		t.Errorf("a lock of MaxBytes+1: %v", err)
	}
	huge := filepath.Join(dir, "huge.toml")
	if err := os.WriteFile(huge, policyTables(1, false, MaxLockBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLock(huge); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "a campaign's lock may have") {
		t.Errorf("a lock of MaxLockBytes+1: %v", err)
	}
}

// BenchmarkLoadLarge loads manifests of policy tables with an unknown key
// at line 3: one at the bound (some 33,000 tables), the largest Load reads,
// and one of 10.4 MB (330,000 tables), which it refuses unparsed. It
// reports the peak resident set (peakmem), the test binary's own included.
// Measured: at the bound 132 MB and 0.83 s; the 10.4 MB manifest 17 MB and
// 2 ms, where before the bound it peaked at 1,095 MB and took 13.1 s to
// name its unknown key.
func BenchmarkLoadLarge(b *testing.B) {
	dir := b.TempDir()
	for _, tc := range []struct {
		name   string
		tables int
	}{{"at the bound", 40_000}, {"10.4 MB", 330_000}} {
		data := policyTables(tc.tables, true, 0)
		if tc.name == "at the bound" {
			for len(data) > MaxBytes {
				tc.tables -= 100
				data = policyTables(tc.tables, true, 0)
			}
		}
		path := filepath.Join(dir, "m.toml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		size := float64(len(data)) / 1e6
		data = nil // not in the peak
		b.Run(tc.name, func(b *testing.B) {
			peakmem.Report(b, func() {
				_, err := Load(path)
				if !strings.Contains(err.Error(), "unknown key campaign.sede") && !errors.Is(err, ErrTooLarge) {
					b.Fatal(err)
				}
			})
			b.ReportMetric(size, "file-MB")
		})
	}
}

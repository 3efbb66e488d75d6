package workload

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/experiments/data"
)

// TestSHA256 checks that SHA256 gives the digest LoadSWF records, for the
// same trace plain, gzipped (under a name that does not say so) and in two
// gzip members, and that a broken gzip stream is an error, not a digest.
func TestSHA256(t *testing.T) {
	gz, err := data.Files.ReadFile(data.KTH)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	half := plain.Len() / 2
	var members bytes.Buffer
	for _, part := range [][]byte{plain.Bytes()[:half], plain.Bytes()[half:]} {
		zw := gzip.NewWriter(&members)
		if _, err := zw.Write(part); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"plain.swf": plain.Bytes(), "gzipped.swf": gz, "members.swf.gz": members.Bytes()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := SHA256(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != data.KTHSHA256 {
			t.Errorf("%s: sha256 %s, want %s", name, got, data.KTHSHA256)
		}
		w, err := LoadSWF(path, 0, DefaultClean())
		if err != nil {
			t.Fatal(err)
		}
		if w.SHA256 != got {
			t.Errorf("%s: LoadSWF records %s, SHA256 gives %s", name, w.SHA256, got)
		}
	}
	cut := filepath.Join(dir, "cut.swf.gz")
	if err := os.WriteFile(cut, gz[:len(gz)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := SHA256(cut); err == nil {
		t.Errorf("a gzip stream cut in half has sha256 %s, want an error", sum)
	}
}

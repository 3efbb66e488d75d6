package sdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// TestSourcesCoverEveryPackage checks that SourceSHA256 covers the Go files
// of every package of the SDK module: a package added without its pattern
// in source.go would change the engine's code without changing the digest.
func TestSourcesCoverEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile("source.go")
	if err != nil {
		t.Fatal(err)
	}
	patterns := strings.Fields(regexp.MustCompile(`//go:embed (.*)`).FindStringSubmatch(string(text))[1])
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.ToSlash(filepath.Join(rel, "*.go"))
		if !slices.Contains(patterns, want) {
			t.Errorf("package %s is not in the //go:embed patterns of source.go (add %s)", rel, want)
		}
	}
}

// TestSourceSHA256 checks the digest is stable within a binary and is a
// sha256.
func TestSourceSHA256(t *testing.T) {
	a, b := sdk.SourceSHA256(), sdk.SourceSHA256()
	if a != b || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a) {
		t.Errorf("SourceSHA256 = %q then %q", a, b)
	}
}

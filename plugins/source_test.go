package plugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSourcesCoverReference checks that the digest covers every package of
// this module the reference policies are compiled from: a dependency left
// out could change a policy's behaviour without changing its identity, and
// so its run keys.
func TestSourcesCoverReference(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Module.Path}} {{.Dir}}{{end}}", "./reference").Output()
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
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	covered := 0
	for _, line := range lines {
		mod, dir, _ := strings.Cut(line, " ")
		switch mod {
		case "github.com/schedlab/schedlab":
		case "github.com/schedlab/schedlab/sdk":
			continue // sdk.SourceSHA256
		default:
			if !slices.Contains(strings.Fields(modules), mod) {
				t.Errorf("reference depends on module %s, not in the modules constant of source.go", mod)
			}
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("reference depends on %s, outside plugins/: its sources are not in the digest", dir)
			continue
		}
		if want := filepath.ToSlash(filepath.Join(rel, "*.go")); !slices.Contains(patterns, want) {
			t.Errorf("reference depends on plugins/%s, not in the //go:embed patterns of source.go (add %s)", rel, want)
		}
		covered++
	}
	if covered == 0 {
		t.Fatalf("go list found no package of this module:\n%s", out)
	}
}

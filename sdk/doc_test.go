package sdk_test

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestPublicDocs checks that the documentation of every public package of
// the SDK, all of it, shows nothing of the transport (frames, codecs,
// protobuf, the engine's streaming hooks) or of the plugin process's
// collector: what a policy author sees is what a policy needs.
func TestPublicDocs(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	leak := regexp.MustCompile(`(?i)\bframes?\b|codec|protobuf|garbage|GOGC|\bGC\b|EmitAtLeast|(?-i:Config\.More|\bEmit\b)|internal/`)
	for _, pkg := range []string{".", "./sim", "./serve", "./host", "./policytest", "./verify", "./plan"} {
		out, err := exec.Command("go", "doc", "-all", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go doc %s: %v\n%s", pkg, err, out)
		}
		if m := leak.FindAll(out, -1); len(m) > 0 {
			t.Errorf("go doc %s shows %q", pkg, m)
		}
	}
}

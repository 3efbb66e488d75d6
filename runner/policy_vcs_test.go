package runner

import (
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// vcsSettings returns the vcs* build settings stamped into a binary.
func vcsSettings(t *testing.T, bin string) map[string]string {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("build info of %s: %v", bin, err)
	}
	m := map[string]string{}
	for _, s := range info.Settings {
		if strings.HasPrefix(s.Key, "vcs") {
			m[s.Key] = s.Value
		}
	}
	return m
}

// TestResolvePackageVCSStamp builds package policies through the resolver and
// checks the VCS stamp: present, naming HEAD, for a package of this checkout
// even when GOFLAGS turns stamping off; absent, without error, for a package
// outside any checkout; an error when the checkout's git cannot be run.
func TestResolvePackageVCSStamp(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: cannot check the VCS stamp of package policies")
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout (git rev-parse HEAD: %v): no VCS stamp to check", err)
	}
	head := strings.TrimSpace(string(out))
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}

	// A main package with its own module, outside any checkout, as in a
	// source tarball.
	outside := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/outside\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := exec.Command("git", "-C", outside, "rev-parse", "--git-dir").Run(); err == nil {
		t.Fatalf("%s is inside a git checkout; the test needs a directory outside one", outside)
	}

	tests := []struct {
		name    string
		ref     string
		goflags string // GOFLAGS for the build; "-" leaves the environment's
		path    string // PATH for the build; "" leaves the environment's
		want    map[string]string
		wantErr string
	}{
		{name: "checkout, machine GOFLAGS", ref: "../plugins/fcfs", goflags: "-",
			want: map[string]string{"vcs": "git", "vcs.revision": head}},
		{name: "checkout, GOFLAGS=-buildvcs=false", ref: "../plugins/easy", goflags: "-buildvcs=false",
			want: map[string]string{"vcs": "git", "vcs.revision": head}},
		{name: "import path in checkout, GOFLAGS=-buildvcs=false", ref: "github.com/schedlab/schedlab/plugins/fcfs",
			goflags: "-buildvcs=false", want: map[string]string{"vcs": "git", "vcs.revision": head}},
		{name: "outside any checkout", ref: outside, goflags: "-buildvcs=false",
			want: map[string]string{}},
		{name: "checkout without git", ref: "../plugins/fcfs", goflags: "-", path: filepath.Dir(goBin),
			wantErr: "make git work in this checkout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.goflags != "-" {
				t.Setenv("GOFLAGS", tc.goflags)
			}
			if tc.path != "" {
				if _, err := os.Stat(filepath.Join(tc.path, "git")); err == nil {
					t.Skipf("git is in go's directory %s: cannot hide it", tc.path)
				}
				t.Setenv("PATH", tc.path)
			}
			r := Resolver{CacheDir: t.TempDir()}
			res, err := r.Resolve(context.Background(), tc.ref)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve(%q) error = %v, want one containing %q", tc.ref, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.ref, err)
			}
			if res.Kind != KindPackage || filepath.Base(res.Binary) != res.SHA256 {
				t.Fatalf("Resolve(%q) = %+v, want a package binary named by its sha256", tc.ref, res)
			}
			got := vcsSettings(t, res.Binary)
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: %s = %q, want %q (all vcs settings: %v)", tc.ref, k, got[k], v, got)
				}
			}
			if len(tc.want) == 0 && len(got) != 0 {
				t.Errorf("%s: vcs settings %v, want none outside a checkout", tc.ref, got)
			}
			if len(tc.want) != 0 {
				if m := got["vcs.modified"]; m != "true" && m != "false" {
					t.Errorf("%s: vcs.modified = %q, want true or false", tc.ref, m)
				}
			}
		})
	}
}

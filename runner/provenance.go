package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// Version is schedlab's version, recorded in every result.
const Version = "0.1.0"

// modulePath is the main module whose commit BuildProvenance records.
const modulePath = "github.com/schedlab/schedlab"

// BuildProvenance returns what identifies the running schedlab binary and
// the machine: version, VCS commit and dirty flag, Go version, OS/arch and
// host name. The commit comes from the binary's build information when the
// build stamped it (vcs.source = "build"). `go run` and builds with
// -buildvcs=false do not stamp, so it then asks git about the working tree
// schedlab runs from, if that tree is schedlab's (vcs.source = "worktree");
// else vcs.revision is "unknown". It runs git, so callers call it once per
// command, not per run.
func BuildProvenance() map[string]string {
	m := map[string]string{
		"schedlab.version": Version,
		"sdk.version":      sdk.Version,
		"go.version":       runtime.Version(),
		"os_arch":          runtime.GOOS + "/" + runtime.GOARCH,
		"vcs.revision":     "unknown",
		"vcs.modified":     "unknown",
		"vcs.source":       "none",
	}
	if h, err := os.Hostname(); err == nil {
		m["host"] = h
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.modified", "vcs.time":
				m[s.Key] = s.Value
				m["vcs.source"] = "build"
			}
		}
	}
	if m["vcs.source"] == "none" {
		if rev, modified, ok := worktree(); ok {
			m["vcs.revision"], m["vcs.modified"], m["vcs.source"] = rev, strconv.FormatBool(modified), "worktree"
		}
	}
	return m
}

// worktree returns the commit and dirty flag of the git working tree of
// the current directory when it is schedlab's own module.
func worktree() (rev string, modified, ok bool) {
	git := func(args ...string) (string, bool) {
		out, err := exec.Command("git", args...).Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	top, ok := git("rev-parse", "--show-toplevel")
	if !ok {
		return "", false, false
	}
	gomod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !bytes.HasPrefix(gomod, []byte("module "+modulePath+"\n")) {
		return "", false, false
	}
	rev, ok = git("-C", top, "rev-parse", "HEAD")
	if !ok {
		return "", false, false
	}
	status, ok := git("-C", top, "status", "--porcelain", "--untracked-files=no")
	return rev, status != "", ok
}

// Package runner executes simulation runs: it resolves a policy to an
// in-process plugin or a plugin process, sends the run, replay-verifies the
// records and computes the metrics.
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/plugins"
	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/runner/manifest"
)

// Resolver turns a policy reference, as a user writes it, into something
// that runs.
type Resolver struct {
	// SelfCommand serves a reference policy when followed by its name, e.g.
	// the schedlab binary and "plugin", "serve". Empty means reference
	// policies run in-process only.
	SelfCommand []string
	// CacheDir holds plugins built from Go packages, one binary per content
	// hash. Empty means the user cache directory.
	CacheDir string
	// Hashes, when set, remembers the sha256 of each binary, so that the
	// reference policies, all served by one binary, hash it once.
	Hashes *FileHashes
	// Log, when set, is told of every `go build` of a package policy: what
	// it builds, then how long it took (a first build compiles gRPC and
	// go-plugin and can take minutes).
	Log io.Writer
	// Supervisor, when set, is a command that runs the command line
	// appended to it as a process group it kills when it is told to stop or
	// when this process dies (Supervise): schedlab's `plugin supervise`.
	// Builds of package policies run under it, so that a host killed
	// outright (SIGKILL) leaves no compiler behind. Without it the go
	// command still dies with the host (on Linux), its compilers finish
	// their package.
	Supervisor []string
	// Prebuilt maps a reference (what Resolve takes) to a binary built or
	// copied for it beforehand, which is used instead of building the
	// package or reading the path: the tasks of a Slurm job array run on
	// machines that may have no Go and see only the campaign folder.
	Prebuilt map[string]Prebuilt
}

// Prebuilt is a policy's binary made ready beforehand (Resolver.Prebuilt).
type Prebuilt struct {
	Binary string `json:"binary"`
	Kind   Kind   `json:"kind"`
}

// FileHashes remembers the sha256 of files, by path, size and modification
// time. It is safe for concurrent use; the zero value is ready.
type FileHashes struct {
	mu   sync.Mutex
	sums map[fileID]string
}

type fileID struct {
	path  string
	size  int64
	mtime int64
}

// Sum returns the hex sha256 of the file at path.
func (h *FileHashes) Sum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id := fileID{path, st.Size(), st.ModTime().UnixNano()}
	h.mu.Lock()
	sum, ok := h.sums[id]
	h.mu.Unlock()
	if ok {
		return sum, nil
	}
	sum, err = FileSHA256(path)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	if h.sums == nil {
		h.sums = map[fileID]string{}
	}
	h.sums[id] = sum
	h.mu.Unlock()
	return sum, nil
}

// Kind says how a policy reference was resolved.
type Kind string

// The kinds of policy reference.
const (
	KindReference Kind = "reference"
	KindBinary    Kind = "binary"
	KindPackage   Kind = "package"
	// KindPython is a policy written in Python (a .py file), served by
	// the schedlab Python package over the call protocol.
	KindPython Kind = "python"
)

// Resolved is a policy ready to start.
type Resolved struct {
	Ref  string
	Kind Kind
	// Command starts the plugin process (empty when only in-process works).
	Command []string
	// Binary is the plugin binary and SHA256 its sha256, recorded in
	// provenance.
	Binary string
	SHA256 string
	// Identity stands for the policy's code in run keys. For a reference
	// policy served by this very binary (or in process) it is
	// plugins.Identity, a digest of the sources, so that every way of
	// building one commit (go run, go build, go install) gives the same
	// run keys; for a Python policy the sha256 of Python; for other
	// policies the binary's sha256.
	Identity string
	// Python, for a Python policy, is what identifies it (JSON: its files,
	// the schedlab package, the Python and the distributions loaded),
	// recorded in provenance.
	Python string
}

// Resolve interprets ref: the name of a reference policy, the path of a plugin
// binary, or a Go package path (a directory of the module, like
// ./plugins/easy, or an import path) that is built into the cache.
func (r Resolver) Resolve(ctx context.Context, ref string) (*Resolved, error) {
	if _, ok := reference.Lookup(ref); ok {
		res := &Resolved{Ref: ref, Kind: KindReference}
		if len(r.SelfCommand) > 0 {
			res.Command = append(append([]string{}, r.SelfCommand...), ref)
			res.Binary = r.SelfCommand[0]
		}
		if err := r.hash(res); err != nil {
			return nil, err
		}
		if res.Binary == "" || isSelf(res.Binary) {
			res.Identity = plugins.Identity()
		}
		return res, nil
	}
	if pb, ok := r.Prebuilt[ref]; ok {
		res := &Resolved{Ref: ref, Kind: pb.Kind, Command: []string{pb.Binary}, Binary: pb.Binary}
		return res, r.hash(res)
	}
	st, err := os.Stat(ref)
	if err != nil && isPath(ref) {
		// Not an import path: go build would only add "go.mod file not found".
		return nil, fmt.Errorf("policy %q is neither a plugin binary nor a Go package: %w", ref, err)
	}
	if err == nil && st.Mode().IsRegular() && strings.HasSuffix(ref, ".py") {
		return r.python(ctx, ref)
	}
	if err == nil && st.Mode().IsRegular() {
		if st.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("policy %q is a file but not executable", ref)
		}
		abs, err := filepath.Abs(ref)
		if err != nil {
			return nil, err
		}
		res := &Resolved{Ref: ref, Kind: KindBinary, Command: []string{abs}, Binary: abs}
		return res, r.hash(res)
	}
	if strings.HasPrefix(ref, ".") || strings.Contains(ref, "/") {
		bin, err := r.build(ctx, ref)
		if err != nil {
			return nil, err
		}
		res := &Resolved{Ref: ref, Kind: KindPackage, Command: []string{bin}, Binary: bin}
		return res, r.hash(res)
	}
	return nil, fmt.Errorf("policy %q is neither a reference policy%s, a plugin binary nor a Go package path (reference policies: %s)",
		ref, manifest.DidYouMean(ref, reference.Names()), strings.Join(reference.Names(), ", "))
}

// isPath reports whether ref is written as a file path (absolute, or
// starting with ./ or ../), not as an import path.
func isPath(ref string) bool {
	return filepath.IsAbs(ref) || ref == "." || ref == ".." ||
		strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "../")
}

func (r Resolver) hash(res *Resolved) error {
	if res.Binary == "" {
		return nil
	}
	var sum string
	var err error
	if r.Hashes != nil {
		sum, err = r.Hashes.Sum(res.Binary)
	} else {
		sum, err = FileSHA256(res.Binary)
	}
	if err != nil {
		return fmt.Errorf("policy %q: %w", res.Ref, err)
	}
	res.SHA256, res.Identity = sum, sum
	return nil
}

// isSelf reports whether path is the running executable, whose embedded
// sources are those of the reference policies it serves.
func isSelf(path string) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, err := os.Stat(self)
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// buildVCS is the -buildvcs value of package policy builds. It is given on
// the command line, which overrides GOFLAGS (a machine may set
// GOFLAGS=-buildvcs=false), so that a plugin built from a checkout records the
// commit it was built from (vcs.revision, vcs.time, vcs.modified).
//
// "true" rather than "auto": the two differ only when the package is in a
// checkout whose VCS cannot be asked (git missing, a repository git refuses
// as owned by another user, a nested layout go finds ambiguous). There "auto"
// builds an unstamped binary silently, whose sha256, and so every run key,
// differs from the stamped one a published campaign recorded; "true" fails
// the build and says why. Outside any checkout (a source tarball) both build
// an unstamped binary without error: there is no commit to record.
const buildVCS = "-buildvcs=true"

// buildTick is how often a long build of a package policy says it goes on.
const buildTick = 15 * time.Second

// build compiles a Go package into the cache and returns the binary's path,
// named by the sha256 of its content so that identical builds share a file.
// Go's build cache, keyed by the content of the sources, the toolchain and
// the flags, makes a rebuild of unchanged code cheap; the VCS stamp is part
// of the binary, so a new commit or a clean tree turning dirty gives a new
// binary, sha256 and run keys even when the package's own code is unchanged.
func (r Resolver) build(ctx context.Context, pkg string) (string, error) {
	dir := r.CacheDir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("build %s: no cache directory: %w", pkg, err)
		}
		dir = filepath.Join(base, "schedlab", "plugins")
	}
	dir, err := filepath.Abs(dir) // the build may run in another directory
	if err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	tmp, err := os.CreateTemp(dir, ".build-*")
	if err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	target := pkg
	cmd := childCommand(ctx, r.Supervisor, "go", "build", buildVCS, "-trimpath", "-o", tmp.Name())
	if st, err := os.Stat(pkg); err == nil && st.IsDir() {
		// Build a directory from inside it, so that its own module is the
		// main module wherever schedlab was started from.
		cmd.Dir, target = pkg, "."
	}
	cmd.Args = append(cmd.Args, target)
	begin := time.Now()
	var out []byte
	if r.Log != nil {
		fmt.Fprintf(r.Log, "building policy %s (go build in %s; a first build compiles gRPC and go-plugin too, about 40 s on 2 cores)...\n", pkg, cmdDir(cmd))
		// A first build is long and go prints nothing meanwhile: say that
		// it goes on, so that a silent terminal is not taken for a hang.
		done, ticking := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(ticking)
			tick := time.NewTicker(buildTick)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					fmt.Fprintf(r.Log, "still building policy %s (%.0f s)...\n", pkg, time.Since(begin).Seconds())
				}
			}
		}()
		out, err = cmd.CombinedOutput()
		close(done)
		<-ticking
	} else {
		out, err = cmd.CombinedOutput()
	}
	if r.Log != nil && err == nil {
		fmt.Fprintf(r.Log, "built policy %s in %.1f s\n", pkg, time.Since(begin).Seconds())
	}
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if strings.Contains(msg, "-buildvcs=false") {
			// go's own advice does not apply: the flag here overrides GOFLAGS.
			msg += "\n(schedlab stamps package policies with the commit: make git work in this checkout, " +
				"or build the plugin yourself and give the binary's path as the policy's ref)"
		}
		return "", fmt.Errorf("build %s: %w\n%s", pkg, err, msg)
	}
	sum, err := FileSHA256(tmp.Name())
	if err != nil {
		return "", err
	}
	final := filepath.Join(dir, sum)
	if _, err := os.Stat(final); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp.Name(), final); err != nil {
			return "", fmt.Errorf("build %s: %w", pkg, err)
		}
	}
	return final, nil
}

// cmdDir is the directory cmd runs in, for messages.
func cmdDir(cmd *exec.Cmd) string {
	if cmd.Dir != "" {
		return cmd.Dir
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}

// FileSHA256 returns the hex sha256 of a file's content, which pins a plugin
// binary in provenance and a run's jobs file in its status.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// earlyPhases are the stages of `schedlab run` before its first run, each
// with a child that never ends on its own: a package policy's build (a go
// command, first in PATH, that starts a child as the real one starts its
// compilers) and the start of a plugin that never completes its handshake.
// Each writes the pids of its processes to files in dir.
func earlyPhases(t *testing.T, dir string) []struct {
	name, ref string
	pids      []string
} {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	pkg := filepath.Join(dir, "pkg")
	for _, d := range []string{bin, pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	scripts := map[string]string{
		filepath.Join(bin, "go"):     "#!/bin/sh\nsleep 600 &\necho $! > \"$CHILD_DIR/grandchild\"\necho $$ > \"$CHILD_DIR/go\"\nwait\n",
		filepath.Join(dir, "sleepy"): "#!/bin/sh\necho $$ > \"$CHILD_DIR/plugin\"\nexec sleep 600\n",
	}
	for path, text := range scripts {
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return []struct {
		name, ref string
		pids      []string
	}{
		{"build", pkg, []string{"go", "grandchild"}},
		{"plugin start", filepath.Join(dir, "sleepy"), []string{"plugin"}},
	}
}

// startEarly starts `schedlab run` of a campaign whose policy is ref, with
// the fake go command first in PATH, and waits for the children named by
// pids to write their pid files; it returns the command, its standard
// error and the pids.
func startEarly(t *testing.T, dir, ref string, pids []string) (*exec.Cmd, *bytes.Buffer, []int) {
	t.Helper()
	for _, p := range pids {
		os.Remove(filepath.Join(dir, p))
	}
	m := filepath.Join(dir, "m.toml")
	src := fmt.Sprintf("[campaign]\nseed = 1\nout = \"out\"\nstart_timeout = \"10m\"\n[workloads.kth]\ntrace = %q\nsha256 = %q\n[policies.mine]\nref = %q\n[matrix]\nworkload = [\"kth\"]\npolicy = [\"mine\"]\n",
		must(filepath.Abs(kth)), kthSHA, ref)
	if err := os.WriteFile(m, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(schedlab, "run", m)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "CHILD_DIR="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range pids {
		out = append(out, waitPid(t, cmd, filepath.Join(dir, p)))
	}
	return cmd, &stderr, out
}

// waitPid waits for a child to write its pid to path.
func waitPid(t *testing.T, host *exec.Cmd, path string) int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			return pid
		}
	}
	_ = host.Process.Kill()
	t.Fatalf("no pid in %s within a minute", path)
	return 0
}

// alive reports whether the process pid runs: it exists and is not a
// zombie (a killed child whose new parent has not reaped it yet).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// checkGone fails the test for each pid still running ten seconds on, and
// kills it.
func checkGone(t *testing.T, what string, names []string, pids []int) {
	t.Helper()
	for i, pid := range pids {
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("%s: the %s (pid %d) still runs ten seconds after", what, names[i], pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// waitExit waits a minute at most for cmd to end.
func waitExit(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("schedlab did not end within a minute of the signal")
		return nil
	}
}

// TestInterruptBeforeRuns interrupts `schedlab run` while it builds a
// package policy and while it starts a plugin (whose start timeout is ten
// minutes): it exits 3 with a message saying so, without waiting for the
// plugin, creates no campaign folder, and leaves no child behind, the
// build's own children included.
func TestInterruptBeforeRuns(t *testing.T) {
	dir := t.TempDir()
	for _, ph := range earlyPhases(t, dir) {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			what := fmt.Sprintf("%v during the %s", sig, ph.name)
			cmd, stderr, pids := startEarly(t, dir, ph.ref, ph.pids)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := waitExit(t, cmd)
			if exitCode(err) != exitInterrupted || !strings.Contains(stderr.String(), "interrupted before the first run") {
				t.Errorf("%s: exit %d, want %d\n%s", what, exitCode(err), exitInterrupted, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: the campaign folder was created (%v)", what, err)
			}
			checkGone(t, what, ph.pids, pids)
		}
	}
}

// TestKilledHostLeavesNoChild kills `schedlab run` with SIGKILL while it
// builds a package policy and while it starts a plugin: the build, its
// own child and the plugin die with it.
func TestKilledHostLeavesNoChild(t *testing.T) {
	dir := t.TempDir()
	for _, ph := range earlyPhases(t, dir) {
		cmd, _, pids := startEarly(t, dir, ph.ref, ph.pids)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = waitExit(t, cmd)
		checkGone(t, "SIGKILL during the "+ph.name, ph.pids, pids)
	}
}

package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBuildCancelEndsGroup cancels the build of a package policy whose go
// command (a fake one, first in PATH) started a child of its own, as the
// real one starts its compilers: Resolve returns the cancellation, and
// both processes are gone, though the child still held the build's output
// open. Without a supervisor: the library's own path.
func TestBuildCancelEndsGroup(t *testing.T) {
	dir := t.TempDir()
	bin, pkg := filepath.Join(dir, "bin"), filepath.Join(dir, "pkg")
	for _, d := range []string{bin, pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\nsleep 600 &\necho $! > \"$CHILD_DIR/child\"\necho $$ > \"$CHILD_DIR/go\"\nwait\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CHILD_DIR", dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Resolver{CacheDir: filepath.Join(dir, "cache")}.Resolve(ctx, pkg)
		done <- err
	}()
	var pids []int
	for _, name := range []string{"go", "child"} {
		pid := 0
		for deadline := time.Now().Add(time.Minute); pid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if pid == 0 {
			t.Fatalf("the fake build wrote no %s pid within a minute", name)
		}
		pids = append(pids, pid)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "build "+pkg) {
			t.Errorf("Resolve after the cancel: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Resolve did not return within a minute of the cancel")
	}
	for _, pid := range pids {
		for deadline := time.Now().Add(10 * time.Second); running(pid) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if running(pid) {
			t.Errorf("pid %d still runs ten seconds after the cancel", pid)
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// Package slurmtest gives tests a real Slurm: the cluster SLURM_CONF names
// when it answers, else a throw-away single-node cluster that the shared
// tools' local-slurm.sh starts on this machine (as root, loopback only, no
// systemd) and stops when the test ends. Without either, a test is
// skipped saying what is missing, and fails instead under CI, so that CI
// never passes without the Slurm tests (the pattern of package milp).
package slurmtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// ScriptEnv names the variable that may give the path of local-slurm.sh;
// by default it is found at shared/tools/local-slurm.sh beside the
// checkout (in the working directory or one of its ancestors).
const ScriptEnv = "SCHEDLAB_LOCAL_SLURM"

// Packages are the Debian packages a throw-away cluster needs.
const Packages = "slurmd slurmctld slurm-client munge"

// Start returns the environment entries (SLURM_CONF=...) under which
// Slurm's commands reach a cluster ready to run jobs, and sets them for
// the test.
func Start(t *testing.T) []string {
	t.Helper()
	if conf := os.Getenv("SLURM_CONF"); conf != "" {
		if out, err := exec.Command("scontrol", "ping").CombinedOutput(); err == nil && strings.Contains(string(out), "UP") {
			return []string{"SLURM_CONF=" + conf}
		}
	}
	script, why := find()
	if why != "" {
		unavailable(t, why)
	}
	stderr := &syncWriter{w: &bytes.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "bash", "-c", `source "$0" || exit 1
lslurm_start >&2 || { lslurm_stop; exit 1; }
echo "SLURM_CONF=$SLURM_CONF"
read -r _ || true
lslurm_stop >&2`, script)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The daemons stop when stdin closes: at the end of the test, or when
	// this process dies.
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cancel()
			<-done
		}
		cancel()
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "SLURM_CONF=") {
				line <- sc.Text()
			}
		}
		close(line)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			t.Fatalf("local-slurm.sh did not start a cluster:\n%s", stderr)
		}
		conf := strings.TrimPrefix(l, "SLURM_CONF=")
		t.Setenv("SLURM_CONF", conf)
		t.Logf("a throw-away Slurm is up (SLURM_CONF=%s)", conf)
		return []string{l}
	case <-time.After(120 * time.Second):
		t.Fatalf("local-slurm.sh: no cluster after 120 s:\n%s", stderr)
	}
	return nil
}

// find locates local-slurm.sh and checks what it needs; why says what is
// missing.
func find() (script, why string) {
	if _, err := exec.LookPath("sbatch"); err != nil {
		return "", "no Slurm: sbatch is not on PATH (apt-get install " + Packages + ", or just deps)"
	}
	for _, d := range []string{"slurmctld", "slurmd", "munged"} {
		if _, err := exec.LookPath(d); err != nil {
			if _, err := os.Stat(filepath.Join("/usr/sbin", d)); err != nil {
				return "", fmt.Sprintf("no cluster answers (SLURM_CONF unset or down) and %s is not installed to start one (apt-get install %s)", d, Packages)
			}
		}
	}
	if os.Geteuid() != 0 {
		return "", "no cluster answers (SLURM_CONF unset or down), and starting a throw-away one takes root"
	}
	if p := os.Getenv(ScriptEnv); p != "" {
		return p, ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err.Error()
	}
	var tried []string
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "tools", "local-slurm.sh")
		if _, err := os.Stat(p); err == nil {
			return p, ""
		}
		tried = append(tried, p)
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Sprintf("no cluster answers (SLURM_CONF unset or down) and no local-slurm.sh to start one (set %s; looked at %s)",
		ScriptEnv, strings.Join(tried, ", "))
}

func unavailable(t *testing.T, why string) {
	t.Helper()
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal(why + " (CI is set, so the Slurm tests may not be skipped)")
	}
	t.Skip(why)
}

// syncWriter lets the daemons' output be read while they write it.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.w.(*bytes.Buffer); ok {
		return b.String()
	}
	return ""
}

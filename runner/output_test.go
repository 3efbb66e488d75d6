package runner

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/results/metrics"
)

// lockedBuffer is a run's log, written by the host's output goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestOutputPerRun runs two runs in one plugin process, one after the
// other: a noisy one that writes megabytes to its standard output and
// completes, then one that fails (its policy errs, panics, or its process
// exits). The failed run's error and log hold its own output only, none of
// the noisy run's; the noisy run's log holds all of its own output, up to
// its last line.
func TestOutputPerRun(t *testing.T) {
	jobs, plat := smallWorkload()
	pidRE := regexp.MustCompile(`process (\d+)`)
	for _, fail := range []string{"error", "panic", "exit"} {
		for _, noise := range []int{1 << 20, 16 << 20} {
			t.Run(fmt.Sprintf("%s after %d MiB", fail, noise>>20), func(t *testing.T) {
				procs := &Processes{}
				defer procs.Close()
				run := func(params map[string]string, log *lockedBuffer) (*Outcome, error) {
					return Execute(context.Background(), Spec{Policy: pluginResolved(t, "loud"), Platform: plat, Jobs: jobs,
						Params: params, Metrics: metrics.DefaultSettings(), Processes: procs, Log: log})
				}
				var noisyLog, failedLog lockedBuffer
				out, err := run(map[string]string{"noise_bytes": fmt.Sprint(noise)}, &noisyLog)
				if err != nil {
					t.Fatal(err)
				}
				_, err = run(map[string]string{"fail": fail}, &failedLog)
				if err == nil {
					t.Fatal("the failing run succeeded")
				}
				noisy, failed := noisyLog.String(), failedLog.String()
				m1 := pidRE.FindStringSubmatch(noisy)
				if out.ProcessRun != 1 || m1 == nil {
					t.Fatalf("the noisy run was run %d of its process, log %.100q", out.ProcessRun, noisy)
				}
				if strings.Contains(err.Error(), "noise of process") || strings.Contains(failed, "noise of process") {
					t.Errorf("the failed run's error or log holds the noisy run's output:\nerror: %.300s\nlog: %.300s", err, failed)
				}
				// A process that exits at once may lose what it wrote just
				// before (TestPluginFailures); the others say it, in the
				// same process as the noisy run.
				if own := "the failing run of process " + m1[1] + " says goodbye"; fail != "exit" && (!strings.Contains(failed, own) || !strings.Contains(err.Error(), own)) {
					t.Errorf("the failed run's log or error lacks its own line %q:\nerror: %.500s\nlog: %.300s", own, err, failed)
				}
				if !strings.HasSuffix(noisy, "noise of process "+m1[1]+": end\n") || len(noisy) < noise {
					t.Errorf("the noisy run's log has %d bytes and ends %q, want all %d bytes of its noise and its last line", len(noisy), noisy[max(len(noisy)-60, 0):], noise)
				}
			})
		}
	}
}

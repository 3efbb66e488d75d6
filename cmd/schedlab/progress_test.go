package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runner/campaign"
)

// TestProgress feeds the same runs to the terminal bar, to the plain lines
// and to progress on a writer that is not a terminal, and checks what a
// person reads: runs ended out of all, failures, the time left (the bar's
// [elapsed:left]), one line per run otherwise.
func TestProgress(t *testing.T) {
	ok := &campaign.RunResult{Label: "policy=easy", Status: campaign.StatusOK, WallSeconds: 0.5}
	bad := &campaign.RunResult{Label: "policy=crash", Status: campaign.StatusFailed, Error: "plugin process died\nstack", WallSeconds: 0.25}
	old := &campaign.RunResult{Label: "policy=fcfs", Status: campaign.StatusOK, Reused: true}
	events := []campaign.Progress{
		{Total: 4, Done: 1, Reused: 1, Last: old},
		{Total: 4, Done: 2, Reused: 1, Last: ok},
		{Total: 4, Done: 2, Failed: 1, Reused: 1, Last: bad},
	}
	cases := []struct {
		name   string
		show   func(*bytes.Buffer, *campaign.Options) func()
		want   []string // in order
		absent []string
	}{
		{"bar", func(b *bytes.Buffer, o *campaign.Options) func() { return progressBar(b, o) },
			[]string{"(1/4)", "(2/4)", "runs (1 failed)", "(3/4)"}, []string{"[1/4]", "(4/4)"}},
		{"lines", func(b *bytes.Buffer, o *campaign.Options) func() { return progressLines(b, o) },
			[]string{"[1/4] policy=fcfs (0.00 s): done earlier\n", "[2/4] policy=easy (0.50 s): ok\n",
				"[3/4] policy=crash (0.25 s): FAILED\n"}, []string{"plugin process died", "%"}},
		{"not a terminal", func(b *bytes.Buffer, o *campaign.Options) func() { return progress(b, o) },
			[]string{"[1/4]", "[2/4]", "[3/4] policy=crash"}, []string{"(1/4)", "%"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			var opts campaign.Options
			finish := c.show(&b, &opts)
			for _, e := range events {
				opts.Progress(e)
			}
			finish()
			out := b.String()
			rest := out
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q after what came before:\n%q", w, out)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range c.absent {
				if strings.Contains(out, a) {
					t.Errorf("output holds %q:\n%q", a, out)
				}
			}
			if c.name == "bar" {
				// The time left: [elapsed:left], e.g. [0s:0s].
				if !regexp.MustCompile(`\(3/4\) \[\d+s:\d+s\]`).MatchString(out) {
					t.Errorf("no [elapsed:left] after (3/4):\n%q", out)
				}
			}
		})
	}
}

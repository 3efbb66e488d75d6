package manifest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload"
)

// TestFeedback: a workload's feedback and session_threshold are read with
// their defaults, enter the run's spec (and so its key) and the lock only
// when feedback is not none, and bad values name their line and key.
func TestFeedback(t *testing.T) {
	matrix := "[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n"
	with := func(lines string) string {
		return strings.Replace(base, "[workloads.b]", lines+"[workloads.b]", 1) + matrix
	}
	for _, tc := range []struct {
		name, src string
		want      workload.Feedback
		spec      string // in the spec, "" for none
	}{
		{"default", base + matrix, workload.Feedback{Mode: "none"}, ""},
		{"none", with("feedback = \"none\"\n"), workload.Feedback{Mode: "none"}, ""},
		{"swf", with("feedback = \"swf\"\n"), workload.Feedback{Mode: "swf", UnknownWait: "no-end"}, `"feedback":{"feedback":"swf","unknown-wait":"no-end"}`},
		{"sessions", with("feedback = \"sessions\"\n"), workload.Feedback{Mode: "sessions", Threshold: 1200, UnknownWait: "no-end"},
			`"feedback":{"feedback":"sessions","session-threshold":"1200","unknown-wait":"no-end"}`},
		{"sessions, 600 s, waits of 0", with("feedback = \"sessions\"\nsession_threshold = 600\nunknown_wait = \"zero\"\n"),
			workload.Feedback{Mode: "sessions", Threshold: 600, UnknownWait: "zero"},
			`"feedback":{"feedback":"sessions","session-threshold":"600","unknown-wait":"zero"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, runs := mustExpand(t, tc.src)
			if got := m.Workloads["a"].Feedback; got != tc.want {
				t.Errorf("feedback %+v, want %+v", got, tc.want)
			}
			spec := string(runs[0].Spec(m))
			if tc.spec == "" && strings.Contains(spec, "feedback") || tc.spec != "" && !strings.Contains(spec, tc.spec) {
				t.Errorf("spec %s, want %q in it", spec, tc.spec)
			}
			var b bytes.Buffer
			if err := m.WriteLock(&b, "/lab", Lock{Schedlab: "test"}); err != nil {
				t.Fatal(err)
			}
			m2, err := Parse("lock.toml", b.Bytes(), "/lab")
			if err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			if m2.Workloads["a"].Feedback != tc.want || (tc.spec == "") == strings.Contains(b.String(), "feedback") {
				t.Errorf("the lock says %+v:\n%s", m2.Workloads["a"].Feedback, b.String())
			}
		})
	}
	const at = "m.toml:7: workloads.a."
	for _, tc := range []struct{ name, lines, want string }{
		{"unknown mode", "feedback = \"session\"\n", at + `feedback: feedback: value "session": allowed are none, swf, sessions`},
		{"empty mode", "feedback = \"\"\n", at + "feedback: must not be empty"},
		{"threshold without sessions", "feedback = \"swf\"\nsession_threshold = 60\n", "m.toml:8: workloads.a.session_threshold: session-threshold: set under feedback=swf"},
		{"threshold alone", "session_threshold = 60\n", at + "session_threshold: session-threshold: set under feedback=none"},
		{"zero threshold", "feedback = \"sessions\"\nsession_threshold = 0\n", "m.toml:8: workloads.a.session_threshold: must be a positive number of seconds"},
		{"unknown wait without feedback", "unknown_wait = \"zero\"\n", at + "unknown_wait: unknown-wait: set under feedback=none"},
		{"unknown wait's value", "feedback = \"swf\"\nunknown_wait = \"0\"\n", "m.toml:8: workloads.a.unknown_wait: unknown-wait: value \"0\""},
		{"negative threshold", "feedback = \"sessions\"\nsession_threshold = -5\n", "m.toml:8: workloads.a.session_threshold: session-threshold: -5 s"},
	} {
		_, err := parse(t, with(tc.lines))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A stream's window would cut the jobs a dependency names.
	grid := `[campaign]
seed = 7
[workloads.a]
trace = "a.swf"
sha256 = "` + sha + `"
feedback = "sessions"
[policies.p]
ref = "fcfs"
[platforms.g.clusters.x]
procs = 8
[workloads.grid.streams.s]
workload = "a"
home = "x"
[matrix]
workload = ["grid"]
platform = ["g"]
policy = ["p"]
`
	if _, err := parse(t, grid); err == nil || !strings.Contains(err.Error(), `workload "a" has feedback = "sessions", which streams do not take yet`) {
		t.Errorf("a stream of a workload with feedback: %v\n%s", err, grid)
	}
}

package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk/sim"
)

// outagesBase is base with a platform of 4 nodes whose outages table the
// tests write, and a matrix.
func outagesBase(outages string) string {
	return base + "[platforms.m]\n[platforms.m.nodes.n]\ncount = 4\ncores = 2\n[platforms.m.outages]\n" + outages +
		"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\nplatform = [\"m\"]\n"
}

// TestOutageSettings reads an outages table with every setting, and
// checks that the settings are in the run's spec (and key) and that the
// outage seed is shared by the policies of a replicate.
func TestOutageSettings(t *testing.T) {
	m, runs := mustExpand(t, outagesBase(`on_failure = "requeue"
requeue = "last"
maintenance = "soft"
failure_model = "weibull"
mtbf = "30d"
weibull_shape = 0.7
repair = "fixed"
mttr = "4h"
[[platforms.m.outages.windows]]
start = "1d"
duration = "2h"
every = "7d"
nodes = [0, "2-3"]
[[platforms.m.outages.drains]]
start = 3600
nodes = [1]
`))
	s := m.Platforms["m"].Outages
	if s == nil || s.Faults != (sim.Faults{OnFailure: sim.FailRequeue, LosePlace: true, Maintenance: sim.MaintenanceSoft}) ||
		s.Model != "weibull" || s.MTBF != 30*86400 || s.Shape != 0.7 || s.Repair != "fixed" || s.MTTR != 4*3600 {
		t.Fatalf("settings %+v", s)
	}
	if w := s.Windows[0]; w.Start != 86400 || w.Duration != 7200 || w.Every != 7*86400 || len(w.Nodes) != 3 || w.Nodes[1] != 2 {
		t.Errorf("window %+v", w)
	}
	if d := s.Drains[0]; d.Start != 3600 || d.End != sim.MaxTime || len(d.Nodes) != 1 {
		t.Errorf("drain %+v", d)
	}
	spec := string(runs[0].Spec(m))
	for _, want := range []string{`"outages":{`, `"model":"weibull"`, `"requeue":"last"`, `"maintenance":"soft"`, `"mtbf":2592000`} {
		if !strings.Contains(spec, want) {
			t.Errorf("spec %s lacks %s", spec, want)
		}
	}
	if runs[0].Seeds(m).Outages == 0 {
		t.Error("no outage seed")
	}
}

// TestCheckpointSettings reads the checkpointing settings: a fixed
// interval, and Daly's from the model's MTBF or checkpoint_mtbf.
func TestCheckpointSettings(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want sim.Checkpoint
	}{
		{"on_failure = \"checkpoint\"\ncheckpoint_interval = \"1h\"\ncheckpoint_cost = \"5m\"\nrestart_cost = 90\n",
			sim.Checkpoint{Rule: sim.IntervalFixed, Interval: 3600, Cost: 300, Restart: 90}},
		{"on_failure = \"checkpoint\"\ncheckpoint_interval = \"daly\"\ncheckpoint_cost = 60\nfailure_model = \"exponential\"\nmtbf = \"10d\"\nmttr = 60\n",
			sim.Checkpoint{Rule: sim.IntervalDaly, Cost: 60, MTBF: 864000}},
		{"on_failure = \"checkpoint\"\ncheckpoint_interval = \"young\"\ncheckpoint_mtbf = \"1d\"\n",
			sim.Checkpoint{Rule: sim.IntervalYoung, MTBF: 86400}},
	} {
		m, runs := mustExpand(t, outagesBase(tc.src))
		if got := m.Platforms["m"].Outages.Faults.Checkpoint; got != tc.want {
			t.Errorf("%q: checkpoint %+v, want %+v", tc.src, got, tc.want)
		}
		if !strings.Contains(string(runs[0].Spec(m)), `"checkpoint":{`) {
			t.Errorf("%q: the spec has no checkpoint", tc.src)
		}
	}
}

// TestOutageErrors checks that each bad outage setting is refused, naming
// the file, line and key.
func TestOutageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("node,down,up\n1,10,20\n9,5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte("node,down,up\n1,10,20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badPQ := filepath.Join(dir, "bad.parquet")
	cols := []results.Column{{Name: "node", Kind: results.Int64}, {Name: "down", Kind: results.Int64}, {Name: "up", Kind: results.Int64}}
	if err := results.WriteTable(badPQ, cols, [][]any{{1, 10, 20}, {1, 15, 25}}, nil); err != nil {
		t.Fatal(err)
	}
	floatPQ := filepath.Join(dir, "float.parquet")
	if err := results.WriteTable(floatPQ, []results.Column{cols[0], cols[1], {Name: "up", Kind: results.Float64}}, [][]any{{1, 10, 20.5}}, nil); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(base, "\n") + 6 // the first line of the outages table's settings
	at := func(k int) string { return "m.toml:" + strconv.Itoa(line+k) + ": platforms.m.outages" }
	for _, tc := range []struct{ name, src, want string }{
		{"weibull shape", "failure_model = \"weibull\"\nmtbf = \"30d\"\nweibull_shape = 0\nmttr = 60\n", "weibull_shape must be positive"},
		{"unknown model", "failure_model = \"gamma\"\nmtbf = 5\nmttr = 5\n", "failure_model \"gamma\""},
		{"negative window", "[[platforms.m.outages.windows]]\nstart = 5\nduration = -3\n", "is negative"},
		{"unknown node", "[[platforms.m.outages.windows]]\nstart = 5\nduration = 3\nnodes = [7]\n", "node 7"},
		{"bad on_failure", "on_failure = \"retry\"\n", at(0) + ".on_failure: on_failure \"retry\""},
		{"requeue without requeueing", "requeue = \"last\"\n", at(0) + ".requeue: is a setting of on_failure = \"requeue\""},
		{"bad time", "failure_model = \"exponential\"\nmtbf = \"30 fortnights\"\nmttr = 5\n", "unknown unit"},
		{"model settings without a model", "mtbf = \"30d\"\n", at(0) + ".mtbf: is a setting of a failure_model"},
		{"checkpoint without interval", "on_failure = \"checkpoint\"\n", "needs checkpoint_interval"},
		{"young without mtbf", "on_failure = \"checkpoint\"\ncheckpoint_interval = \"young\"\n", "young's rule needs a node's mean time between failures"},
		{"checkpoint settings without checkpointing", "checkpoint_cost = 60\n", at(0) + ".checkpoint_cost: is a setting of on_failure = \"checkpoint\""},
		{"failure file", "failures_file = " + strconv.Quote(bad) + "\n", "line 3: node 9"},
		{"parquet failure file", "failures_file = " + strconv.Quote(badPQ) + "\n", at(0) + ".failures_file: " + badPQ + ": row 2: node 1 fails at 15 while down since row 1"},
		{"parquet failure file of floats", "failures_file = " + strconv.Quote(floatPQ) + "\n", at(0) + ".failures_file: " + floatPQ + ": column \"up\" is float64"},
		{"failure horizon without a model", "failure_horizon = \"30d\"\n", at(0) + ".failure_horizon: is a setting of a failure_model"},
		{"failure horizon of 0", "failure_model = \"exponential\"\nmtbf = 5\nmttr = 5\nfailure_horizon = 0\n", ".failure_horizon: want \"jobs\" or a time of at least 1 s"},
		{"failure horizon not a time", "failure_model = \"exponential\"\nmtbf = 5\nmttr = 5\nfailure_horizon = \"forever\"\n", ".failure_horizon: \"forever\" is not a time"},
		{"file and model", "failures_file = " + strconv.Quote(good) + "\nfailure_model = \"exponential\"\nmtbf = 5\nmttr = 5\n", "not both"},
		{"failure file sha256", "failures_file = " + strconv.Quote(bad) + "\nfailures_sha256 = \"" + sha + "\"\n", "failures_sha256: the file's sha256 is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, outagesBase(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	_, err := parse(t, base+"[platforms.pool]\nprocs = 8\n[platforms.pool.outages]\non_failure = \"kill\"\n[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n")
	if err == nil || !strings.Contains(err.Error(), "platforms.pool.outages: outages are of nodes") {
		t.Errorf("outages on a pool: %v", err)
	}
}

// TestParquetFailuresFile reads a manifest whose failures_file is Parquet:
// the run's spec holds the sha256 of its bytes, and failures_sha256 is
// checked against it as for CSV.
func TestParquetFailuresFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.parquet")
	cols := []results.Column{{Name: "node", Kind: results.Int64}, {Name: "down", Kind: results.Int64}, {Name: "up", Kind: results.Int64}}
	if err := results.WriteTable(path, cols, [][]any{{3, 10, 20}, {3, 20, 40}}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	want := hex.EncodeToString(sum[:])
	for _, tc := range []struct{ name, given, err string }{
		{"without sha256", "", ""},
		{"right sha256", want, ""},
		{"wrong sha256", sha, "failures_sha256: the file's sha256 is " + want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "failures_file = " + strconv.Quote(path) + "\n"
			if tc.given != "" {
				src += "failures_sha256 = " + strconv.Quote(tc.given) + "\n"
			}
			if tc.err != "" {
				if _, err := parse(t, outagesBase(src)); err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			m, runs := mustExpand(t, outagesBase(src))
			if s := m.Platforms["m"].Outages; s.File != path || s.FileSHA256 != want {
				t.Errorf("file %q sha256 %s, want %s", s.File, s.FileSHA256, want)
			}
			if spec := string(runs[0].Spec(m)); !strings.Contains(spec, `"failures_sha256":"`+want+`"`) {
				t.Errorf("spec %s lacks the file's sha256", spec)
			}
		})
	}
}

// TestFailureHorizonSetting checks that failure_horizon is in the run's
// spec when it is a time, and that "jobs", the default, leaves the spec
// (and so the run key) what it is without the setting.
func TestFailureHorizonSetting(t *testing.T) {
	model := "failure_model = \"exponential\"\nmtbf = \"10d\"\nmttr = \"1h\"\n"
	spec := func(extra string) (string, int64) {
		m, runs := mustExpand(t, outagesBase(model+extra))
		return string(runs[0].Spec(m)), m.Platforms["m"].Outages.Horizon
	}
	def, h0 := spec("")
	jobs, h1 := spec("failure_horizon = \"jobs\"\n")
	long, h2 := spec("failure_horizon = \"60d\"\n")
	if def != jobs || h0 != 0 || h1 != 0 || strings.Contains(def, "failure_horizon") {
		t.Errorf("default spec %s (horizon %d), with \"jobs\" %s (%d)", def, h0, jobs, h1)
	}
	if h2 != 60*86400 || !strings.Contains(long, `"failure_horizon":5184000,`) || long == def {
		t.Errorf("spec with 60d: %s (horizon %d)", long, h2)
	}
}

package doctest

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// checkBenchCounts reruns `schedlab groupsel bench` with the settings a
// committed bench file records and checks that every solve's counted work
// (paths, cuts, nodes, term evaluations) and answer are the file's: the
// write-up's claims rest on these counts, and the times beside them are a
// record of one run.
func checkBenchCounts(t *testing.T, file string) {
	t.Helper()
	cols, want, meta, err := results.ReadTable(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(file))
	args := []string{"groupsel", "bench", "--out", out,
		"--terms", strings.Join(strings.Fields(strings.Trim(meta["table1.terms"], "[]")), ","), "--instances", meta["table1.instances"],
		"--vars", meta["table1.vars"], "--degree", meta["table1.degree"], "--constraints", meta["table1.constraints"],
		"--capacity", meta["table1.capacity"], "--seed", meta["table1.seed"],
		"--workers", strings.ReplaceAll(strings.Trim(meta["table1.workers"], "[]"), " ", ","), "--use", meta["table1.use"]}
	if meta["table1.shared"] == "false" {
		args = append(args, "--separate-terms")
	}
	if o, err := run(t, args...); err != nil {
		t.Fatalf("schedlab %s: %v\n%s", strings.Join(args, " "), err, o)
	}
	_, got, _, err := results.ReadTable(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: the rerun has %d solves, the file %d", file, len(got), len(want))
	}
	for i := range want {
		for j, c := range cols {
			switch c.Name {
			case "ns":
				continue // the time, not repeated by a rerun
			}
			if !reflect.DeepEqual(got[i][j], want[i][j]) {
				t.Errorf("%s, solve %d: %s %v in the rerun, %v in the file", filepath.Base(file), i, c.Name, got[i][j], want[i][j])
			}
		}
	}
	t.Logf("%s: %d solves rerun, counts equal", filepath.Base(file), len(want))
}

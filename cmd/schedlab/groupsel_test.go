package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

const (
	mknap1   = "../../groupsel/mknap/testdata/mknap1.txt"
	mknapcb1 = "../../groupsel/mknap/testdata/mknapcb1.txt"
	mkcbres  = "../../groupsel/mknap/testdata/mkcbres.txt"
)

// TestGroupselSolve solves OR-Library's mknap1 with both methods and an OPB
// file, and checks the exit status of bad and infeasible input.
func TestGroupselSolve(t *testing.T) {
	for _, args := range [][]string{
		{"groupsel", "solve", mknap1, "--method", "bnb", "--json"},
		{"groupsel", "solve", mknap1, "--method", "rank", "--workers", "2", "--instance", "4", "--json"},
	} {
		out, err := run(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		var got []solved
		if !strings.HasPrefix(out, "[") {
			var one solved
			if err := json.Unmarshal([]byte(out), &one); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			got = []solved{one}
		} else if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		for _, s := range got {
			if s.Matches == nil || !*s.Matches || len(s.Selected) == 0 || s.Selected[0] < 1 {
				t.Errorf("%v: problem %d: %+v", args, s.Instance, s)
			}
		}
		if args[4] == "bnb" && len(got) != 7 {
			t.Errorf("%d problems solved, want 7", len(got))
		}
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// max 3 x1 x2 + 2 x3 with x1 + x2 + x3 <= 2: x1 x2 (3) beats x3 (2).
	good := write("g.opb", "max: +3 x1 x2 +2 x3 ;\n+1 x1 +1 x2 +1 x3 <= 2 ;\n")
	out, err := run(t, "groupsel", "solve", good)
	if err != nil || !strings.Contains(out, "value 3, selected x1 x2") {
		t.Errorf("opb: %v\n%s", err, out)
	}
	bad := write("b.opb", "max: +3 x1 ;\n+1 x1 >= one ;\n")
	if out, err := run(t, "groupsel", "solve", bad); exitCode(err) != exitBadInput || !strings.Contains(out, "b.opb:2: bound \"one\"") {
		t.Errorf("malformed: exit %d\n%s", exitCode(err), out)
	}
	// Stopped at a limit: the best selection found, printed with its bound
	// and gap, which hold the published optimum; the exit status says the
	// answer is not proved.
	for _, args := range [][]string{
		{"groupsel", "solve", mknap1, "--instance", "7", "--method", "bnb", "--max-nodes", "1000"},
		{"groupsel", "solve", mknap1, "--instance", "5", "--method", "rank", "--max-paths", "1000"},
	} {
		out, err := run(t, append(args, "--json")...)
		var s solved
		if exitCode(err) != exitRunsFailed || json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &s) != nil {
			t.Fatalf("%v: exit %d\n%s", args, exitCode(err), out)
		}
		if s.Optimal || s.Optimum == nil || !(s.Value <= *s.Optimum && *s.Optimum <= s.Bound) || s.Gap != s.Bound-s.Value || len(s.Selected) == 0 {
			t.Errorf("%v: %+v: want a selection not proved optimal, its bound and gap holding the published optimum", args, s)
		}
		if out, _ := run(t, args...); !strings.Contains(out, "stopped at its limit") || !strings.Contains(out, "within the value and the bound") {
			t.Errorf("%v prints\n%s", args, out)
		}
	}
	// mknapcb1 states no optimum: --best sets OR-Library's best known value
	// and LP bound beside the answer, and says the best known value lies
	// between the value and the bound; a problem the results file does not
	// name, or a file that is not one, is bad input.
	out, err = run(t, "groupsel", "solve", mknapcb1, "--instance", "2", "--method", "bnb", "--max-nodes", "1000", "--best", mkcbres, "--json")
	var s solved
	if exitCode(err) != exitRunsFailed || json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &s) != nil {
		t.Fatalf("mknapcb1 --best: exit %d\n%s", exitCode(err), out)
	}
	if s.Best == nil || *s.Best != 24274 || s.LP == nil || s.Within == nil || !*s.Within || !(s.Value <= *s.Best && *s.Best <= s.Bound && s.Bound >= *s.LP) {
		t.Errorf("mknapcb1 --best: %+v", s)
	}
	for _, c := range []struct{ file, best, want string }{
		{mknap1, mkcbres, "no best value for 10.10-01"},
		{mknapcb1, mknap1, "mknap1.txt:125: no problem's value"},
		{good, mkcbres, "is not an mknap file"},
	} {
		if out, err := run(t, "groupsel", "solve", c.file, "--best", c.best, "--instance", "2", "--method", "bnb", "--max-nodes", "10"); exitCode(err) != exitBadInput || !strings.Contains(out, c.want) {
			t.Errorf("%s --best %s: exit %d\n%s", c.file, c.best, exitCode(err), out)
		}
	}
	infeasible := write("i.opb", "+1 x1 +1 x2 >= 3 ;\n")
	if out, err := run(t, "groupsel", "solve", infeasible); exitCode(err) != exitRunsFailed || !strings.Contains(out, "no selection satisfies the constraints") {
		t.Errorf("infeasible: exit %d\n%s", exitCode(err), out)
	}
}

// TestGroupselBench runs a small Table 1 benchmark: a row per solve, every
// rank solve agreeing with the branch and bound, the paper's times beside.
func TestGroupselBench(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t1.parquet")
	out, err := run(t, "groupsel", "bench", "--terms", "50,60", "--instances", "2", "--vars", "12", "--degree", "12", "--workers", "1,3", "--out", path)
	if err != nil || !strings.Contains(out, "agrees with the branch and bound (value and selection) on 8 of 8 solves") || !strings.Contains(out, "0.05") {
		t.Fatalf("%v\n%s", err, out)
	}
	cols, rows, meta, err := results.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*2*3 || len(cols) != 14 || meta["table1.vars"] != "12" || meta["schedlab.version"] == "" {
		t.Errorf("%d rows, %d columns, meta %v", len(rows), len(cols), meta)
	}
}

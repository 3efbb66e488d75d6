package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestWorkloadGenModelFile draws traces from a fitted model given as the
// argument of `schedlab workload gen`, as the shorthand of --model model
// --param path=FILE with the model's platform size, and checks the bad
// combinations.
func TestWorkloadGenModelFile(t *testing.T) {
	const model = "../../experiments/petunin-models/kth-model.toml" // fitted on KTH-SP2, 100 processors
	long, err := run(t, "workload", "gen", "--model", "model", "--param", "path="+model, "--param", "jobs=200", "--procs", "100", "--seed", "5")
	if err != nil {
		t.Fatalf("%v\n%s", err, long)
	}
	cases := []struct {
		name     string
		args     []string
		code     int
		same     bool   // the output is the long form's
		contains string // in the output
	}{
		{"model file", []string{model, "--param", "jobs=200", "--seed", "5"}, exitOK, true, "; MaxProcs: 100"},
		{"model file, --model model", []string{model, "--model", "model", "--param", "jobs=200", "--seed", "5"}, exitOK, true, "; MaxProcs: 100"},
		{"model file, --procs", []string{model, "--param", "jobs=200", "--seed", "5", "--procs", "64"}, exitOK, false, "; MaxProcs: 64"},
		{"model file, other seed", []string{model, "--param", "jobs=200", "--seed", "6"}, exitOK, false, "; MaxJobs: 200"},
		{"--model model, no --procs", []string{"--model", "model", "--param", "path=" + model, "--param", "jobs=200", "--seed", "5"}, exitOK, true, "; MaxProcs: 100"},
		{"model file and another model", []string{model, "--model", "mazalov2012"}, exitBadInput, false, "give one"},
		{"model file and a path", []string{model, "--param", "path=" + model}, exitBadInput, false, "give one"},
		{"missing model file", []string{"no-such-model.toml"}, exitBadInput, false, "no-such-model.toml"},
		{"mazalov2012 keeps 64", []string{"--param", "jobs=10"}, exitOK, false, "; MaxProcs: 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, append([]string{"workload", "gen"}, c.args...)...)
			if code := exitCode(err); code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			if c.same != (out == long) {
				t.Errorf("same output as the long form: %v, want %v\n%.600s", out == long, c.same, out)
			}
			if !strings.Contains(out, c.contains) {
				t.Errorf("output lacks %q:\n%.600s", c.contains, out)
			}
		})
	}
}

// TestWorkloadsDoc runs the campaign of docs/workloads.md and checks that
// every block the doc marks as a command's output is what the command
// prints now.
func TestWorkloadsDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no campaign")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "workloads.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "c")
	if out, err := run(t, "run", "../../experiments/lublin-estimates/campaign.toml", "--out", dir, "-q"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := docOutputs(t, doc, ".", map[string]string{"out/lublin-estimates": dir}); n != 2 {
		t.Fatalf("%d command outputs in docs/workloads.md, want 2", n)
	}
}

// docOutputs runs every command a doc marks with <!-- output of: schedlab
// ARGS --> or <!-- excerpt of: schedlab ARGS --> before a text block, in
// the folder dir, and checks that the command prints the block (output
// of) or prints it among other lines (excerpt of). Each key of subst found
// in ARGS is replaced by its value (a test's own folders), and each value
// found in the output by its key again. It returns the number of blocks.
func docOutputs(t *testing.T, doc []byte, dir string, subst map[string]string) int {
	t.Helper()
	blocks := regexp.MustCompile("(?s)<!-- (output|excerpt) of: schedlab ([^>]*) -->\n```text\n(.*?)\n```").FindAllStringSubmatch(string(doc), -1)
	trim := func(s string) string {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
		return strings.Join(lines, "\n")
	}
	outputs := map[string]string{} // by command line: excerpts of one command run it once
	for _, b := range blocks {
		got, ok := outputs[b[2]]
		if !ok {
			args := strings.Fields(b[2])
			for i := range args {
				for k, v := range subst {
					args[i] = strings.ReplaceAll(args[i], k, v)
				}
			}
			cmd := exec.Command(schedlab, args...)
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					t.Fatalf("schedlab %s: %v\n%s", b[2], err, ee.Stderr)
				}
				t.Fatalf("schedlab %s: %v", b[2], err)
			}
			got = string(out)
			for k, v := range subst {
				got = strings.ReplaceAll(got, v, k)
			}
			outputs[b[2]] = got
		}
		got, want := trim(got), trim(b[3])
		// An excerpt is whole lines of the output.
		if b[1] == "output" && got != want || b[1] == "excerpt" && !strings.Contains("\n"+got+"\n", "\n"+want+"\n") {
			t.Errorf("schedlab %s prints\n%s\nthe doc says (%s)\n%s", b[2], got, b[1], want)
		}
	}
	return len(blocks)
}

// TestKovalenkoDoc runs the seven campaigns of paper 003 and checks that
// the tables of docs/reproductions/kovalenko2006.md are the summarize
// program's output, number for number.
func TestKovalenkoDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no campaign")
	}
	doc := reproductionDoc(t, "kovalenko2006")
	dir := t.TempDir()
	for _, c := range []string{"grid", "price", "ship", "stale", "budget", "contention", "pooled"} {
		name := "kovalenko2006"
		if c != "grid" {
			name += "-" + c
		}
		if out, err := run(t, "run", "../../experiments/kovalenko2006/"+c+".toml", "--out", filepath.Join(dir, name), "-q"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	docTables(t, doc, 8, "../../experiments/kovalenko2006/summarize", "-dir", dir)
}

// reproductionDoc reads docs/reproductions/NAME.md.
func reproductionDoc(t *testing.T, name string) []byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "reproductions", name+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// docTables runs a summarize program with args and checks that it prints
// n tables, each of them in doc as it is.
func docTables(t *testing.T, doc []byte, n int, args ...string) {
	t.Helper()
	out, err := exec.Command("go", append([]string{"run"}, args...)...).Output()
	if err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	tables := regexp.MustCompile(`(?m)(^\|.*\n\|[-| :]*\n(?:^\|.*\n)+)`).FindAllString(string(out), -1)
	if len(tables) != n {
		t.Fatalf("%d tables in the output of %s, want %d:\n%s", len(tables), args[0], n, out)
	}
	for _, tb := range tables {
		if !strings.Contains(string(doc), tb) {
			t.Errorf("the write-up lacks the table\n%s", tb)
		}
	}
}

// TestMazalovDoc runs the nine campaigns of paper 000 (about 20 s) and checks
// that every table of docs/reproductions/mazalov2012.md that its summarize
// program prints is in the write-up, number for number.
func TestMazalovDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no campaign")
	}
	doc := reproductionDoc(t, "mazalov2012")
	dir := t.TempDir()
	for _, c := range []string{"table", "table-request", "tau", "p", "te", "readings", "fig3", "lambda", "streams"} {
		if out, err := run(t, "run", "../../experiments/mazalov2012/"+c+".toml", "--out", filepath.Join(dir, c), "-q"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	docTables(t, doc, 10, "../../experiments/mazalov2012/summarize", "-campaigns", dir, "-figures", t.TempDir())
}

// TestPetuninDoc runs the campaign of paper 002 (about 5 s) and every
// command whose output docs/reproductions/petunin-models.md shows, from the
// repository root, and checks that the committed models are what
// `workload fit` writes now.
func TestPetuninDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no campaign")
	}
	root := filepath.Join("..", "..")
	doc := reproductionDoc(t, "petunin-models")
	dir := t.TempDir()
	campaign := exec.Command(schedlab, "run", "experiments/petunin-models/kth.toml", "--out", filepath.Join(dir, "kth"), "-q")
	campaign.Dir = root
	if out, err := campaign.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The models go to a folder of their own: no path to them starts with
	// the campaign's, which the outputs are searched for.
	models := []string{"kth-model.toml", "kth-mean-model.toml", "kth-work-model.toml", "kth-limit-model.toml"}
	if err := os.Mkdir(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	subst := map[string]string{"out/petunin-models/kth": filepath.Join(dir, "kth")}
	for _, m := range models {
		subst["experiments/petunin-models/"+m] = filepath.Join(dir, "models", m)
	}
	if n := docOutputs(t, doc, root, subst); n != 9 {
		t.Errorf("%d command outputs in the write-up, want 9", n)
	}
	for _, m := range models {
		want, err := os.ReadFile(filepath.Join(root, "experiments", "petunin-models", m))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "models", m)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("experiments/petunin-models/%s is not what workload fit writes now (%v)", m, err)
		}
	}
}

// TestKopanskiDoc checks that every table the summarize program of paper
// 004 prints from the two campaigns' runs.parquet is in
// docs/reproductions/kopanski2021.md. The campaigns take half an hour on 2
// cores, so it reads the copies of their runs.parquet committed in
// experiments/kopanski2021/runs (see its README); the table of wait
// quantiles, which needs the jobs files, is not checked here.
func TestKopanskiDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc := reproductionDoc(t, "kopanski2021")
	dir := t.TempDir()
	for _, c := range []string{"kth", "parts"} {
		b, err := os.ReadFile(filepath.Join(root, "experiments", "kopanski2021", "runs", c+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, c), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c, "runs.parquet"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docTables(t, doc, 7, "../../experiments/kopanski2021/summarize", "-campaigns", dir, "-jobs=false")
}

// TestOwnTraceSHA256: a manifest whose trace has no sha256 exits 2 with the
// trace's digest as the line to paste, which `schedlab workload hash`
// prints too; pasted, the manifest runs.
func TestOwnTraceSHA256(t *testing.T) {
	dir := t.TempDir()
	trace, err := filepath.Abs(filepath.Join("..", "..", "experiments", "data", "NASA-iPSC-1993-3.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	const want = `sha256 = "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76"`
	manifest := filepath.Join(dir, "m.toml")
	src := "[campaign]\nseed = 1\n[workloads.mine]\ntrace = " + strconv.Quote(trace) + "\n[policies.easy]\nref = \"easy\"\n[matrix]\nworkload = [\"mine\"]\npolicy = [\"easy\"]\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "run", manifest)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "m.toml:3: workloads.mine: a trace needs its sha256") ||
		!strings.Contains(out, "add the line "+want) || !strings.Contains(out, "schedlab workload hash "+trace) {
		t.Errorf("a trace without sha256: exit %d\n%s", exitCode(err), out)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Errorf("the campaign folder was created")
	}
	hash, err := run(t, "workload", "hash", trace)
	if err != nil || hash != want+"  # "+trace+"\n" {
		t.Errorf("workload hash: %v\n%s", err, hash)
	}
	pasted := strings.Replace(src, "[policies.easy]", want+"\n[policies.easy]", 1)
	if err := os.WriteFile(manifest, []byte(pasted), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "expand", manifest); err != nil {
		t.Errorf("the manifest with the line pasted: %v\n%s", err, out)
	}
}

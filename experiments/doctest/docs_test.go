package doctest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/tracedata"
)

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

// TestKovalenkoDoc runs the thirteen campaigns of paper 003 (one worker, about
// 16 minutes) and checks that the tables of docs/reproductions/kovalenko2006.md
// are the summarize program's output, number for number, from the folder
// of campaigns and from one campaign folder.
func TestKovalenkoDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no campaign")
	}
	doc := reproductionDoc(t, "kovalenko2006")
	dir := t.TempDir()
	for _, c := range []string{"grid", "price", "ship", "stale", "budget", "contention", "pooled", "cycle", "computers", "clusterc", "bite", "passes", "features"} {
		name := "kovalenko2006"
		if c != "grid" {
			name += "-" + c
		}
		if out, err := run(t, "run", "../../experiments/kovalenko2006/"+c+".toml", "--out", filepath.Join(dir, name), "-q", "-j", "1"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	docTables(t, doc, 21, "../../experiments/kovalenko2006/summarize", "-dir", dir)
	// Given one campaign folder, the program groups its runs by the axes
	// that vary (here the policy) and prints the same two tables.
	docTables(t, doc, 2, "../../experiments/kovalenko2006/summarize", "-campaign", filepath.Join(dir, "kovalenko2006-contention"))
}

// committedRuns lays out the committed copies runs/NAME.parquet of
// campaigns' runs.parquet as campaign folders NAME/runs.parquet in a
// temporary folder, which it returns, for a summarize program to read.
func committedRuns(t *testing.T, runs string, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range names {
		b, err := os.ReadFile(filepath.Join(runs, c+".parquet"))
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
	return dir
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
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s: %v\n%s", args[0], err, ee.Stderr)
		}
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

// TestMazalovDoc runs the eleven campaigns of paper 000 (about 4 minutes
// on one core, most of it load.toml's busy machines) and checks that every
// table of docs/reproductions/mazalov2012.md that its summarize program
// prints is in the write-up, number for number.
func TestMazalovDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no campaign")
	}
	doc := reproductionDoc(t, "mazalov2012")
	dir := t.TempDir()
	for _, c := range []string{"table", "table-request", "tau", "p", "te", "readings", "fig3", "lambda", "streams", "headline", "load"} {
		if out, err := run(t, "run", "../../experiments/mazalov2012/"+c+".toml", "--out", filepath.Join(dir, c), "-q", "-j", "1"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	docTables(t, doc, 15, "../../experiments/mazalov2012/summarize", "-campaigns", dir, "-figures", t.TempDir())
}

// TestPetuninDoc runs the campaign of paper 002 and every command whose
// output docs/reproductions/petunin-models.md shows, from the repository
// root, checks that the committed models are what `workload fit` writes
// now, and that the tables of the load program (the offered load of 100
// traces per model) are in the write-up: about a minute on 2 cores.
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
	docTables(t, doc, 2, "../../experiments/petunin-models/load", "-C", root, "-seeds", "100")
}

// TestPetuninEndingsDoc checks the tables of
// docs/reproductions/petunin-models.md on how jobs end near their limit,
// which the endings program prints from KTH-SP2 (shipped) and three logs of
// the real traces (CEA-Curie, HPC2N, SDSC-BLUE; skipped without them,
// failed under CI).
func TestPetuninEndingsDoc(t *testing.T) {
	doc := reproductionDoc(t, "petunin-models")
	args := []string{"../../experiments/petunin-models/endings", "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz"}
	for _, f := range []string{"CEA-Curie-2011-2.1-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"} {
		p, err := tracedata.Path(f)
		if errors.Is(err, tracedata.ErrNotFound) && os.Getenv("CI") == "" {
			t.Skipf("real traces not available: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	docTables(t, doc, 2, args...)
}

// TestKopanskiDoc checks that every table the summarize program of paper
// 004 prints from the four campaigns' runs.parquet (allocation only and
// with I/O, the whole log and the 16 parts) is in
// docs/reproductions/kopanski2021.md. The campaigns take half an hour on 2
// cores, so it reads the copies of their runs.parquet committed in
// experiments/kopanski2021/runs (see its README); the table of wait
// quantiles, which needs the jobs files, is not checked here.
func TestKopanskiDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc := reproductionDoc(t, "kopanski2021")
	dir := committedRuns(t, filepath.Join(root, "experiments", "kopanski2021", "runs"), "kth", "parts", "io", "parts-io")
	docTables(t, doc, 13, "../../experiments/kopanski2021/summarize", "-campaigns", dir, "-jobs=false")
}

// TestPoolVsNodesDoc checks that every table of docs/pool-vs-nodes.md that
// its summarize program prints from the committed runs.parquet files is in
// the page, number for number (the campaigns take about 12 minutes).
func TestPoolVsNodesDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "pool-vs-nodes.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := committedRuns(t, filepath.Join(root, "experiments", "pool-vs-nodes", "runs"), "blue", "thunder", "ricc", "curie")
	docTables(t, doc, 5, "../../experiments/pool-vs-nodes/summarize", "-campaigns", dir)
}

// TestOutagesDoc checks the tables of docs/outages.md: the summarize
// program of experiments/outages on the committed runs.parquet files of
// its two campaigns.
func TestOutagesDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "outages.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := committedRuns(t, filepath.Join(root, "experiments", "outages", "runs"), "failures", "maintenance")
	docTables(t, doc, 2, "../../experiments/outages/summarize", "-campaigns", dir)
}

// TestFeedbackDoc checks the tables of docs/feedback.md: the summarize
// program of experiments/feedback on the committed runs.parquet of its
// campaign (about 4 minutes on one worker).
func TestFeedbackDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "feedback.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := committedRuns(t, filepath.Join(root, "experiments", "feedback", "runs"), "open-closed")
	docTables(t, doc, 4, "../../experiments/feedback/summarize", "-runs", filepath.Join(dir, "open-closed", "runs.parquet"))
}

// TestEnergyDoc checks the tables of docs/energy.md: the summarize
// program of experiments/energy on the committed runs.parquet files of its
// two campaigns.
func TestEnergyDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "energy.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := committedRuns(t, filepath.Join(root, "experiments", "energy", "runs"), "idle", "cap")
	docTables(t, doc, 3, "../../experiments/energy/summarize",
		"-idle", filepath.Join(dir, "idle", "runs.parquet"), "-cap", filepath.Join(dir, "cap", "runs.parquet"))
}

// TestFairshareDoc checks the tables of docs/fairshare.md against the
// committed outputs of experiments/fairshare/hpc2n.toml: its runs.parquet
// and the per-user sums of its jobs files (runs/README.md).
func TestFairshareDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "fairshare.md"))
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(root, "experiments", "fairshare", "runs")
	dir := committedRuns(t, runs, "hpc2n")
	docTables(t, doc, 3, "../../experiments/fairshare/summarize",
		"-runs", filepath.Join(dir, "hpc2n", "runs.parquet"), "-users", filepath.Join(runs, "users.csv"))
}

// TestMinukhinDoc checks the tables of docs/reproductions/minukhin2010.md
// that do not need the Table 1 grid (minutes of solving): the sweeps over
// the number of variables and over the capacity, from the copies of their
// Parquet files committed in experiments/minukhin2010/runs (timings are a
// record, not something a rerun repeats; the capacity sweep and the terms
// at capacity 0.02 are rerun here, about 25 s, and their counted work must
// be the copies'), the growth along the terms per capacity, mknapcb1 at
// 100,000 nodes per problem (about 4 s), the waits on KTH-SP2, from
// the campaign kth-waits.toml run here (about 5 s, deterministic), and the
// outputs of the two runs over 40 jobs that show the search's limit and
// its counts (about 10 s).
func TestMinukhinDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no campaign")
	}
	root := filepath.Join("..", "..")
	doc := reproductionDoc(t, "minukhin2010")
	dir := t.TempDir()
	var files []string
	for _, pat := range []string{"vars-*.parquet", "capsweep-*.parquet", "terms-*.parquet"} {
		fs, err := filepath.Glob(filepath.Join(root, "experiments", "minukhin2010", "runs", pat))
		if err != nil || len(fs) == 0 {
			t.Fatalf("no committed %s (%v)", pat, err)
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "capsweep-") || filepath.Base(f) == "terms-0.02.parquet" {
			checkBenchCounts(t, f)
		}
	}
	if out, err := run(t, "run", "../../experiments/minukhin2010/kth-waits.toml", "--out", filepath.Join(dir, "kth-waits"), "-q"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	docTables(t, doc, 7, "../../experiments/minukhin2010/summarize", "-dir", dir,
		"-mknapcb", "../../groupsel/mknap/testdata/mknapcb1.txt", "-best", "../../groupsel/mknap/testdata/mkcbres.txt", "-max-nodes", "100000")
	if n := docOutputs(t, doc, root, nil); n != 4 {
		t.Errorf("%d command outputs in the write-up, want 4", n)
	}
}

// TestPrioritiesDoc checks the tables of docs/priorities.md: the summarize
// program of experiments/priorities on the committed runs.parquet of its
// two campaigns (schedlab's orders, and RLScheduler's artefact's scheduler
// copied in Python) and the runs' spans to their last start
// (runs/README.md).
func TestPrioritiesDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "priorities.md"))
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(root, "experiments", "priorities", "runs")
	dir := committedRuns(t, runs, "campaign", "artefact")
	docTables(t, doc, 12, "../../experiments/priorities/summarize",
		"-runs", filepath.Join(dir, "campaign", "runs.parquet"), "-artefact", filepath.Join(dir, "artefact", "runs.parquet"),
		"-spans", filepath.Join(runs, "spans.csv"))
}

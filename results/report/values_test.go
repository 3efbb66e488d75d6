package report

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/runner/manifest"
)

// TestValueColours: a value's colour follows its name, not its position or
// the other values, unless two names of one report hash alike; the values
// of one report get distinct colours while the palette lasts.
func TestValueColours(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets [][]string // reports holding easy
	}{
		{"order", [][]string{{"fcfs", "easy", "conservative"}, {"conservative", "fcfs", "easy"}, {"easy", "conservative", "fcfs"}}},
		{"other values", [][]string{{"easy"}, {"fcfs", "easy"}, {"easy", "fairshare", "fairshare-smallest"}, {"easy", "sjf", "lookahead", "probfill"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := valueColours(tc.sets[0])["easy"]
			for _, set := range tc.sets {
				got := valueColours(set)
				if got["easy"] != want {
					t.Errorf("easy is %s among %q, %s among %q", hexColour(got["easy"]), set, hexColour(want), tc.sets[0])
				}
			}
		})
	}
	many := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	seen := map[string]string{}
	for v, c := range valueColours(many) {
		if other, dup := seen[hexColour(c)]; dup {
			t.Errorf("%s and %s share %s", v, other, hexColour(c))
		}
		seen[hexColour(c)] = v
	}
	if len(seen) != len(valuePalette()) {
		t.Errorf("%d colours for %d values and a palette of %d", len(seen), len(many), len(valuePalette()))
	}
}

// smallCampaign runs, in process, a campaign on NASA-iPSC of the given
// policies (name = TOML table body), in matrix order, and returns its
// folder.
func smallCampaign(t *testing.T, policies [][2]string) string {
	t.Helper()
	trace, err := filepath.Abs(filepath.Join("..", "..", "experiments", "data", "NASA-iPSC-1993-3.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	src := "[campaign]\nseed = 3\n[workloads.nasa]\ntrace = " + strconv.Quote(trace) +
		"\nsha256 = \"9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76\"\n"
	var names []string
	for _, p := range policies {
		src += "[policies." + p[0] + "]\n" + p[1] + "\n"
		names = append(names, strconv.Quote(p[0]))
	}
	src += "[matrix]\nworkload = [\"nasa\"]\npolicy = [" + strings.Join(names, ", ") + "]\n"
	path := filepath.Join(t.TempDir(), "m.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := campaign.Run(context.Background(), m, campaign.Options{Dir: dir, InProcess: true})
	if err != nil || rep.Done != len(policies) {
		t.Fatalf("campaign: %v, %+v", err, rep)
	}
	return dir
}

// pageTable returns the first table of the page whose caption starts so.
func pageTable(t *testing.T, pg *page, caption string) *table {
	t.Helper()
	for _, s := range pg.Sections {
		for _, b := range s.Blocks {
			if b.Table != nil && strings.HasPrefix(b.Table.Caption, caption) {
				return b.Table
			}
		}
	}
	t.Fatalf("no table captioned %q", caption)
	return nil
}

// column returns the cells of a table's column by header.
func column(t *testing.T, tb *table, head string) []string {
	t.Helper()
	i := slices.Index(tb.Head, head)
	if i < 0 {
		t.Fatalf("table %q has no column %q (has %q)", tb.Caption, head, tb.Head)
	}
	var out []string
	for _, r := range tb.Rows {
		out = append(out, r.Cells[i])
	}
	return out
}

// TestPoliciesByParameters: two policies of one plugin that differ only by
// their parameters are told apart by the report, in the table of the
// values compared (with their colours) and in the policies as resolved.
func TestPoliciesByParameters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign; skipped with -short")
	}
	dir := smallCampaign(t, [][2]string{
		{"easy", `ref = "easy"`},
		{"easy-shortest", "ref = \"easy\"\nparams = { order = \"shortest\" }"},
		{"fcfs", `ref = "fcfs"`},
	})
	pg, err := build(dir, Options{Baseline: "easy", Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	values := pageTable(t, pg, "The values of policy compared")
	if got := column(t, values, "policy"); !slices.Equal(got, []string{"easy", "easy-shortest", "fcfs"}) {
		t.Errorf("policies %q", got)
	}
	if got := column(t, values, "ref"); !slices.Equal(got, []string{"easy", "easy", "fcfs"}) {
		t.Errorf("refs %q", got)
	}
	if got := column(t, values, "parameters"); !slices.Equal(got, []string{"defaults", "order=shortest", "defaults"}) {
		t.Errorf("parameters %q", got)
	}
	swatches := map[string]bool{}
	for i, r := range values.Rows {
		want := "background-color: " + hexColour(valueColours([]string{values.Rows[i].Cells[0]})[r.Cells[0]])
		if string(r.Swatch) != want {
			t.Errorf("%s: swatch %q, want %q: its own colour, as in a report of it alone", r.Cells[0], r.Swatch, want)
		}
		swatches[string(r.Swatch)] = true
	}
	if len(swatches) != 3 {
		t.Errorf("three policies, %d swatch colours", len(swatches))
	}
	resolved := pageTable(t, pg, "Policies as resolved")
	rows := map[string]bool{}
	for _, r := range resolved.Rows {
		rows[strings.Join(r.Cells[1:], "|")] = true // without the policy's name
	}
	if len(rows) != 3 || !slices.Contains(resolved.Head, "params") {
		t.Errorf("the policies as resolved are not told apart but by name: head %q, %d distinct rows", resolved.Head, len(rows))
	}
}

// TestJobMaxima: the job-level table gives each value's longest wait and
// largest bounded slowdown, pooled over its runs in the group, as the jobs
// files hold them.
func TestJobMaxima(t *testing.T) {
	dir := fakeCampaign(t, 2)
	pg, err := build(dir, Options{Baseline: "fifo", Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	tb := pageTable(t, pg, "Quantiles and maxima of job wait")
	c, err := compare.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	waits, bslds := column(t, tb, "wait max"), column(t, tb, "bsld max")
	workloads, depths, policies := column(t, tb, "workload"), column(t, tb, "param_depth"), column(t, tb, "policy")
	if len(waits) != 2*3*4 {
		t.Fatalf("%d rows, want one per workload, depth and policy", len(waits))
	}
	for i := range waits {
		maxWait, maxBSLD := math.Inf(-1), math.Inf(-1)
		for _, r := range c.Runs {
			if r.Status != "ok" || r.Axes["workload"] != workloads[i] || r.Axes["param_depth"] != depths[i] || r.Axes["policy"] != policies[i] {
				continue
			}
			rows, _, err := results.ReadJobs(c.JobsPath(r))
			if err != nil {
				t.Fatal(err)
			}
			w, b := compare.JobWaitBSLD(rows, 10)
			maxWait, maxBSLD = math.Max(maxWait, slices.Max(w)), math.Max(maxBSLD, slices.Max(b))
		}
		if waits[i] != num(maxWait) || bslds[i] != num(maxBSLD) {
			t.Errorf("%s %s %s: max wait %s, bsld %s; the jobs files %s, %s", workloads[i], depths[i], policies[i],
				waits[i], bslds[i], num(maxWait), num(maxBSLD))
		}
	}
	// Above the 99th percentile somewhere: the column shows what the
	// quantiles do not.
	if p99 := column(t, tb, "wait p99"); slices.Equal(p99, waits) {
		t.Errorf("every maximum equals its 99th percentile: the check shows nothing")
	}
}

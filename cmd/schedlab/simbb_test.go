package main

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// writeKTHHead writes KTH-SP2's header and its first n jobs to a plain SWF
// file in dir, and returns its path and sha256.
func writeKTHHead(t *testing.T, dir string, n int) (string, string) {
	t.Helper()
	f, err := os.Open(kth)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sc := bufio.NewScanner(zr)
	for jobs := 0; sc.Scan() && jobs < n; {
		line := sc.Text()
		if !strings.HasPrefix(strings.TrimSpace(line), ";") {
			jobs++
		}
		b.WriteString(line + "\n")
	}
	path := filepath.Join(dir, "kth-head.swf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return path, hex.EncodeToString(sum[:])
}

// TestSimIOAsCampaign runs KTH-SP2's first 1,500 jobs with burst-buffer
// requests and paper 004's I/O model from `schedlab sim`'s flags and as a
// campaign whose manifest says the same: the jobs files hold the same
// rows, the same transform counts and the same model, and sim's summary
// gives the transform's counts and the I/O metrics.
func TestSimIOAsCampaign(t *testing.T) {
	dir := t.TempDir()
	trace, sum := writeKTHHead(t, dir, 1500)
	src := fmt.Sprintf(`[campaign]
seed = 11
out = %q
[workloads.kth]
trace = %q
sha256 = %q
procs = 96
transform = "burst-buffer-io"
transform_params = { io_floor = 0.1 }
[policies.easy]
ref = "bb-easy"
[platforms.bb]
procs = 96
[platforms.bb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[platforms.bb.io]
fs_bandwidth = "5000 MB/s"
unit_bandwidth = "1250 MB/s"
node_bandwidth = "1250 MB/s"
split_duplex = true
phase_seconds = "30m"
[matrix]
workload = ["kth"]
policy = ["easy"]
platform = ["bb"]
`, filepath.Join(dir, "campaign"), trace, sum)
	camp := campaignJobsFile(t, dir, src)
	cRows, _, cMeta, err := results.ReadJobsWith(camp)
	if err != nil {
		t.Fatal(err)
	}
	seed := cMeta["workload.transform.seed"]
	if seed == "" {
		t.Fatal("the campaign's jobs file has no transform seed")
	}
	simJobs := filepath.Join(dir, "sim", "jobs.parquet")
	out, err := run(t, "sim", "--trace", trace, "--procs", "96", "--policy", "bb-easy", "--in-process",
		"--bb-units", "12", "--bb-unit-capacity", "40GB", "--transform", "burst-buffer-io", "--transform-param", "io_floor=0.1",
		"--transform-seed", seed, "--io", "fs_bandwidth=5000 MB/s", "--io", "unit_bandwidth=1250MB/s",
		"--io", "node_bandwidth=1.25e9", "--io", "split_duplex=true", "--io", "phase_seconds=1800", "--out", simJobs)
	if err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	for _, want := range []string{"transform  burst-buffer-io (seed " + seed + "): jobs 1500", "io  1500 jobs moved"} {
		if !strings.Contains(out, want) {
			t.Errorf("sim's summary does not say %q:\n%s", want, out)
		}
	}
	sRows, _, sMeta, err := results.ReadJobsWith(simJobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sRows) != 1500 || !reflect.DeepEqual(cRows, sRows) {
		t.Errorf("sim's %d jobs differ from the campaign's %d", len(sRows), len(cRows))
	}
	for _, k := range []string{"workload.transform", "workload.transform.params", "workload.transform.counts", "io.model"} {
		if sMeta[k] == "" || sMeta[k] != cMeta[k] {
			t.Errorf("%s: sim %s, campaign %s", k, sMeta[k], cMeta[k])
		}
	}
}

// TestSimNodesBurstBufferAsCampaign: KTH-SP2's first 1,500 jobs on 48
// shared nodes of 2 cores beside a burst buffer of 12 units, from sim's
// flags and as a campaign, under bb-easy: the same rows, the same burst
// buffer requests and placements, the same allocations on the nodes.
func TestSimNodesBurstBufferAsCampaign(t *testing.T) {
	dir := t.TempDir()
	trace, sum := writeKTHHead(t, dir, 1500)
	src := fmt.Sprintf(`[campaign]
seed = 11
out = %q
[workloads.kth]
trace = %q
sha256 = %q
transform = "burst-buffer-lognormal"
[policies.easy]
ref = "bb-easy"
[platforms.nbb]
allocation = "shared"
[platforms.nbb.nodes.compute]
count = 48
cores = 2
[platforms.nbb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[matrix]
workload = ["kth"]
policy = ["easy"]
platform = ["nbb"]
`, filepath.Join(dir, "campaign"), trace, sum)
	camp := campaignJobsFile(t, dir, src)
	cRows, cx, cMeta, err := results.ReadJobsWith(camp)
	if err != nil {
		t.Fatal(err)
	}
	seed := cMeta["workload.transform.seed"]
	simJobs := filepath.Join(dir, "sim", "jobs.parquet")
	out, err := run(t, "sim", "--trace", trace, "--policy", "bb-easy", "--in-process", "--nodes", "48", "--cores-per-node", "2",
		"--allocation", "shared", "--bb-units", "12", "--bb-unit-capacity", "40GB", "--transform", "burst-buffer-lognormal",
		"--transform-seed", seed, "--out", simJobs)
	if err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	sRows, sx, _, err := results.ReadJobsWith(simJobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sRows) != 1500 || !reflect.DeepEqual(cRows, sRows) {
		t.Fatalf("sim's %d jobs differ from the campaign's %d", len(sRows), len(cRows))
	}
	if !sx.HasUnits || sx.Nodes == nil || !reflect.DeepEqual(sx.Units, cx.Units) || !reflect.DeepEqual(sx.Requests, cx.Requests) ||
		!reflect.DeepEqual(sx.Nodes, cx.Nodes) {
		t.Fatal("sim's burst-buffer placements, requests or allocations on nodes differ from the campaign's")
	}
	pieces := 0
	for _, u := range sx.Units {
		if strings.Trim(u, "0,") != "" {
			pieces++
		}
	}
	if pieces < 1000 {
		t.Fatalf("%d of 1500 jobs hold pieces of the burst buffer", pieces)
	}
}

// TestSimIOBadInput: each mistake in the flags of a burst buffer, a
// transform or an I/O model exits 2 naming the flag, and creates nothing.
func TestSimIOBadInput(t *testing.T) {
	dir := t.TempDir()
	outDir := filepath.Join(dir, "out")
	bb := []string{"--bb-units", "4", "--bb-unit-capacity", "1GB"}
	bw := []string{"--io", "fs_bandwidth=1GB/s", "--io", "unit_bandwidth=1GB/s"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"units without capacity", []string{"--bb-units", "4"}, "--bb-units and --bb-unit-capacity give the burst buffer: both are needed"},
		{"capacity not bytes", []string{"--bb-units", "4", "--bb-unit-capacity", "12 parsecs"}, `--bb-unit-capacity "12 parsecs": "12 parsecs": unknown unit`},
		{"zero units", []string{"--bb-units", "0", "--bb-unit-capacity", "1GB"}, "the units at least 1"},
		{"io with outages", append(append([]string{"--nodes", "4", "--cores-per-node", "25", "--maintenance-window", "1000,100"}, bb...), bw...), "--io: an I/O model with outages of nodes is not supported yet"},
		{"io without a burst buffer", bw, "--io: the I/O model moves data through a burst buffer"},
		{"io setting misspelt", append(append([]string{}, bb...), "--io", "fs_bandwith=1GB/s"), `--io fs_bandwith: unknown setting (did you mean fs_bandwidth?)`},
		{"io share above 1", append(append(append([]string{}, bb...), bw...), "--io", "stage_in=2"), "--io stage_in: 2 is not a share of each piece's size from 0 to 1"},
		{"io not a bool", append(append(append([]string{}, bb...), bw...), "--io", "split_duplex=maybe"), `--io split_duplex: "maybe" is not true or false`},
		{"io bandwidth missing", append(append([]string{}, bb...), "--io", "unit_bandwidth=1GB/s"), "--io: fs_bandwidth is required"},
		{"io bandwidth bad", append(append([]string{}, bb...), "--io", "fs_bandwidth=fast", "--io", "unit_bandwidth=1GB/s"), `--io fs_bandwidth: "fast" is not a bandwidth`},
		{"io not key=value", append(append([]string{}, bb...), "--io", "fs_bandwidth"), `--io "fs_bandwidth": want key=value`},
		{"unknown transform", []string{"--transform", "burst-buffer-lognormall"}, `--transform "burst-buffer-lognormall": unknown (did you mean burst-buffer-lognormal?)`},
		{"params without transform", []string{"--transform-param", "s=1"}, "--transform-param and --transform-seed without --transform"},
		{"seed without transform", []string{"--transform-seed", "3"}, "--transform-param and --transform-seed without --transform"},
		{"a transform without its resource", []string{"--transform", "burst-buffer-lognormal"}, `--transform burst-buffer-lognormal: platform KTH-SP2-1996-2.1-cln has no resource "bb"`},
		{"unknown transform param", append(append([]string{}, bb...), "--transform", "burst-buffer-lognormal", "--transform-param", "bogus=1"), "--transform-param: transform burst-buffer-lognormal:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"sim", "--trace", kth, "--policy", "bb-easy", "--in-process", "--out", filepath.Join(outDir, "jobs.parquet")}
			args = append(args, tc.args...)
			out, err := run(t, args...)
			if exitCode(err) != exitBadInput || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d\n%s\nwant exit 2 saying %q", exitCode(err), out, tc.want)
			}
		})
	}
	// Under a file, the output cannot be made: bad input, before the run.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "sim", "--trace", kth, "--policy", "easy", "--in-process", "--out", filepath.Join(file, "d", "jobs.parquet"))
	if want := file + " is not a folder"; exitCode(err) != exitBadInput || !strings.Contains(out, want) {
		t.Errorf("an output under a file: exit %d\n%s\nwant exit 2 saying %q", exitCode(err), out, want)
	}
	// A policy that refuses the platform at its Init fails the run, and
	// makes no folder for its output.
	out, err = run(t, "sim", "--trace", kth, "--policy", "easy", "--in-process", "--bb-units", "4", "--bb-unit-capacity", "1GB",
		"--out", filepath.Join(outDir, "jobs.parquet"))
	if err == nil || !strings.Contains(out, "easy does not place pieces on divided resources") {
		t.Errorf("easy on a burst buffer: %v\n%s", err, out)
	}
	if _, err := os.Stat(outDir); err == nil {
		t.Errorf("bad input created %s", outDir)
	}
}

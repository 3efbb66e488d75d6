package nodes_test

import (
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/sacct"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// ccrMachine is a platform made up for the shared sacct fixtures (their
// clusters' real nodes are not described anywhere we know): 4 nodes of
// 12 cores and 48 GiB with feature CPU-E5645, the one the 2101 dump's
// jobs ask for, and 8 of 40 cores and 192 GiB, so that its job of 25
// cores and 550,000 MiB on one node fits none. Partition general-compute
// (3 days at most) holds both, partition001 the 40-core nodes.
func ccrMachine() *sdk.Platform {
	return sdk.NodesPlatform("ccr", []sdk.NodeGroup{
		{Name: "e5645", Count: 4, Cores: 12, Memory: 48 * gib, Features: []string{"CPU-E5645"}},
		{Name: "cpn", Count: 8, Cores: 40, Memory: 192 * gib},
	}, []sdk.Partition{{Name: "general", Groups: []string{"e5645", "cpn"}, Default: true, MaxWalltime: 3 * 86400},
		{Name: "p1", Groups: []string{"cpn"}}}, sdk.FirstFit)
}

// TestApplyLogSharedFixtures maps the shared sacct dumps onto ccrMachine
// under every combination of the settings, and checks that every job kept
// fits its partition and that the counts add up to the jobs. The dumps
// are read with SkipMalformed (each has one record the reader cannot
// take, see sacct's TestRealFixtures) and their zero-length cancelled
// jobs kept (nonpositive-runtime = clamp).
func TestApplyLogSharedFixtures(t *testing.T) {
	dir := tracedata.SacctDirForTest(t)
	clean := workload.DefaultClean()
	if err := clean.Set(workload.SettingNonPositiveRuntime, workload.Clamp); err != nil {
		t.Fatal(err)
	}
	p := ccrMachine()
	l := sdk.NewLayout(p, 0)
	table := map[string]string{"general-compute": "general", "partition001": "p1"}
	for _, tc := range []struct {
		file string
		jobs int
		// fallback is the number of jobs without AllocTRES (lines 2 to
		// 7 of the 2101 dump: array tasks cancelled before they ran).
		fallback int64
		// cores are the cores of the 2110 dump's jobs: ReqTRES cpu=1,
		// AllocTRES cpu=2.
		cores map[string]int32
	}{
		{"sacct_dump2101.log", 12, 6, nil},
		{"sacct_dump2110.log", 4, 0, map[string]int32{nodes.TRESRequested: 1, nodes.TRESAllocated: 2}},
	} {
		w, err := sacct.LoadWorkload(filepath.Join(dir, tc.file), p.Clusters[0].Capacity[0], clean, workload.Feedback{}, sacct.Options{SkipMalformed: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Jobs) != tc.jobs {
			t.Fatalf("%s: %d jobs, want %d", tc.file, len(w.Jobs), tc.jobs)
		}
		for _, tres := range nodes.LogChoices(nodes.SettingTRES) {
			for _, alloc := range nodes.Choices(nodes.SettingAllocation) {
				for _, over := range []string{nodes.Drop, nodes.Clamp} {
					for _, cons := range nodes.LogChoices(nodes.SettingConstraints) {
						s, err := nodes.Settings{Allocation: alloc, Oversize: over,
							Log: &nodes.LogSettings{TRES: tres, Constraints: cons, Partitions: table}}.Resolved(p)
						if err != nil {
							t.Fatal(err)
						}
						name := tc.file + " " + tres + " " + alloc + " " + over + " " + cons
						jobs, c, err := nodes.Apply(p, w, w.Jobs, s)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						kept := int64(len(jobs))
						for _, in := range jobs {
							if err := l.Check(in.Job.Tasks); err != nil {
								t.Errorf("%s: job %d: %v", name, in.Job.ID, err)
							}
							if err := l.CheckWalltime(in.Job.Tasks, in.Job.Walltime); err != nil {
								t.Errorf("%s: job %d: %v", name, in.Job.ID, err)
							}
							if want, ok := tc.cores[tres]; ok && in.Job.Tasks.Cores != want {
								t.Errorf("%s: job %d: %d cores, want %d", name, in.Job.ID, in.Job.Tasks.Cores, want)
							}
						}
						sums := []struct {
							what string
							got  int64
						}{
							{"exclusive + shared", c[nodes.CountExclusive] + c[nodes.CountShared]},
							{"tres-requested + tres-allocated + tres-missing", c[nodes.CountTRESRequested] + c[nodes.CountTRESAllocated] + c[nodes.CountTRESMissing]},
							{"partition-mapped + partition-default", c[nodes.CountPartitionMapped] + c[nodes.CountPartitionDefault]},
							{"memory-tres + memory-unknown", c[nodes.CountMemoryTRES] + c[nodes.CountMemoryUnknown]},
						}
						for _, sum := range sums {
							if sum.got != kept {
								t.Errorf("%s: %s = %d, want the %d jobs kept", name, sum.what, sum.got, kept)
							}
						}
						dropped := c[nodes.CountOversizeDropped] + c[nodes.CountWalltimeDropped] + c[nodes.CountPartitionUnknownDropped] + c[nodes.CountFeatureUnknownDropped]
						if kept+dropped != int64(len(w.Jobs)) {
							t.Errorf("%s: %d kept + %d dropped, want the %d jobs", name, kept, dropped, len(w.Jobs))
						}
						if tres == nodes.TRESAllocated && c[nodes.CountTRESFallback] != tc.fallback {
							t.Errorf("%s: %d jobs fell back on ReqTRES, want %d", name, c[nodes.CountTRESFallback], tc.fallback)
						}
						// The 2101 dump's job of 550,000 MiB on one node
						// fits no node: dropped, or clamped to 192 GiB.
						if tc.file == "sacct_dump2101.log" && c[nodes.CountOversizeDropped]+c[nodes.CountOversizeClamped] != 1 {
							t.Errorf("%s: oversize %d dropped, %d clamped; want the one job", name, c[nodes.CountOversizeDropped], c[nodes.CountOversizeClamped])
						}
					}
				}
			}
		}
	}
}

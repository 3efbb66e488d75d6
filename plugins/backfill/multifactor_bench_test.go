package backfill

import (
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// BenchmarkMultifactor times the engine with multifactor linked in beside
// EASY in submit order, on the same trace in the same run, for issue 36's
// target (multifactor with fair share within 5 times EASY's time on
// CEA-Curie): Fair Tree and classic fair share with age, fair-share and
// size weights, over EASY, and Slurm's loops (sched/backfill at Slurm's
// default intervals). KTH-SP2 is committed; CEA-Curie is skipped when the
// shared data is absent. Compare the sub-benchmarks' sec/op.
func BenchmarkMultifactor(b *testing.B) {
	weights := map[string]string{"PriorityWeightFairshare": "10000", "PriorityWeightAge": "1000", "PriorityWeightJobSize": "1000"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range weights {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, trace := range []struct{ name, file string }{
		{"KTH-SP2", "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz"},
		{"CEA-Curie", "CEA-Curie-2011-2.1-cln.swf.gz"},
	} {
		b.Run(trace.name, func(b *testing.B) {
			w := loadTrace(b, trace.file)
			plat := sdk.SingleCluster(trace.name, w.Procs)
			for _, tc := range []struct {
				name   string
				p      sdk.Plugin
				params map[string]string
			}{
				{"easy", EASY(), nil},
				{"multifactor-fairtree", Multifactor(), with()},
				{"multifactor-classic", Multifactor(), with("PriorityFlags", "NO_FAIR_TREE")},
				{"multifactor-sched-backfill", Multifactor(), with("SchedulerType", SchedBackfill)},
			} {
				b.Run(tc.name, func(b *testing.B) {
					cfg := sim.Config{Platform: plat, Jobs: w.Jobs, Params: tc.params}
					for b.Loop() {
						if _, err := sim.Run(b.Context(), tc.p, cfg); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

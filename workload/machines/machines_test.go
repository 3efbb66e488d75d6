package machines_test

import (
	"io"
	"math"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/machines"
	"github.com/schedlab/schedlab/workload/swf"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// TestMachinesAgreeWithHeaders checks every known machine against its
// log's header: as many nodes as MaxNodes and as many cores as MaxProcs,
// a valid platform under every placement rule, and a partition table that
// names its partitions.
func TestMachinesAgreeWithHeaders(t *testing.T) {
	src := tracedata.SourcesForTest(t)
	for _, m := range machines.All() {
		t.Run(m.Name, func(t *testing.T) {
			for _, rule := range sdk.Placements() {
				p := m.Platform("", rule)
				if err := p.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			p := m.Platform("", sdk.FirstFit)
			var found *tracedata.Source
			for i := range src {
				if src[i].File == m.Trace {
					found = &src[i]
				}
			}
			if found == nil {
				t.Fatalf("%s is not in SOURCES.md", m.Trace)
			}
			if n := p.Clusters[0].NodeCount(); int64(n) != found.MaxNodes {
				t.Errorf("%d nodes, the header's MaxNodes is %d", n, found.MaxNodes)
			}
			if c := p.Clusters[0].Capacity[0]; c != found.MaxProcs {
				t.Errorf("%d cores, the header's MaxProcs is %d", c, found.MaxProcs)
			}
			for num, name := range m.TracePartitions {
				if p.Clusters[0].Partitions == nil || !hasPartition(p, name) {
					t.Errorf("trace partition %d maps to %q, not a partition", num, name)
				}
			}
			if _, err := machines.Lookup(m.Name); err != nil {
				t.Error(err)
			}
		})
	}
	if _, err := machines.Lookup("Blue Gene"); err == nil {
		t.Error("an unknown machine was found")
	}
}

func hasPartition(p *sdk.Platform, name string) bool {
	for _, pt := range p.Clusters[0].Partitions {
		if pt.Name == name {
			return true
		}
	}
	return false
}

func mustPath(t *testing.T, file string) string {
	t.Helper()
	p, err := tracedata.Path(file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCuriePartitions checks what CEA-Curie's description assumes of its
// log: the partitions mapped hold 98.9 % of its records, and each one's
// widest job fits the nodes it is mapped to.
func TestCuriePartitions(t *testing.T) {
	tracedata.SourcesForTest(t)
	m, err := machines.Lookup("CEA-Curie")
	if err != nil {
		t.Fatal(err)
	}
	p := m.Platform("", sdk.FirstFit)
	cores := map[string]int64{}
	for _, pt := range p.Clusters[0].Partitions {
		for _, g := range pt.Groups {
			for _, ng := range p.Clusters[0].Nodes {
				if ng.Name == g {
					cores[pt.Name] += int64(ng.Count) * ng.Cores
				}
			}
		}
	}
	r, err := swf.Open(mustPath(t, m.Trace))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all, mapped int
	widest := map[string]int64{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all++
		if name, ok := m.TracePartitions[int32(rec.Partition)]; ok {
			mapped++
			widest[name] = max(widest[name], rec.ReqProcs, rec.AllocProcs)
		}
	}
	if share := float64(mapped) / float64(all); math.Round(share*1000) != 989 {
		t.Errorf("the mapped partitions hold %.4f of the records, the description says 98.9 %%", share)
	}
	for name, w := range widest {
		if w > cores[name] {
			t.Errorf("partition %s: a job of %d processors, its nodes have %d cores", name, w, cores[name])
		}
	}
	t.Logf("mapped %d of %d records; widest %v", mapped, all, widest)
}

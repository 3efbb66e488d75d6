package compare

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

// GridView is what the jobs of one value of the compared axis in one
// group, pooled over its runs, say of a grid (paper 003): its local jobs
// (those with a home cluster) and its global jobs apart, and where the
// global jobs ran and what they paid.
type GridView struct {
	Group []AxisValue
	Value string
	Runs  int
	// Local and Global are the started jobs of each kind.
	Local, Global StreamView
	// LocalRejected and GlobalRejected count the jobs the policy rejected.
	LocalRejected, GlobalRejected int
	// Clusters has one entry per cluster of the platform, in platform
	// order: the started global jobs that ran there.
	Clusters []ClusterShare
}

// StreamView is the waits of one kind of job, in seconds.
type StreamView struct {
	Jobs                       int
	MeanWait, P95Wait, MaxWait float64
}

// ClusterShare is what the started global jobs that ran on one cluster
// offered and were charged.
type ClusterShare struct {
	Name string
	Jobs int
	// Work is their processors times runtime, in processor-seconds.
	Work float64
	// Offered sums their payments (the jobs file's payment), Charged what
	// the policy charged them (cost; NULL counts 0); ChargedJobs counts
	// those charged more than 0.
	Offered, Charged float64
	ChargedJobs      int
}

// GridJobs computes the grid views of a comparison, one per group and
// value, from the runs' jobs files. A campaign whose jobs files have no
// grid columns has none: it returns nil.
func GridJobs(c *Campaign, res *Result) ([]GridView, error) {
	var out []GridView
	for _, g := range res.Groups {
		for _, lv := range g.Levels {
			v := GridView{Group: g.Key, Value: lv.Value}
			var local, global []float64
			for _, r := range runsOf(c, res, g, lv.Value) {
				path := c.JobsPath(r)
				rows, x, meta, err := results.ReadJobsWith(path)
				if err != nil {
					return nil, err
				}
				if x.Grid == nil {
					return nil, nil
				}
				names, err := clusterNames(meta)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				if v.Clusters == nil {
					for _, n := range names {
						v.Clusters = append(v.Clusters, ClusterShare{Name: n})
					}
				}
				if len(names) != len(v.Clusters) {
					return nil, fmt.Errorf("%s: %d clusters, another run of the group has %d", path, len(names), len(v.Clusters))
				}
				for i, j := range rows {
					gr := x.Grid[i]
					switch {
					case gr.Rejected && gr.Home >= 0:
						v.LocalRejected++
					case gr.Rejected:
						v.GlobalRejected++
					case gr.Home >= 0:
						local = append(local, float64(j.Wait))
					default:
						global = append(global, float64(j.Wait))
						if j.Cluster < 0 || int(j.Cluster) >= len(names) {
							return nil, fmt.Errorf("%s: job %d ran on cluster %d of %d", path, j.JobID, j.Cluster, len(names))
						}
						s := &v.Clusters[j.Cluster]
						s.Jobs++
						s.Work += float64(j.Procs) * float64(j.Runtime)
						if gr.Payment != nil {
							s.Offered += *gr.Payment
						}
						if gr.Cost != nil {
							s.Charged += *gr.Cost
							if *gr.Cost > 0 {
								s.ChargedJobs++
							}
						}
					}
				}
				v.Runs++
			}
			if v.Runs == 0 {
				continue
			}
			v.Local, v.Global = streamView(local), streamView(global)
			out = append(out, v)
		}
	}
	return out, nil
}

func streamView(waits []float64) StreamView {
	if len(waits) == 0 {
		return StreamView{}
	}
	s := 0.0
	for _, w := range waits {
		s += w
	}
	return StreamView{Jobs: len(waits), MeanWait: s / float64(len(waits)),
		P95Wait: stats.Quantile(waits, 0.95), MaxWait: slices.Max(waits)}
}

// clusterNames reads the names of the platform's clusters from a jobs
// file's provenance (its platform key).
func clusterNames(meta results.Metadata) ([]string, error) {
	var p struct {
		Clusters []struct {
			Name string `json:"name"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(meta["platform"]), &p); err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	if len(p.Clusters) == 0 {
		return nil, fmt.Errorf("platform: no clusters")
	}
	names := make([]string, len(p.Clusters))
	for i, c := range p.Clusters {
		names[i] = c.Name
	}
	return names, nil
}

package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/results/compare"
)

// GridMetrics are the metrics a report compares in a grid campaign (its
// runs.parquet has local_mean_wait and global_mean_wait) unless told
// otherwise: each kind of job apart, since a grid's local and global jobs
// answer different questions and a mean over both hides either.
func GridMetrics() []string {
	return []string{"local_mean_wait", "global_mean_wait", "local_mean_bsld", "global_mean_bsld"}
}

// isGrid reports whether the campaign's runs.parquet has the grid metrics.
func isGrid(c *compare.Campaign) bool {
	return slices.Contains(c.Numeric, "local_mean_wait") && slices.Contains(c.Numeric, "global_mean_wait")
}

// grid is the section of a grid campaign: local and global jobs apart,
// and where the global jobs ran and what they paid. A campaign without
// grid columns in its jobs files gets none.
func (b *builder) grid() (section, error) {
	s := section{ID: "grid", Title: "Local and global jobs"}
	views, err := compare.GridJobs(b.c, b.res[0])
	if err != nil {
		return s, fmt.Errorf("report: grid views of %s: %w", b.c.Dir, err)
	}
	if len(views) == 0 {
		return s, nil
	}
	res := b.res[0]
	s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("A grid's jobs are local (submitted to their home cluster) or "+
		"global (placed by the broker on any cluster). Every job of the completed runs, pooled per group and value of %s; "+
		"waits in seconds; rejected jobs are counted apart and are in no wait.", b.opts.Axis)})
	keys := len(res.By) + 1
	head := append(slices.Clone(res.By), b.opts.Axis, "runs")
	waits := &table{Caption: "Waits of local and global jobs (s)", Keys: keys,
		Head: append(slices.Clone(head), "local jobs", "local mean", "local p95", "local max", "local rejected",
			"global jobs", "global mean", "global p95", "global max", "global rejected")}
	where := &table{Caption: "Where the global jobs ran and what they paid: per cluster, the started global jobs, " +
		"their share of the group's started global jobs and of their work (processors x runtime), the mean payment " +
		"offered and charged (the jobs file's payment and cost), and the jobs charged more than 0", Keys: keys + 1,
		Head: append(slices.Clone(head), "cluster", "global jobs", "share of jobs", "share of work", "mean offered",
			"mean charged", "charged > 0")}
	for _, t := range []*table{waits, where} {
		for i := range t.Head {
			t.Class = append(t.Class, "")
			if i >= len(res.By)+1 && t.Head[i] != "cluster" {
				t.Class[i] = "n"
			}
		}
	}
	for _, v := range views {
		var id []string
		for _, kv := range v.Group {
			id = append(id, kv.Value)
		}
		id = append(id, v.Value, strconv.Itoa(v.Runs))
		mark := v.Value == b.opts.Baseline
		waits.Rows = append(waits.Rows, tableRow{Mark: mark, Cells: append(slices.Clone(id),
			strconv.Itoa(v.Local.Jobs), num(v.Local.MeanWait), num(v.Local.P95Wait), num(v.Local.MaxWait), strconv.Itoa(v.LocalRejected),
			strconv.Itoa(v.Global.Jobs), num(v.Global.MeanWait), num(v.Global.P95Wait), num(v.Global.MaxWait), strconv.Itoa(v.GlobalRejected))})
		var work float64
		for _, c := range v.Clusters {
			work += c.Work
		}
		for _, c := range v.Clusters {
			share, wshare, offered, charged := "-", "-", "-", "-"
			if v.Global.Jobs > 0 {
				share = fmt.Sprintf("%.1f%%", 100*float64(c.Jobs)/float64(v.Global.Jobs))
			}
			if work > 0 {
				wshare = fmt.Sprintf("%.1f%%", 100*c.Work/work)
			}
			if c.Jobs > 0 {
				offered, charged = num(c.Offered/float64(c.Jobs)), num(c.Charged/float64(c.Jobs))
			}
			where.Rows = append(where.Rows, tableRow{Mark: mark, Cells: append(slices.Clone(id),
				c.Name, strconv.Itoa(c.Jobs), share, wshare, offered, charged, strconv.Itoa(c.ChargedJobs))})
		}
	}
	s.Blocks = append(s.Blocks, block{Table: waits}, block{Table: where})
	return s, nil
}

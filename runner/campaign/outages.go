package campaign

import (
	"fmt"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/outages"
)

// runOutages returns the outages of a run on platform pl (plat, its
// engine's form) of jobs, drawn with the run's outage seed: nil without
// outages. The failure model's horizon is the last submission plus the
// longest walltime unless failure_horizon says otherwise (outages.ForJobs).
func runOutages(pl manifest.Platform, plat *sdk.Platform, jobs []sim.Input, seed uint64) ([]sdk.Outage, *outages.Counts, error) {
	s := pl.Outages
	if s == nil || len(jobs) == 0 {
		return nil, nil, nil
	}
	outs, counts, err := outages.ForJobs(s, plat, jobs, manifest.NewRand(seed))
	if err != nil {
		return nil, nil, fmt.Errorf("platform %s: outages: %w", pl.Name, err)
	}
	return outs, &counts, nil
}

// outageColumns are the columns of runs.parquet of a campaign with a
// platform with outages: what Build made (outages_file_failures, ...),
// NULL for a run without outages.
func outageColumns(m *manifest.Manifest) []runsColumn {
	some := false
	for _, pl := range m.Platforms {
		some = some || pl.Outages != nil
	}
	if !some {
		return nil
	}
	type count struct {
		name string
		of   func(c *outages.Counts) int64
	}
	var cols []runsColumn
	for _, c := range []count{
		{"file_failures", func(c *outages.Counts) int64 { return int64(c.FileFailures) }},
		{"model_failures", func(c *outages.Counts) int64 { return int64(c.ModelFailures) }},
		{"windows", func(c *outages.Counts) int64 { return int64(c.Windows) }},
		{"drains", func(c *outages.Counts) int64 { return int64(c.Drains) }},
		{"failure_node_seconds", func(c *outages.Counts) int64 { return c.FailureNodeSeconds }},
		{"maintenance_node_seconds", func(c *outages.Counts) int64 { return c.MaintenanceNodeSeconds }},
	} {
		cols = append(cols, runsColumn{results.Column{Name: "outages_" + c.name, Kind: results.Int64}, func(r *RunResult) any {
			if r.OutageCounts == nil {
				return nil
			}
			return c.of(r.OutageCounts)
		}})
	}
	return cols
}

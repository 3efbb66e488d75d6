package layout

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
)

// ErrNotRun is matched (errors.Is) by the error of a file that is not a
// jobs file of a run: not Parquet, other columns, or no platform in its
// footer.
var ErrNotRun = errors.New("not a jobs file of a schedlab run")

// Run is a jobs file read whole: its rows, extra columns, footer and the
// platform the run was simulated on.
type Run struct {
	Path     string
	Jobs     []results.JobRow
	Extras   results.JobExtras
	Meta     results.Metadata
	Platform sdk.Platform
	// Outages are the run's outages of nodes (the footer's
	// results.OutagesKey); nil for a run without.
	Outages []sdk.Outage
	// Power is the platform's draw over time (the run's power file,
	// results.PowerSeriesPath); nil for a run without a power model, or
	// whose power file is not there.
	Power []results.PowerStepRow
}

// Read reads the jobs file at path.
func Read(path string) (*Run, error) {
	jobs, x, meta, err := results.ReadJobsWith(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrNotRun, err)
	}
	r := &Run{Path: path, Jobs: jobs, Extras: x, Meta: meta}
	p, ok := meta["platform"]
	if !ok {
		return nil, fmt.Errorf("%s: %w: its footer has no platform key", path, ErrNotRun)
	}
	if err := json.Unmarshal([]byte(p), &r.Platform); err != nil {
		return nil, fmt.Errorf("%s: %w: its platform key: %w", path, ErrNotRun, err)
	}
	if o, ok := meta[results.OutagesKey]; ok {
		if r.Outages, err = results.DecodeOutages(o); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if d, ok := meta[results.PolicyDrainsKey]; ok {
		// A drain never resumed lasts to the run's last end.
		var end int64
		for i := range jobs {
			end = max(end, jobs[i].End)
		}
		drains, err := results.DecodePolicyDrains(d, end)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.Outages = append(r.Outages, drains...)
	}
	if _, ok := meta["power.model"]; ok {
		// A run from before power files has its jobs file alone.
		pp := results.PowerSeriesPath(path)
		if _, err := os.Stat(pp); err == nil {
			if r.Power, _, err = results.ReadPowerSeries(pp); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// Layout lays out the run's jobs (Of).
func (r *Run) Layout() (*Layout, error) {
	l, err := Of(r.Jobs, r.Extras, &r.Platform)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Path, err)
	}
	return l, nil
}

// WorkloadName names the run's workload: its name in a campaign, the
// trace's file name for a run of schedlab sim.
func (r *Run) WorkloadName() string {
	for _, k := range []string{"workload.name", "workload.file", "workload.path"} {
		if v := r.Meta[k]; v != "" {
			return filepath.Base(v)
		}
	}
	return "schedlab"
}

package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/outages"
)

// outageFlags are the flags of `schedlab sim` that give its platform of
// nodes outages: the settings of a manifest's [platforms.NAME.outages]
// table but drains (manifest.OutageFlags), and the seed of the failure
// model.
type outageFlags struct {
	manifest.OutageFlags
	seed uint64
}

func (f *outageFlags) register(fl *pflag.FlagSet) {
	o := &f.OutageFlags
	for _, s := range []struct {
		dst       *string
		key, help string
	}{
		{&o.OnFailure, "on_failure", "outages: what becomes of a job whose node fails, kill (the default), requeue or checkpoint"},
		{&o.Requeue, "requeue", "outages: with requeue or checkpoint, a job takes back its place (in-place, the default) or goes last"},
		{&o.Maintenance, "maintenance", "outages: hard (the default: no job starts whose walltime reaches a window) or soft (jobs are ended at the window)"},
		{&o.FailuresFile, "failures_file", "outages: failures from a file, CSV (node,down,up) or Parquet (.parquet: integer columns node, down, up)"},
		{&o.FailuresSHA256, "failures_sha256", "outages: the failure file's sha256, checked"},
		{&o.FailureModel, "failure_model", "outages: failures drawn per node, exponential or weibull up times"},
		{&o.MTBF, "mtbf", "outages: a node's mean up time with a failure model (\"20d\", or seconds)"},
		{&o.WeibullShape, "weibull_shape", "outages: Weibull's shape k > 0, with --failure-model weibull"},
		{&o.Repair, "repair", "outages: repair times, exponential (the default), fixed or lognormal"},
		{&o.MTTR, "mttr", "outages: the mean repair time with a failure model (\"6h\", or seconds)"},
		{&o.RepairSigma, "repair_sigma", "outages: the log-deviation of lognormal repairs"},
		{&o.FailureHorizon, "failure_horizon", "outages: how long the model draws failures, jobs (the default: to the latest submission plus the longest walltime) or a time from the first submission"},
		{&o.CheckpointInterval, "checkpoint_interval", "outages: with --on-failure checkpoint, the work between checkpoints, a time, young or daly"},
		{&o.CheckpointCost, "checkpoint_cost", "outages: the time a checkpoint takes (default 0)"},
		{&o.RestartCost, "restart_cost", "outages: the time a resumed run takes before its work goes on (default 0)"},
		{&o.CheckpointMTBF, "checkpoint_mtbf", "outages: a node's MTBF for Young's and Daly's intervals (default: --mtbf)"},
	} {
		fl.StringVar(s.dst, manifest.FlagName(s.key)[2:], "", s.help)
	}
	fl.StringArrayVar(&o.Windows, "maintenance-window", nil, "outages: a maintenance window of the whole machine, `START,DURATION[,EVERY]` (times; repeatable)")
	fl.Uint64Var(&f.seed, "outage-seed", 1, "outages: the seed of the failure model's draws")
}

// simOutages holds the outages of a `schedlab sim` run.
type simOutages struct {
	settings *outages.Settings
	outs     []sdk.Outage
	counts   outages.Counts
	seed     uint64
}

// make returns the outages the flags give a run of jobs on plat, nil
// without any flag; errors are bad input.
func (f *outageFlags) make(plat *sdk.Platform, jobs []sim.Input) (*simOutages, error) {
	if !f.Set() {
		return nil, nil
	}
	if !plat.HasNodes() {
		return nil, fmt.Errorf("outages are of nodes: the outage flags need a platform of nodes (--nodes and --cores-per-node, or --machine)")
	}
	s, err := f.Settings(int32(plat.Clusters[0].NodeCount()))
	if err != nil {
		return nil, fmt.Errorf("outages: %w", err)
	}
	outs, counts, err := outages.ForJobs(s, plat, jobs, manifest.NewRand(f.seed))
	if err != nil {
		return nil, fmt.Errorf("outages: %w", err)
	}
	return &simOutages{settings: s, outs: outs, counts: counts, seed: f.seed}, nil
}

// faults returns the rules for the jobs outages reach.
func (o *simOutages) faults() sim.Faults {
	if o == nil {
		return sim.Faults{}
	}
	return o.settings.Faults
}

func (o *simOutages) events() []sdk.Outage {
	if o == nil {
		return nil
	}
	return o.outs
}

// addMetadata adds to a jobs file's metadata what a campaign's has of its
// outages, and the seed.
func (o *simOutages) addMetadata(meta results.Metadata) {
	if o == nil {
		return
	}
	meta["outages.settings"] = jsonText(manifest.OutagesSpec(o.settings))
	meta["outages.counts"] = jsonText(o.counts)
	meta["outages.seed"] = fmt.Sprint(o.seed)
	meta[results.OutagesKey] = results.EncodeOutages(o.outs)
}

// json is what --json says of the outages.
func (o *simOutages) json() any {
	if o == nil {
		return nil
	}
	return map[string]any{"settings": manifest.OutagesSpec(o.settings), "counts": o.counts, "seed": o.seed}
}

// print prints what outages there were and the outage metrics.
func (o *simOutages) print(w io.Writer, out *runner.Outcome) {
	if o == nil {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	c := o.counts
	fmt.Fprintf(tw, "outages\t%d failures from the file, %d drawn, %d maintenance windows; on failure %s, maintenance %s\n",
		c.FileFailures, c.ModelFailures, c.Windows, o.settings.Faults.OnFailure, o.settings.Faults.Maintenance)
	if s := out.Summary; s.Outages {
		fmt.Fprintf(tw, "outage metrics\tavailability %.4f, %d runs ended (%d jobs, %d killed), %.0f core-s lost, goodput %.4f\n",
			s.Availability, s.Attempts, s.InterruptedJobs, s.FailedJobs, s.LostCoreSeconds, s.Goodput)
	}
	tw.Flush()
}

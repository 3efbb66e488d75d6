package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// dataFlags are the flags of `schedlab sim` that give its pool a burst
// buffer, its jobs a transform (burst-buffer requests, runtime
// estimates) and its run an I/O model: what a manifest says with a
// platform's [resources.bb] and [io] tables and a workload's transform.
type dataFlags struct {
	bbUnits         int64
	bbUnitCapacity  string
	transform       string
	transformParams []string
	transformSeed   uint64
	seedGiven       bool // --transform-seed was given
	io              []string
}

func (f *dataFlags) register(fl *pflag.FlagSet) {
	fl.Int64Var(&f.bbUnits, "bb-units", 0, "a burst buffer (on a pool or beside --nodes): resource bb of this many units (burst-buffer nodes), with --bb-unit-capacity")
	fl.StringVar(&f.bbUnitCapacity, "bb-unit-capacity", "", "the bytes of each burst-buffer unit (\"40GB\", or bytes)")
	fl.StringVar(&f.transform, "transform", "", "a transform of the jobs: burst-buffer-lognormal or burst-buffer-io (requests for --bb-units), estimates-tsafrir or estimates-f (docs/manifest.md, Transforms)")
	fl.StringArrayVar(&f.transformParams, "transform-param", nil, "a transform parameter `key=value` (repeatable; the keys of a workload's transform_params)")
	fl.Uint64Var(&f.transformSeed, "transform-seed", 1, "the seed of the transform's draws")
	fl.StringArrayVar(&f.io, "io", nil, "an I/O model setting `key=value` (repeatable; the keys of a platform's [io] table: fs_bandwidth, unit_bandwidth, node_bandwidth, split_duplex, stage_in, checkpoint, stage_out, drain, phase_seconds, max_phases); needs --bb-units")
}

// simData is what the flags gave a run: the transform's settings and
// counts, and the I/O model.
type simData struct {
	transform manifest.Transform
	params    sdk.Params
	seed      uint64
	counts    map[string]int64
	io        *sdk.IO
}

// platform returns the pool of procs processors named name, with the
// burst buffer the flags give it; nil, nil without --bb-units.
func (f *dataFlags) platform(name string, procs int64) (*sdk.Platform, []manifest.Resource, error) {
	if f.bbUnits == 0 && f.bbUnitCapacity == "" {
		return nil, nil, nil
	}
	if f.bbUnits <= 0 || f.bbUnitCapacity == "" {
		return nil, nil, fmt.Errorf("--bb-units and --bb-unit-capacity give the burst buffer: both are needed, the units at least 1")
	}
	c, err := manifest.ParseBytes(f.bbUnitCapacity)
	if err == nil && c <= 0 {
		err = errors.New("a unit holds at least a byte")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--bb-unit-capacity %q: %w", f.bbUnitCapacity, err)
	}
	if c > (1<<62)/f.bbUnits {
		return nil, nil, fmt.Errorf("--bb-units %d of --bb-unit-capacity %q: more bytes than a request can count", f.bbUnits, f.bbUnitCapacity)
	}
	res := []manifest.Resource{{Name: "bb", Capacity: f.bbUnits * c, Units: f.bbUnits, UnitCapacity: c, PiecesBy: sdk.Processors}}
	return manifest.Platform{Name: name, Procs: procs, Resources: res}.SDK(), res, nil
}

// apply applies the transform the flags name to jobs on plat, and reads
// the I/O model; resources are the pool's (platform). Errors are bad
// input, naming the flag.
func (f *dataFlags) apply(plat *sdk.Platform, resources []manifest.Resource, jobs []sim.Input) (*simData, error) {
	d := &simData{seed: f.transformSeed}
	if len(f.io) > 0 {
		if resources == nil {
			return nil, fmt.Errorf("--io: the I/O model moves data through a burst buffer: give --bb-units and --bb-unit-capacity")
		}
		kv, err := keyValues("io", f.io)
		if err != nil {
			return nil, err
		}
		if d.io, err = manifest.IOFlags(kv, plat); err != nil {
			return nil, err
		}
	}
	if f.transform == "" {
		if len(f.transformParams) > 0 || f.seedGiven {
			return nil, fmt.Errorf("--transform-param and --transform-seed without --transform")
		}
		return d, nil
	}
	t, ok := manifest.LookupTransform(f.transform)
	if !ok {
		var names []string
		for _, t := range manifest.Transforms() {
			names = append(names, t.Name)
		}
		return nil, fmt.Errorf("--transform %q: unknown%s (known: %s)", f.transform, manifest.DidYouMean(f.transform, names), strings.Join(names, ", "))
	}
	kv, err := keyValues("transform-param", f.transformParams)
	if err != nil {
		return nil, err
	}
	if d.params, err = sdk.ResolveParams(t.Params, kv); err != nil {
		return nil, fmt.Errorf("--transform-param: transform %s: %w", t.Name, err)
	}
	if err := t.Check(d.params, plat); err != nil {
		return nil, fmt.Errorf("--transform %s: %w", t.Name, err)
	}
	d.transform = t
	if d.counts, err = t.Apply(d.params, plat, jobs, manifest.NewRand(f.transformSeed)); err != nil {
		return nil, fmt.Errorf("--transform %s: %w", t.Name, err)
	}
	return d, nil
}

// addMetadata adds the transform's and the model's keys to a jobs file's
// metadata, as a campaign's.
func (d *simData) addMetadata(meta results.Metadata, plat *sdk.Platform) {
	if d == nil {
		return
	}
	if d.transform.Name != "" {
		meta["workload.transform"] = d.transform.Name
		meta["workload.transform.params"] = jsonText(d.transform.CanonicalParams(d.params))
		meta["workload.transform.seed"] = strconv.FormatUint(d.seed, 10)
		meta["workload.transform.counts"] = jsonText(d.counts)
	}
	if d.io != nil {
		meta["io.model"] = jsonText(manifest.IOSpec(d.io, plat.Resources))
	}
}

// print prints the transform's counts and the I/O metrics.
func (d *simData) print(w io.Writer, out *runner.Outcome) {
	if d == nil {
		return
	}
	if d.transform.Name != "" {
		var kv []string
		for _, k := range d.transform.Counts {
			kv = append(kv, fmt.Sprintf("%s %d", k, d.counts[k]))
		}
		fmt.Fprintf(w, "transform  %s (seed %d): %s\n", d.transform.Name, d.seed, strings.Join(kv, ", "))
	}
	if d.io != nil && out.Summary.IO {
		s := out.Summary
		fmt.Fprintf(w, "io  %d jobs moved %.4g bytes, %.1f s each beyond their compute on average; %d killed in their data phases\n",
			s.IOJobs, s.IOBytes, s.IOSecondsMean, s.IOKilled)
	}
}

// json is what --json says of the transform and the model.
func (d *simData) json(v map[string]any, plat *sdk.Platform) {
	if d == nil {
		return
	}
	if d.transform.Name != "" {
		v["transform"] = map[string]any{"name": d.transform.Name, "params": d.transform.CanonicalParams(d.params), "seed": d.seed, "counts": d.counts}
	}
	if d.io != nil {
		v["io"] = manifest.IOSpec(d.io, plat.Resources)
	}
}

package manifest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/burstbuffer"
)

// Transform changes the jobs of a workload after cleaning, before a run,
// for the run's platform: a manifest names it with `transform = "NAME"` in a
// [workloads.X] table, with parameters in [workloads.X.transform_params].
// The transforms are built in (Transforms): they are part of what a
// manifest means, not a plugin.
type Transform struct {
	// Name is what manifests write.
	Name string
	// Doc is a one-line description.
	Doc string
	// Params declares the parameters, checked with sdk.ResolveParams when
	// the manifest is parsed.
	Params []sdk.Param
	// Check reports whether the parameters suit a platform; the manifest
	// calls it for every platform the workload runs on. plat may have 0
	// processors (a run without a platform axis takes its size from the
	// trace).
	Check func(params sdk.Params, plat *sdk.Platform) error
	// Counts names the counts Apply returns, in the order of their columns
	// in runs.parquet (transform_NAME).
	Counts []string
	// Apply changes jobs in place. Every job's Request already has one
	// entry per resource of plat (zeros beyond the processors). rng is
	// NewRand(Seeds.Transform), so every policy of a replicate sees the
	// same jobs. It returns counts of what it did, for provenance.
	Apply func(params sdk.Params, plat *sdk.Platform, jobs []sim.Input, rng *rand.Rand) (map[string]int64, error)
}

// TransformBurstBuffer is the name of the burst-buffer request transform.
const TransformBurstBuffer = "burst-buffer-lognormal"

// TransformBurstBufferIO is the name of the burst-buffer request transform
// that also shortens each job's compute time by the data it moves.
const TransformBurstBufferIO = "burst-buffer-io"

// Transforms returns the transforms manifests may name, sorted by name.
func Transforms() []Transform {
	return []Transform{burstBufferIOTransform(), burstBufferTransform(), fModelTransform(), tsafrirTransform()}
}

// LookupTransform returns the transform called name.
func LookupTransform(name string) (Transform, bool) {
	ts := Transforms()
	i := slices.IndexFunc(ts, func(t Transform) bool { return t.Name == name })
	if i < 0 {
		return Transform{}, false
	}
	return ts[i], true
}

func transformNames() []string {
	var out []string
	for _, t := range Transforms() {
		out = append(out, t.Name)
	}
	return out
}

func paramNames(ps []sdk.Param) []string {
	out := make([]string, len(ps))
	for i, d := range ps {
		out[i] = d.Name
	}
	slices.Sort(out)
	return out
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// burstBufferTransform wraps workload/burstbuffer.
func burstBufferTransform() Transform {
	d := burstbuffer.Default()
	model := func(p sdk.Params) burstbuffer.Model {
		return burstbuffer.Model{
			Shape: p.Float("s"), Loc: p.Float("loc"), Scale: p.Float("scale"), XBytes: float64(p.Int("x_bytes")),
			MinBytes: p.Int("min_bytes"), MaxBytes: p.Int("max_bytes"),
			ShortWalltime: p.Int("short_walltime"), ShortBytes: p.Int("short_bytes"),
		}
	}
	target := func(p sdk.Params, plat *sdk.Platform) (burstbuffer.Target, error) {
		if err := model(p).Validate(); err != nil {
			return burstbuffer.Target{}, err
		}
		return burstbuffer.TargetOf(plat, p.String("resource"))
	}
	return Transform{
		Name: TransformBurstBuffer,
		Doc: "burst-buffer requests of Kopański & Rządca (Euro-Par 2021): per compute node, a log-normal draw in KiB, " +
			"clamped to [min_bytes, unit capacity], reduced to fit the units when the job's pieces do not, " +
			"short_bytes for jobs of at most short_walltime seconds",
		Params: []sdk.Param{
			{Name: "resource", Type: sdk.String, Default: "bb", Doc: "the platform resource the requests fill"},
			{Name: "s", Type: sdk.Float, Default: formatFloat(d.Shape), Doc: "SciPy lognorm shape"},
			{Name: "loc", Type: sdk.Float, Default: formatFloat(d.Loc), Doc: "SciPy lognorm loc, in units of x_bytes"},
			{Name: "scale", Type: sdk.Float, Default: formatFloat(d.Scale), Doc: "SciPy lognorm scale, in units of x_bytes"},
			{Name: "x_bytes", Type: sdk.Int, Default: strconv.Itoa(burstbuffer.KiB), Doc: "bytes per unit of the distribution (KiB)"},
			{Name: "min_bytes", Type: sdk.Int, Default: strconv.Itoa(burstbuffer.MinBytes), Doc: "floor of the per-node request (100 MB)"},
			{Name: "max_bytes", Type: sdk.Int, Default: "0", Doc: "ceiling of the per-node request; 0: the resource's unit capacity (its capacity when pooled)"},
			{Name: "short_walltime", Type: sdk.Int, Default: strconv.Itoa(burstbuffer.ShortWalltime), Doc: "jobs with a walltime at most this many seconds are short; -1: no short jobs"},
			{Name: "short_bytes", Type: sdk.Int, Default: strconv.Itoa(burstbuffer.ShortBytes), Doc: "a short job's per-node request (10 MB)"},
		},
		Counts: []string{"jobs", "drawn", "clamped_low", "clamped_high", "reduced_to_fit", "short", "no_pieces", "total_bytes"},
		Check: func(p sdk.Params, plat *sdk.Platform) error {
			_, err := target(p, plat)
			return err
		},
		Apply: func(p sdk.Params, plat *sdk.Platform, jobs []sim.Input, rng *rand.Rand) (map[string]int64, error) {
			t, err := target(p, plat)
			if err != nil {
				return nil, err
			}
			c, err := model(p).Apply(jobs, t, rng)
			if err != nil {
				return nil, err
			}
			return c.Map(), nil
		},
	}
}

// burstBufferIOTransform is burst-buffer-lognormal (the same draws for the
// same seed) followed by the authors' shortening of compute times.
func burstBufferIOTransform() Transform {
	t := burstBufferTransform()
	d := burstbuffer.DefaultShortening()
	shortening := func(p sdk.Params) burstbuffer.Shortening {
		return burstbuffer.Shortening{Factor: p.Float("io_factor"), Bandwidth: p.Float("io_bandwidth"), Floor: p.Float("io_floor"),
			ShortWalltime: p.Int("short_walltime")}
	}
	apply, check := t.Apply, t.Check
	t.Name = TransformBurstBufferIO
	t.Doc = "the requests of burst-buffer-lognormal, and each job's compute time shortened by the data it moves, " +
		"as Kopański & Rządca's I/O-aware workloads: max(runtime - io_factor x bytes per piece / io_bandwidth, io_floor x runtime), " +
		"jobs of at most short_walltime seconds kept whole; for a platform with an I/O model"
	t.Params = append(slices.Clone(t.Params),
		sdk.Param{Name: "io_factor", Type: sdk.Float, Default: formatFloat(d.Factor), Doc: "seconds of runtime taken per second a piece's bytes take at io_bandwidth (the authors' multiply_factor_runtime)"},
		sdk.Param{Name: "io_bandwidth", Type: sdk.Float, Default: formatFloat(d.Bandwidth), Doc: "bytes per second of the rule (1,250 MB/s, a node's link)"},
		sdk.Param{Name: "io_floor", Type: sdk.Float, Default: formatFloat(d.Floor), Doc: "the least share of its runtime a job computes"},
	)
	t.Counts = append(slices.Clone(t.Counts), "shortened", "at_floor", "kept", "seconds_cut")
	t.Check = func(p sdk.Params, plat *sdk.Platform) error {
		if err := shortening(p).Validate(); err != nil {
			return err
		}
		return check(p, plat)
	}
	t.Apply = func(p sdk.Params, plat *sdk.Platform, jobs []sim.Input, rng *rand.Rand) (map[string]int64, error) {
		counts, err := apply(p, plat, jobs, rng)
		if err != nil {
			return nil, err
		}
		target, err := burstbuffer.TargetOf(plat, p.String("resource"))
		if err != nil {
			return nil, err
		}
		c, err := shortening(p).Shorten(jobs, target)
		if err != nil {
			return nil, err
		}
		counts["shortened"], counts["at_floor"], counts["kept"], counts["seconds_cut"] = c.Shortened, c.AtFloor, c.Kept, c.SecondsCut
		return counts, nil
	}
	return t
}

// ResolveTransform returns the checked parameters of the workload's
// transform (its TransformParams with defaults filled in).
func (w Workload) ResolveTransform() (Transform, sdk.Params, error) {
	t, ok := LookupTransform(w.Transform)
	if !ok {
		return Transform{}, sdk.Params{}, fmt.Errorf("workload %s: unknown transform %q", w.Name, w.Transform)
	}
	p, err := sdk.ResolveParams(t.Params, w.TransformParams)
	if err != nil {
		return Transform{}, sdk.Params{}, fmt.Errorf("workload %s: transform %s: %w", w.Name, t.Name, err)
	}
	return t, p, nil
}

// transform checks a workload's transform and its parameters; the values
// are canonical (numbers in their shortest form), defaults filled in.
func (p *parser) transform(w *Workload, key []string, rw rawWorkload) {
	kt, kp := append(slices.Clone(key), "transform"), append(slices.Clone(key), "transform_params")
	if !p.md.IsDefined(kt...) {
		if p.md.IsDefined(kp...) {
			p.errAt(kp, "transform parameters without a transform (known: %s)", strings.Join(transformNames(), ", "))
		}
		return
	}
	t, ok := LookupTransform(rw.Transform)
	if !ok {
		p.errAt(kt, "unknown transform %q%s", rw.Transform, hint(rw.Transform, transformNames()))
		return
	}
	given := p.values(kp, rw.TransformParams)
	bad := false
	for _, k := range sortedKeys(given) {
		// One at a time, so that the error has the parameter's line.
		if _, err := sdk.ResolveParams(t.Params, map[string]string{k: given[k]}); err != nil {
			h := ""
			if names := paramNames(t.Params); !slices.Contains(names, k) {
				h = DidYouMean(k, names)
			}
			p.errAt(append(slices.Clone(kp), k), "transform %s: %v%s", t.Name, err, h)
			bad = true
		}
	}
	resolved, err := sdk.ResolveParams(t.Params, given)
	if bad || err != nil {
		if !bad {
			p.errAt(kp, "transform %s: %v", t.Name, err)
		}
		return
	}
	w.Transform, w.TransformParams = t.Name, t.CanonicalParams(resolved)
}

// CanonicalParams returns the values of p, the transform's resolved
// parameters, as a manifest keeps them: numbers in their shortest form,
// so that 120 and "0120" are one value.
func (t Transform) CanonicalParams(p sdk.Params) map[string]string {
	values := p.Values()
	for _, d := range t.Params {
		switch d.Type {
		case sdk.Float:
			values[d.Name] = formatFloat(p.Float(d.Name))
		case sdk.Int:
			values[d.Name] = strconv.FormatInt(p.Int(d.Name), 10)
		}
	}
	return values
}

// checkTransforms checks every workload's transform against the platform
// of each run it is part of, once per pair.
func (p *parser) checkTransforms(m *Manifest, runs []Run) {
	seen := map[[2]string]bool{}
	for _, r := range runs {
		w := m.Workloads[r.Workload]
		pair := [2]string{r.Workload, r.Platform}
		if w.Transform == "" || seen[pair] {
			continue
		}
		seen[pair] = true
		t, params, err := w.ResolveTransform()
		if err == nil {
			err = t.Check(params, r.SDKPlatform(m, r.Procs(m)))
		}
		if err != nil {
			on := "without a platform axis (processors only)"
			if r.Platform != "" {
				on = "on platform " + r.Platform
			}
			p.errAt([]string{"workloads", r.Workload, "transform"}, "%s %s: %v", w.Transform, on, err)
		}
	}
}

// SDKPlatform returns the run's platform for the engine: its platform's
// (Platform.SDK) when it has one, else one cluster of procs processors named
// after the workload (procs is the workload's size, from the trace header
// when the manifest gives none).
func (r Run) SDKPlatform(m *Manifest, procs int64) *sdk.Platform {
	if r.Platform != "" {
		return m.Platforms[r.Platform].SDK()
	}
	return sdk.SingleCluster(r.Workload, procs)
}

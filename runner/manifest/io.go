package manifest

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// rawIO is a [platforms.NAME.io] table: the model of jobs that move data
// through the platform's burst buffer (sdk.IO).
type rawIO struct {
	Resource      string `toml:"resource"`
	FSBandwidth   any    `toml:"fs_bandwidth"`
	UnitBandwidth any    `toml:"unit_bandwidth"`
	SplitDuplex   *bool  `toml:"split_duplex"`
	NodeBandwidth any    `toml:"node_bandwidth"`
	StageIn       any    `toml:"stage_in"`
	Checkpoint    any    `toml:"checkpoint"`
	StageOut      any    `toml:"stage_out"`
	Drain         *bool  `toml:"drain"`
	PhaseSeconds  any    `toml:"phase_seconds"`
	MaxPhases     any    `toml:"max_phases"`
}

// The defaults of an I/O model are those of Kopański and Rządca's
// I/O-aware simulator (burstbuffer/io_aware.py and
// scheduler_options.json, commit 55cbeed of
// github.com/jankopanski/Burst-Buffer-Scheduling): stage in and out each
// piece's size, checkpoints of half of it drained to the file system,
// compute phases of about an hour, at most 10.
const (
	defaultIOStageIn      = 1.0
	defaultIOCheckpoint   = 0.5
	defaultIOStageOut     = 1.0
	defaultIOPhaseSeconds = 3600
	defaultIOMaxPhases    = 10
)

var bandwidthRE = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)(?:/s)?\s*$`)

// ParseBandwidth reads a bandwidth: a number of bytes per second, or a
// string of a number and a unit of bytes (ParseBytes's), optionally "/s":
// "1250 MB/s", "5GB/s".
func ParseBandwidth(v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		if x <= 0 {
			return 0, fmt.Errorf("a bandwidth must be positive, got %d", x)
		}
		return float64(x), nil
	case float64:
		if !(x > 0) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("a bandwidth must be a positive finite number, got %v", x)
		}
		return x, nil
	case string:
		m := bandwidthRE.FindStringSubmatch(x)
		if m == nil {
			return 0, fmt.Errorf("%q is not a bandwidth (a number and a unit: \"1250 MB/s\")", x)
		}
		unit, ok := byteUnits[strings.ToLower(m[2])]
		if !ok {
			return 0, fmt.Errorf("%q: unknown unit %q (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, each optionally per second: \"/s\")", x, m[2])
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		if n <= 0 {
			return 0, fmt.Errorf("%q: a bandwidth must be positive", x)
		}
		return n * unit, nil
	}
	return 0, fmt.Errorf("a bandwidth is a number of bytes per second or a string with a unit (\"1250 MB/s\"), not %T", v)
}

// ioInput takes the errors of an I/O model's settings, each by its key
// within the [platforms.NAME.io] table (none: the table).
type ioInput interface {
	errAt(key []string, format string, args ...any)
}

// tableErrs is the ioInput of a manifest's table at key.
type tableErrs struct {
	p   *parser
	key []string
}

func (t tableErrs) errAt(key []string, format string, args ...any) {
	t.p.errAt(append(slices.Clone(t.key), key...), format, args...)
}

// ioModel reads a platform's [platforms.NAME.io] table and checks it
// against plat, the platform's SDK form; nil without one.
func (p *parser) ioModel(name string, ri *rawIO, plat *sdk.Platform) *sdk.IO {
	if ri == nil {
		return nil
	}
	m := readIO(tableErrs{p, []string{"platforms", name, "io"}}, ri, plat)
	if m != nil {
		if err := m.Validate(plat); err != nil {
			p.errAt([]string{"platforms", name, "io"}, "%v", err)
		}
	}
	return m
}

// readIO reads the settings of an I/O model for platform plat, of one
// cluster, its errors told to in.
func readIO(in ioInput, ri *rawIO, plat *sdk.Platform) *sdk.IO {
	// The burst buffers: the resources divided into units, in order.
	var divided []string
	for k, name := range plat.Resources {
		if slices.ContainsFunc(plat.Clusters[0].Units, func(u sdk.Units) bool { return u.Resource == k }) {
			divided = append(divided, name)
		}
	}
	m := &sdk.IO{StageIn: defaultIOStageIn, Checkpoint: defaultIOCheckpoint, StageOut: defaultIOStageOut,
		Drain: true, PhaseSeconds: defaultIOPhaseSeconds, MaxPhases: defaultIOMaxPhases}
	res := ri.Resource
	switch {
	case res == "" && len(divided) == 1:
		res = divided[0]
	case len(divided) == 0:
		in.errAt([]string(nil), "the platform has no resource divided into units (units, unit_capacity: a burst buffer) for the model to move data through")
		return nil
	case res == "":
		in.errAt([]string(nil), "resource: name the burst buffer, one of the platform's resources divided into units (%s)", strings.Join(divided, ", "))
		return nil
	case !slices.Contains(divided, res):
		in.errAt([]string{"resource"}, "%q is not a resource of the platform divided into units (units, unit_capacity)%s", res, hint(res, divided))
		return nil
	}
	m.Resource = plat.Resource(res)
	ok := true
	bandwidth := func(k string, v any, required bool) float64 {
		if v == nil {
			if required {
				in.errAt([]string(nil), "%s is required: bytes per second, or a string with a unit (\"1250 MB/s\")", k)
				ok = false
			}
			return 0
		}
		b, err := ParseBandwidth(v)
		if err != nil {
			in.errAt([]string{k}, "%v", err)
			ok = false
		}
		return b
	}
	m.FSBandwidth = bandwidth("fs_bandwidth", ri.FSBandwidth, true)
	m.UnitBandwidth = bandwidth("unit_bandwidth", ri.UnitBandwidth, true)
	m.NodeBandwidth = bandwidth("node_bandwidth", ri.NodeBandwidth, false)
	factor := func(k string, v any, into *float64) {
		if v == nil {
			return
		}
		x, okx := number(v)
		if !okx || !(x >= 0 && x <= 1) {
			in.errAt([]string{k}, "%v is not a share of each piece's size from 0 to 1 (a phase moves at most the job's burst-buffer space)", v)
			ok = false
			return
		}
		*into = x
	}
	factor("stage_in", ri.StageIn, &m.StageIn)
	factor("checkpoint", ri.Checkpoint, &m.Checkpoint)
	factor("stage_out", ri.StageOut, &m.StageOut)
	if ri.SplitDuplex != nil {
		m.SplitDuplex = *ri.SplitDuplex
	}
	if ri.Drain != nil {
		m.Drain = *ri.Drain
	}
	if m.Checkpoint == 0 && ri.Drain == nil {
		m.Drain = false // nothing to drain
	}
	if ri.PhaseSeconds != nil {
		s, err := ParseSeconds(ri.PhaseSeconds)
		if err != nil || s < 0 {
			in.errAt([]string{"phase_seconds"}, "a compute phase's target length: %v", errOr(err, "negative"))
			ok = false
		}
		m.PhaseSeconds = s
	}
	if ri.MaxPhases != nil {
		n, isInt := ri.MaxPhases.(int64)
		if !isInt || n < 1 || n > 1_000_000 {
			in.errAt([]string{"max_phases"}, "%v is not a number of compute phases from 1 to 1,000,000", ri.MaxPhases)
			ok = false
		}
		m.MaxPhases = int(n)
	}
	if !ok {
		return nil
	}
	return m
}

// ioKeys are the keys of a [platforms.NAME.io] table.
var ioKeys = []string{"resource", "fs_bandwidth", "unit_bandwidth", "split_duplex", "node_bandwidth",
	"stage_in", "checkpoint", "stage_out", "drain", "phase_seconds", "max_phases"}

// IOFlags reads an I/O model from the settings of a [platforms.NAME.io]
// table given as text (schedlab sim's --io KEY=VALUE: "fs_bandwidth=5000
// MB/s"), for platform plat, of one cluster, as a manifest's table with
// the same settings would be; errors name the setting as --io KEY.
func IOFlags(values map[string]string, plat *sdk.Platform) (*sdk.IO, error) {
	in := &ioFlagErrs{}
	ri := &rawIO{}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v := values[k]
		switch k {
		case "resource":
			ri.Resource = v
		case "fs_bandwidth":
			ri.FSBandwidth = v
		case "unit_bandwidth":
			ri.UnitBandwidth = v
		case "node_bandwidth":
			ri.NodeBandwidth = v
		case "phase_seconds":
			ri.PhaseSeconds = v
		case "split_duplex", "drain":
			b, err := strconv.ParseBool(v)
			if err != nil {
				in.errAt([]string{k}, "%q is not true or false", v)
				continue
			}
			if k == "drain" {
				ri.Drain = &b
			} else {
				ri.SplitDuplex = &b
			}
		case "stage_in", "checkpoint", "stage_out":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				in.errAt([]string{k}, "%q is not a number", v)
				continue
			}
			switch k {
			case "stage_in":
				ri.StageIn = x
			case "checkpoint":
				ri.Checkpoint = x
			default:
				ri.StageOut = x
			}
		case "max_phases":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				in.errAt([]string{k}, "%q is not a whole number", v)
				continue
			}
			ri.MaxPhases = n
		default:
			in.errAt([]string{k}, "unknown setting%s (known: %s)", DidYouMean(k, ioKeys), strings.Join(ioKeys, ", "))
		}
	}
	if len(in.errs) > 0 {
		return nil, errors.Join(in.errs...)
	}
	m := readIO(in, ri, plat)
	if len(in.errs) > 0 {
		return nil, errors.Join(in.errs...)
	}
	return m, nil
}

// ioFlagErrs is the ioInput of --io flags.
type ioFlagErrs struct{ errs []error }

func (in *ioFlagErrs) errAt(key []string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(key) == 0 {
		in.errs = append(in.errs, fmt.Errorf("--io: %s", msg))
		return
	}
	in.errs = append(in.errs, fmt.Errorf("--io %s: %s", key[0], msg))
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// ioSpec is an I/O model in a run's spec, its keys in order.
type ioSpec struct {
	Checkpoint    float64 `json:"checkpoint"`
	Drain         bool    `json:"drain"`
	FSBandwidth   float64 `json:"fs_bandwidth"`
	MaxPhases     int     `json:"max_phases"`
	NodeBandwidth float64 `json:"node_bandwidth"`
	PhaseSeconds  int64   `json:"phase_seconds"`
	Resource      string  `json:"resource"`
	SplitDuplex   bool    `json:"split_duplex"`
	StageIn       float64 `json:"stage_in"`
	StageOut      float64 `json:"stage_out"`
	UnitBandwidth float64 `json:"unit_bandwidth"`
}

// IOSpec returns the spec of I/O model m of a platform whose resources
// are names (nil without a model), as a run's spec and its jobs file
// record it.
func IOSpec(m *sdk.IO, names []string) any {
	if m == nil {
		return nil
	}
	return specIO(m, names)
}

func specIO(m *sdk.IO, names []string) *ioSpec {
	if m == nil {
		return nil
	}
	return &ioSpec{Checkpoint: m.Checkpoint, Drain: m.Drain, FSBandwidth: m.FSBandwidth, MaxPhases: m.MaxPhases,
		NodeBandwidth: m.NodeBandwidth, PhaseSeconds: m.PhaseSeconds, Resource: names[m.Resource], SplitDuplex: m.SplitDuplex,
		StageIn: m.StageIn, StageOut: m.StageOut, UnitBandwidth: m.UnitBandwidth}
}

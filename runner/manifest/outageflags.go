package manifest

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/workload/outages"
)

// OutageFlags are the outages `schedlab sim`'s flags give a platform of
// nodes: the settings of a [platforms.NAME.outages] table but drains,
// each named as its key with dashes (--failure-model for failure_model),
// read as the table is (readOutages). Times are strings, a number of
// seconds or a number and a unit ("30d"). Windows are maintenance windows
// on the whole machine, each "START,DURATION[,EVERY]"; "" leaves a setting
// out. In JSON (the Gymnasium environment's requests) each is named as
// its key.
type OutageFlags struct {
	OnFailure          string   `json:"on_failure,omitempty"`
	Requeue            string   `json:"requeue,omitempty"`
	Maintenance        string   `json:"maintenance,omitempty"`
	FailuresFile       string   `json:"failures_file,omitempty"`
	FailuresSHA256     string   `json:"failures_sha256,omitempty"`
	FailureModel       string   `json:"failure_model,omitempty"`
	MTBF               string   `json:"mtbf,omitempty"`
	WeibullShape       string   `json:"weibull_shape,omitempty"`
	Repair             string   `json:"repair,omitempty"`
	MTTR               string   `json:"mttr,omitempty"`
	RepairSigma        string   `json:"repair_sigma,omitempty"`
	FailureHorizon     string   `json:"failure_horizon,omitempty"`
	CheckpointInterval string   `json:"checkpoint_interval,omitempty"`
	CheckpointCost     string   `json:"checkpoint_cost,omitempty"`
	RestartCost        string   `json:"restart_cost,omitempty"`
	CheckpointMTBF     string   `json:"checkpoint_mtbf,omitempty"`
	Windows            []string `json:"windows,omitempty"`
	// Names names a setting in errors by its table key (mtbf,
	// windows...); nil names it as sim's flag (FlagName).
	Names func(key string) string `json:"-"`
}

// Set reports whether any flag gives outages.
func (f *OutageFlags) Set() bool {
	for _, v := range f.values() {
		if v != "" {
			return true
		}
	}
	return len(f.Windows) > 0
}

// values maps the table's keys to the flags' values.
func (f *OutageFlags) values() map[string]string {
	return map[string]string{
		"on_failure": f.OnFailure, "requeue": f.Requeue, "maintenance": f.Maintenance,
		"failures_file": f.FailuresFile, "failures_sha256": f.FailuresSHA256,
		"failure_model": f.FailureModel, "mtbf": f.MTBF, "weibull_shape": f.WeibullShape,
		"repair": f.Repair, "mttr": f.MTTR, "repair_sigma": f.RepairSigma, "failure_horizon": f.FailureHorizon,
		"checkpoint_interval": f.CheckpointInterval, "checkpoint_cost": f.CheckpointCost,
		"restart_cost": f.RestartCost, "checkpoint_mtbf": f.CheckpointMTBF,
	}
}

// FlagName is the flag of the outages table's key k: --failure-model for
// failure_model, --maintenance-window for windows.
func FlagName(k string) string {
	if k == "windows" {
		return "--maintenance-window"
	}
	return "--" + strings.ReplaceAll(k, "_", "-")
}

// Settings reads the flags into the outages of a platform of nodes nodes,
// as a manifest's table with the same settings would be; errors name the
// flags.
func (f *OutageFlags) Settings(nodes int32) (*outages.Settings, error) {
	in := &flagInput{values: f.values(), windows: f.Windows, names: f.Names}
	if in.names == nil {
		in.names = FlagName
	}
	ro := &rawOutages{OnFailure: f.OnFailure, Requeue: f.Requeue, Maintenance: f.Maintenance,
		FailuresFile: f.FailuresFile, FailuresSHA256: f.FailuresSHA256, FailureModel: f.FailureModel, Repair: f.Repair}
	for _, t := range []struct {
		dst *any
		v   string
	}{{&ro.MTBF, f.MTBF}, {&ro.MTTR, f.MTTR}, {&ro.FailureHorizon, f.FailureHorizon}, {&ro.Interval, f.CheckpointInterval},
		{&ro.CheckCost, f.CheckpointCost}, {&ro.RestartCost, f.RestartCost}, {&ro.CheckMTBF, f.CheckpointMTBF}} {
		if t.v != "" {
			*t.dst = t.v
		}
	}
	for _, t := range []struct {
		dst *float64
		key string
	}{{&ro.WeibullShape, "weibull_shape"}, {&ro.RepairSigma, "repair_sigma"}} {
		if v := in.values[t.key]; v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				in.errAt([]string{t.key}, "%q is not a number", v)
			}
			*t.dst = x
		}
	}
	for i, w := range f.Windows {
		parts := strings.Split(w, ",")
		if len(parts) < 2 || len(parts) > 3 {
			in.errAt([]string{"windows", strconv.Itoa(i)}, "want START,DURATION or START,DURATION,EVERY")
			continue
		}
		rw := rawWindow{Start: strings.TrimSpace(parts[0]), Duration: strings.TrimSpace(parts[1])}
		if len(parts) == 3 {
			rw.Every = strings.TrimSpace(parts[2])
		}
		ro.Windows = append(ro.Windows, rw)
	}
	if len(in.errs) > 0 {
		return nil, errors.Join(in.errs...)
	}
	s := readOutages(in, ro, nodes)
	if len(in.errs) > 0 {
		return nil, errors.Join(in.errs...)
	}
	return s, nil
}

// flagInput is readOutages's input from OutageFlags.
type flagInput struct {
	values  map[string]string
	windows []string
	names   func(key string) string
	errs    []error
}

// tableKeyRE finds the outages table's keys in messages of
// outages.Settings.Check and readOutages, to name them as flags.
var tableKeyRE = regexp.MustCompile(`\b(failure_model|failure_horizon|failures_file|failures_sha256|weibull_shape|repair_sigma|repair|mtbf|mttr|on_failure|checkpoint_interval|checkpoint_cost|checkpoint_mtbf|restart_cost|windows\[([0-9]+)\])`)

func (in *flagInput) errAt(key []string, format string, args ...any) {
	msg := tableKeyRE.ReplaceAllStringFunc(fmt.Sprintf(format, args...), func(k string) string {
		if m := tableKeyRE.FindStringSubmatch(k); m[2] != "" {
			i, _ := strconv.Atoi(m[2])
			return in.window(i)
		}
		return in.names(k)
	})
	// A setting's value as a flag's: --on-failure "requeue".
	msg = strings.ReplaceAll(msg, ` = "`, ` "`)
	switch {
	case len(key) == 0:
		in.errs = append(in.errs, errors.New(msg))
	case key[0] == "windows" && len(key) > 1:
		i, _ := strconv.Atoi(key[1])
		in.errs = append(in.errs, fmt.Errorf("%s: %s", in.window(i), msg))
	default:
		in.errs = append(in.errs, fmt.Errorf("%s: %s", in.names(key[0]), msg))
	}
}

// window names the i-th --maintenance-window flag by its value.
func (in *flagInput) window(i int) string {
	if i < len(in.windows) {
		return fmt.Sprintf("%s %q", in.names("windows"), in.windows[i])
	}
	return in.names("windows")
}

func (in *flagInput) defined(k string) bool { return in.values[k] != "" }

func (in *flagInput) path(s string) string { return filepath.Clean(s) }

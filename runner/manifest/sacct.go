package manifest

import (
	"slices"
	"strings"

	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/pwa"
	"github.com/schedlab/schedlab/workload/sacct"
)

// The formats of a workload's trace (the key format).
const (
	// FormatSWF is the Standard Workload Format, the default.
	FormatSWF = "swf"
	// FormatSacct is a Slurm accounting log (`sacct -P`), read by
	// workload/sacct.
	FormatSacct = sacct.Format
)

// The values of a sacct log's priority key.
const (
	PriorityNone = "none"
	PriorityLog  = "log"
)

// logKeys are a sacct log's keys besides format and partitions, with the
// name of the setting each is.
var logKeys = []struct{ key, setting string }{
	{"tres", nodes.SettingTRES},
	{"constraints", nodes.SettingConstraints},
	{"unknown_partition", nodes.SettingUnknownPartition},
}

// logFormat reads a workload's format and, for a sacct log, its settings
// into w.Log; it reports whether the workload is a sacct log. The keys of
// a sacct log are errors on any other workload.
func (p *parser) logFormat(w *Workload, key func(k ...string) []string, rw rawWorkload, hasTrace bool) bool {
	switch rw.Format {
	case "", FormatSWF:
	case FormatSacct:
		switch {
		case !hasTrace:
			p.errAt(key("format"), "a sacct log is a trace: set trace to its path")
			return false
		case strings.HasPrefix(rw.Trace, pwa.Scheme):
			p.errAt(key("format"), "%s is an SWF log of the archive, not a sacct log", rw.Trace)
			return false
		}
		w.Format = FormatSacct
	default:
		p.errAt(key("format"), "%q is not a trace format: want %q (the default) or %q", rw.Format, FormatSWF, FormatSacct)
	}
	values := []string{rw.TRES, rw.Constraints, rw.UnknownPartition}
	if w.Format != FormatSacct {
		for _, k := range append(slices.Clone(logKeys), struct{ key, setting string }{"groups", ""}, struct{ key, setting string }{"priority", ""}) {
			if p.md.IsDefined(key(k.key)...) {
				p.errAt(key(k.key), "applies to a sacct log only (format = %q)", FormatSacct)
			}
		}
		return false
	}
	switch rw.Groups {
	case "", sacct.GroupsGroup:
	case sacct.GroupsAccount:
		w.Groups = sacct.GroupsAccount
	default:
		p.errAt(key("groups"), "%q: want %q (each job's Unix group, the default) or %q (its Slurm account)", rw.Groups, sacct.GroupsGroup, sacct.GroupsAccount)
	}
	switch rw.Priority {
	case "", PriorityNone:
	case PriorityLog:
		w.Priority = PriorityLog
	default:
		p.errAt(key("priority"), "%q: want %q (every job's priority 0, the default) or %q (the log's Priority)", rw.Priority, PriorityNone, PriorityLog)
	}
	l := &nodes.LogSettings{TRES: rw.TRES, Constraints: rw.Constraints, UnknownPartition: rw.UnknownPartition}
	for i, k := range logKeys {
		choices := nodes.LogChoices(k.setting)
		switch v := values[i]; {
		case v == "" && p.md.IsDefined(key(k.key)...):
			p.errAt(key(k.key), "must not be empty: one of %v", choices)
		case v == "":
		case !slices.Contains(choices, v):
			p.errAt(key(k.key), "%q: want one of %v%s", v, choices, hint(v, choices))
		}
	}
	if l.TRES == "" {
		l.TRES = nodes.LogChoices(nodes.SettingTRES)[0]
	}
	if l.Constraints == "" {
		l.Constraints = nodes.LogChoices(nodes.SettingConstraints)[0]
	}
	if l.UnknownPartition == "" {
		l.UnknownPartition = nodes.LogChoices(nodes.SettingUnknownPartition)[0]
	}
	w.Log = l
	return true
}

// logPartitions reads a sacct log's partitions table: the log's partition
// names to the platform's.
func (p *parser) logPartitions(name string, raw map[string]string) map[string]string {
	if len(raw) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, k := range sortedKeys(raw) {
		if k == "" || strings.ContainsAny(k, ",=") {
			p.errAt([]string{"workloads", name, "partitions", k}, "%q is not a Slurm partition name", k)
			continue
		}
		out[k] = raw[k]
	}
	return out
}

// logSpec is what a sacct log adds to its workload's spec: its settings
// (nodes.LogSettings), without the partitions table, which the spec's
// partitions holds.
func logSpec(l *nodes.LogSettings) map[string]string {
	if l == nil {
		return nil
	}
	return map[string]string{nodes.SettingTRES: l.TRES, nodes.SettingConstraints: l.Constraints, nodes.SettingUnknownPartition: l.UnknownPartition}
}

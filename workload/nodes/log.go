package nodes

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
)

// The names of the settings of a log of nodes (LogSettings) and their
// values.
const (
	// SettingTRES: which of a job's trackable resources a log of nodes
	// gives its request: ReqTRES or AllocTRES. A job whose chosen TRES is
	// missing takes the other (CountTRESFallback), and one with neither
	// its processors as cores (CountTRESMissing).
	SettingTRES = "tres"
	// TRESRequested reads ReqTRES.
	TRESRequested = "requested"
	// TRESAllocated reads AllocTRES.
	TRESAllocated = "allocated"

	// SettingConstraints: what becomes of a job's constraints.
	SettingConstraints = "constraints"
	// ConstraintsRequired makes the features of a constraint of names
	// joined by '&' required of every node of the job; an expression with
	// '|', brackets, counts or parentheses cannot be, and is ignored
	// (CountConstraintsUnsupported).
	ConstraintsRequired = "required"
	// ConstraintsIgnore ignores every constraint (CountConstraintsIgnored).
	ConstraintsIgnore = "ignore"

	// SettingUnknownPartition: what becomes of a job whose partition is not
	// in the partitions table (LogSettings.Partitions).
	SettingUnknownPartition = "unknown-partition"
	// PartitionDefault puts it in the platform's default partition
	// (CountPartitionDefault).
	PartitionDefault = "default"
	// PartitionDrop drops it (CountPartitionUnknownDropped).
	PartitionDrop = "drop"
	// PartitionFail makes the run fail, naming the job's line.
	PartitionFail = "error"
)

// LogSettings are the settings of the mapping of a log of nodes (a sacct
// log: workload.Workload.Requests) onto nodes. The zero value takes every
// default.
type LogSettings struct {
	TRES             string
	Constraints      string
	UnknownPartition string
	// Partitions maps the log's partition names to the platform's.
	Partitions map[string]string
}

var logChoices = map[string][]string{
	SettingTRES:             {TRESRequested, TRESAllocated},
	SettingConstraints:      {ConstraintsRequired, ConstraintsIgnore},
	SettingUnknownPartition: {PartitionDefault, PartitionDrop, PartitionFail},
}

// LogChoices returns the values a setting of a log of nodes takes, the
// default first; nil for an unknown name.
func LogChoices(name string) []string { return slices.Clone(logChoices[name]) }

// resolved fills in the defaults and checks the values, the partitions
// table against p and the memory setting, which for a log is the memory
// of the TRES read (requested) or none.
func (l LogSettings) resolved(p *sdk.Platform, memory string) (LogSettings, error) {
	for _, f := range []struct {
		v    *string
		name string
	}{{&l.TRES, SettingTRES}, {&l.Constraints, SettingConstraints}, {&l.UnknownPartition, SettingUnknownPartition}} {
		if *f.v == "" {
			*f.v = logChoices[f.name][0]
		}
		if !slices.Contains(logChoices[f.name], *f.v) {
			return l, fmt.Errorf("%w: %s = %q: want one of %v", ErrSetting, f.name, *f.v, logChoices[f.name])
		}
	}
	if memory == MemoryUsed || memory == MemoryRequestedElseUsed {
		return l, fmt.Errorf("%w: %s = %q: a sacct log gives no memory used per node (MaxRSS is one task's peak): want %s (the TRES's) or %s",
			ErrSetting, SettingMemory, memory, MemoryRequested, MemoryNone)
	}
	if len(p.Clusters) == 1 {
		for _, name := range slices.Sorted(maps.Keys(l.Partitions)) {
			part := l.Partitions[name]
			if !slices.ContainsFunc(p.Clusters[0].Partitions, func(pt sdk.Partition) bool { return pt.Name == part }) {
				return l, fmt.Errorf("%w: log partition %q maps to %q, not a partition of platform %q", ErrSetting, name, part, p.Name)
			}
		}
	}
	return l, nil
}

// addTo adds the settings to m, by name; the partitions table as
// "partitions" ("debug=thin,general=thin", in name order), when there is
// one.
func (l *LogSettings) addTo(m map[string]string) {
	m[SettingTRES], m[SettingConstraints], m[SettingUnknownPartition] = l.TRES, l.Constraints, l.UnknownPartition
	if len(l.Partitions) > 0 {
		m["partitions"] = NameTable(l.Partitions)
	}
}

// NameTable writes a table of partition names in name order:
// "debug=thin,general=thin".
func NameTable(t map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(t)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + t[k])
	}
	return b.String()
}

// The counts of a log of nodes (Apply with Settings.Log), by name, besides
// CountNames' (exclusive, shared, memory-unknown, partition-mapped,
// partition-default, oversize-dropped, oversize-clamped and the walltime
// counts).
const (
	CountTRESRequested = "tres-requested" // amounts from ReqTRES
	CountTRESAllocated = "tres-allocated" // from AllocTRES
	// CountTRESFallback counts the jobs whose chosen TRES is missing and
	// which took the other (also counted by the one they took).
	CountTRESFallback = "tres-fallback"
	// CountTRESMissing counts the jobs with neither: their processors
	// (SWF fields 8 and 5, from ReqCPUS and AllocCPUS) are their cores.
	CountTRESMissing = "tres-missing"
	CountMemoryTRES  = "memory-tres" // memory from the TRES read
	// CountNodesFromNNodes: the TRES gives no node count; NNodes does.
	CountNodesFromNNodes = "nodes-from-nnodes"
	// CountNodesUnknown: no node count at all; the node-size rule makes
	// one from the cores and memory, as for SWF.
	CountNodesUnknown = "nodes-unknown"
	// CountPerNodeRoundedUp: cores, memory or GPUs not a multiple of the
	// node count; each node's share rounded up.
	CountPerNodeRoundedUp = "per-node-rounded-up"
	CountGPUs             = "gpus" // jobs asking for GPUs
	// CountPartitionUnknownDropped: partition not in the table, dropped
	// (unknown-partition = drop).
	CountPartitionUnknownDropped = "partition-unknown-dropped"
	CountConstraintsRequired     = "constraints-required"    // features required
	CountConstraintsIgnored      = "constraints-ignored"     // constraints = ignore
	CountConstraintsUnsupported  = "constraints-unsupported" // not names joined by '&': ignored
	// CountFeatureUnknownDropped and CountFeatureUnknownClamped count the
	// jobs that require a feature no node of the platform has, under
	// oversize = drop and clamp (which requires only the known features).
	CountFeatureUnknownDropped = "feature-unknown-dropped"
	CountFeatureUnknownClamped = "feature-unknown-clamped"
)

// LogCountNames returns the names of the counts only a log of nodes has,
// in a fixed order.
func LogCountNames() []string {
	return []string{CountTRESRequested, CountTRESAllocated, CountTRESFallback, CountTRESMissing, CountMemoryTRES,
		CountNodesFromNNodes, CountNodesUnknown, CountPerNodeRoundedUp, CountGPUs, CountPartitionUnknownDropped,
		CountConstraintsRequired, CountConstraintsIgnored, CountConstraintsUnsupported, CountFeatureUnknownDropped, CountFeatureUnknownClamped}
}

// logTasks sets t, the tasks of job j, from its request r in a log of
// nodes: one task a node, each the node's share of the job's cores,
// memory and GPUs, on exactly the job's number of nodes. It reports
// whether the job is kept (a drop is counted in counts, the rest in
// flags); perNode is always true (the tasks are one a node, which the
// oversize rule's clamp keeps).
func (m *mapper) logTasks(j *sdk.Job, r *workload.NodeRequest, t *sdk.Tasks, s Settings, counts, flags map[string]int64) (perNode, keep bool, err error) {
	l := s.Log
	res, other, chosen, otherName := r.Requested, r.Allocated, CountTRESRequested, CountTRESAllocated
	if l.TRES == TRESAllocated {
		res, other, chosen, otherName = other, res, otherName, chosen
	}
	switch {
	case res.Known && res.CPUs > 0:
		flags[chosen]++
	case other.Known && other.CPUs > 0:
		res = other
		flags[otherName]++
		flags[CountTRESFallback]++
	default:
		res = workload.Resources{CPUs: j.Request[0], Nodes: -1, Memory: -1, GPUs: -1}
		flags[CountTRESMissing]++
	}

	if name, ok := l.Partitions[r.Partition]; ok {
		t.Partition = m.parts[name]
		flags[CountPartitionMapped]++
	} else {
		switch l.UnknownPartition {
		case PartitionDrop:
			counts[CountPartitionUnknownDropped]++
			return true, false, nil
		case PartitionFail:
			return true, false, fmt.Errorf("partition %q is not in the workload's partitions table (%s=%s)", r.Partition, SettingUnknownPartition, PartitionFail)
		}
		flags[CountPartitionDefault]++
	}

	var mem int64
	if s.Memory != MemoryNone {
		if res.Memory > 0 {
			mem = res.Memory
			flags[CountMemoryTRES]++
		} else {
			flags[CountMemoryUnknown]++
		}
	}
	gpus := max(res.GPUs, 0)
	if gpus > 0 {
		flags[CountGPUs]++
	}
	cpus := res.CPUs
	n := res.Nodes
	if n < 1 {
		if r.Nodes > 0 {
			n = r.Nodes
			flags[CountNodesFromNNodes]++
		} else {
			per := sdk.Tasks{Count: sat32(cpus), Cores: 1, Memory: ceilDiv(mem, cpus), Partition: t.Partition}
			n = int64(m.nodesFor(&per, s.NodeSize))
			flags[CountNodesUnknown]++
		}
	}
	if cpus%n != 0 || mem%n != 0 || gpus%n != 0 {
		flags[CountPerNodeRoundedUp]++
	}
	t.Count, t.Nodes = sat32(n), sat32(n)
	t.Cores, t.Memory, t.GPUs = sat32(ceilDiv(cpus, n)), ceilDiv(mem, n), sat32(ceilDiv(gpus, n))

	if c := strings.TrimSpace(r.Constraints); c != "" {
		switch names, ok := andList(c); {
		case l.Constraints == ConstraintsIgnore:
			flags[CountConstraintsIgnored]++
		case !ok:
			flags[CountConstraintsUnsupported]++
		default:
			var unknown []string
			for _, f := range names {
				if k, found := slices.BinarySearch(m.features, f); found {
					t.Features |= 1 << k
				} else {
					unknown = append(unknown, f)
				}
			}
			if len(unknown) == 0 {
				flags[CountConstraintsRequired]++
				break
			}
			switch s.Oversize {
			case Fail:
				return true, false, fmt.Errorf("constraint %q: no node of the platform has feature %q (%s=%s)", c, unknown[0], SettingOversize, Fail)
			case Drop:
				counts[CountFeatureUnknownDropped]++
				return true, false, nil
			}
			flags[CountFeatureUnknownClamped]++
		}
	}
	return true, true, nil
}

// andList splits a constraint of feature names joined by '&' ("intel&ib");
// ok is false for any other expression.
func andList(c string) ([]string, bool) {
	names := strings.Split(c, "&")
	for _, n := range names {
		if n == "" || strings.ContainsFunc(n, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':')
		}) {
			return nil, false
		}
	}
	return names, true
}

// clampPerNode cuts tasks of one a node down to what their partition
// holds: each task to the largest node's cores, memory and GPUs, the nodes
// to the partition's and its limit.
func (m *mapper) clampPerNode(t *sdk.Tasks) {
	var c sdk.Amount
	for _, g := range m.groups[t.Partition] {
		c = sdk.Amount{Cores: max(c.Cores, g.Cores), Memory: max(c.Memory, g.Memory), GPUs: max(c.GPUs, g.GPUs)}
	}
	t.Cores = int32(min(int64(t.Cores), c.Cores))
	t.Memory = min(t.Memory, c.Memory)
	t.GPUs = int32(min(int64(t.GPUs), c.GPUs))
	n := m.nodes[t.Partition]
	if lim := m.maxNodes[t.Partition]; lim > 0 {
		n = min(n, lim)
	}
	t.Nodes = min(t.Nodes, n)
	t.Count = t.Nodes
}

// ceilDiv is a / b rounded up, for a >= 0 and b > 0; 0 when b <= 0.
func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// sat32 converts to int32, saturating: a count no node holds is then
// refused by the oversize rule rather than wrapped around.
func sat32(v int64) int32 { return int32(min(max(v, math.MinInt32), math.MaxInt32)) }

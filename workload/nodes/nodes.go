// Package nodes maps the jobs of a trace, which ask for processors, onto a
// platform of nodes: each job becomes tasks (sdk.Tasks) by named settings,
// and every job a rule touched is counted, so that the mapping is as
// visible in provenance as the cleaning of the trace (docs/semantics.md).
package nodes

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
)

// The names of the settings (Settings.Map) and their values.
const (
	// SettingAllocation: how a job holds nodes.
	SettingAllocation = "allocation"
	// Exclusive jobs hold whole nodes: as many as their processors need
	// at one processor a task (see SettingNodeSize), none shared.
	Exclusive = "exclusive"
	// Shared jobs hold their tasks' cores and memory on nodes other jobs
	// may share: one task a processor, on any number of nodes.
	Shared = "shared"

	// SettingMemory: what a task's memory is (per processor, SWF fields
	// 10 and 7).
	SettingMemory = "memory"
	// MemoryRequested is the requested memory (field 10).
	MemoryRequested = "requested"
	// MemoryUsed is the memory used (field 7).
	MemoryUsed = "used"
	// MemoryRequestedElseUsed is the requested memory, or the used where
	// the trace has no request.
	MemoryRequestedElseUsed = "requested-else-used"
	// MemoryNone gives tasks no memory.
	MemoryNone = "none"

	// SettingNodeSize: the node an exclusive job's processors are counted
	// in, to make its number of nodes.
	SettingNodeSize = "node-size"
	// NodeSmallest counts in the smallest node of the job's partition
	// (that has its features): the job fits on any of them.
	NodeSmallest = "smallest"
	// NodeLargest counts in the largest: fewer nodes, which must be large.
	NodeLargest = "largest"

	// SettingOversize: what becomes of a job the nodes of its partition
	// can never hold, or whose walltime is over the partition's limit.
	SettingOversize = "oversize"
	// Drop drops it (counted).
	Drop = "drop"
	// Clamp cuts it down to what the partition holds: memory to the
	// largest node's, tasks to the partition's cores (or nodes), the
	// walltime to the limit; a job that still does not fit is dropped.
	Clamp = "clamp"
	// Fail makes the run fail, naming the job.
	Fail = "error"
)

// Settings are the named settings of a mapping onto nodes. The zero value
// takes every default (Resolved).
type Settings struct {
	Allocation string
	Memory     string
	NodeSize   string
	Oversize   string
	// Partitions maps the trace's partition numbers (SWF field 16) to the
	// platform's partitions by name; a job of a number not in it goes to
	// the default partition.
	Partitions map[int32]string
	// Log holds the settings of a log of nodes (a sacct log, whose
	// workload has Requests); nil for SWF, whose settings and counts are
	// then what they were before logs of nodes.
	Log *LogSettings
}

var choices = map[string][]string{
	SettingAllocation: {Exclusive, Shared},
	SettingMemory:     {MemoryRequested, MemoryUsed, MemoryRequestedElseUsed, MemoryNone},
	SettingNodeSize:   {NodeSmallest, NodeLargest},
	SettingOversize:   {Drop, Clamp, Fail},
}

// Choices returns the values a setting takes, the default first; nil for
// an unknown name.
func Choices(name string) []string { return slices.Clone(choices[name]) }

// ErrSetting is wrapped by errors about a setting's value.
var ErrSetting = errors.New("invalid node mapping setting")

// Resolved returns s with defaults filled in, or an error naming the first
// setting whose value is not one of its choices. Memory defaults to
// requested on a platform whose nodes have memory, none elsewhere.
func (s Settings) Resolved(p *sdk.Platform) (Settings, error) {
	fill := func(v *string, name string) error {
		if *v == "" {
			*v = choices[name][0]
			if name == SettingMemory && p.Resource(sdk.Memory) < 0 {
				*v = MemoryNone
			}
		}
		if !slices.Contains(choices[name], *v) {
			return fmt.Errorf("%w: %s = %q: want one of %v", ErrSetting, name, *v, choices[name])
		}
		return nil
	}
	for _, f := range []struct {
		v    *string
		name string
	}{{&s.Allocation, SettingAllocation}, {&s.Memory, SettingMemory}, {&s.NodeSize, SettingNodeSize}, {&s.Oversize, SettingOversize}} {
		if err := fill(f.v, f.name); err != nil {
			return s, err
		}
	}
	if s.Memory != MemoryNone && p.Resource(sdk.Memory) < 0 {
		return s, fmt.Errorf("%w: %s = %q on platform %q, whose nodes have no memory", ErrSetting, SettingMemory, s.Memory, p.Name)
	}
	if s.Log != nil {
		l, err := s.Log.resolved(p, s.Memory)
		if err != nil {
			return s, err
		}
		s.Log = &l
	}
	if len(p.Clusters) == 1 {
		for num, name := range s.Partitions {
			if !slices.ContainsFunc(p.Clusters[0].Partitions, func(pt sdk.Partition) bool { return pt.Name == name }) {
				return s, fmt.Errorf("%w: trace partition %d maps to %q, not a partition of platform %q", ErrSetting, num, name, p.Name)
			}
		}
	}
	return s, nil
}

// Map returns the settings by name, for provenance; the partition table
// as "partitions" ("2=thin,4=fat"), when there is one.
func (s Settings) Map() map[string]string {
	m := map[string]string{SettingAllocation: s.Allocation, SettingMemory: s.Memory, SettingNodeSize: s.NodeSize, SettingOversize: s.Oversize}
	if len(s.Partitions) > 0 {
		m["partitions"] = PartitionTable(s.Partitions)
	}
	if s.Log != nil {
		s.Log.addTo(m)
	}
	return m
}

// PartitionTable writes a partition table in number order: "2=thin,4=fat".
func PartitionTable(t map[int32]string) string {
	keys := slices.Sorted(maps.Keys(t))
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ","
		}
		out += strconv.Itoa(int(k)) + "=" + t[k]
	}
	return out
}

// The counts of Apply, by name: how many jobs each rule touched.
const (
	CountExclusive        = "exclusive"
	CountShared           = "shared"
	CountRoundedUp        = "exclusive-rounded-up" // held more cores than asked for
	CountMemoryRequested  = "memory-requested"     // task memory from field 10
	CountMemoryUsed       = "memory-used"          // from field 7
	CountMemoryUnknown    = "memory-unknown"       // no memory in the trace: none given
	CountPartitionMapped  = "partition-mapped"     // by the table
	CountPartitionDefault = "partition-default"    // number not in the table
	CountOversizeDropped  = "oversize-dropped"     // never fits its partition
	CountOversizeClamped  = "oversize-clamped"     // cut down to fit
	CountWalltimeDropped  = "walltime-over-limit-dropped"
	CountWalltimeClamped  = "walltime-over-limit-clamped"
	// CountPredecessorDropped counts the jobs kept whose predecessor
	// (sim.Input.After, a workload's feedback) the mapping dropped: they
	// depend on none, submitted at their trace time, as the workload's
	// rule dropped-predecessor does for the cleaning. It is in the counts
	// only when a job depends on another, so that a replay's counts, and
	// the columns of runs.parquet (CountNames), are what they were.
	CountPredecessorDropped = "predecessor-dropped"
)

// Apply maps jobs (index-aligned with w.Jobs, whose memory w.Memory
// gives) onto the nodes of p's single cluster, by the resolved settings s.
// It returns copies of the jobs kept, sorted and indexed anew (sim.Sort),
// with their tasks and requests of one entry per resource of p, those
// held on nodes set from the tasks; and the counts of each rule: a job
// dropped is counted by the rule that dropped it, the other counts are of
// jobs kept. With Oversize = error, the first job that cannot fit fails.
// With s.Log, the jobs' requests are w.Requests (index-aligned with jobs),
// one task a node (see LogSettings and docs/semantics.md), every count of
// LogCountNames is reported, and errors name the job's line in the log.
func Apply(p *sdk.Platform, w *workload.Workload, jobs []sim.Input, s Settings) ([]sim.Input, map[string]int64, error) {
	if !p.HasNodes() {
		return nil, nil, fmt.Errorf("platform %q has no nodes", p.Name)
	}
	m := newMapper(p)
	counts := map[string]int64{}
	if s.Log != nil {
		if len(w.Requests) != len(jobs) {
			return nil, nil, fmt.Errorf("%s: %d jobs and %d requests of a log of nodes (%s settings need one)", w.Path, len(jobs), len(w.Requests), SettingTRES)
		}
		for _, k := range LogCountNames() {
			counts[k] = 0
		}
	}
	out := make([]sim.Input, 0, len(jobs))
	tasks := make([]sdk.Tasks, len(jobs))
	flags := map[string]int64{}
	for i := range jobs {
		in := jobs[i]
		j := &in.Job
		clear(flags)
		t := sdk.Tasks{Count: int32(min(j.Request[0], math.MaxInt32)), Cores: 1}
		perNode := false
		if s.Log != nil {
			var keep bool
			var err error
			if perNode, keep, err = m.logTasks(j, &w.Requests[i], &t, s, counts, flags); err != nil {
				return nil, nil, fmt.Errorf("%s line %d: job id %d: %w", w.Path, w.Requests[i].Line, j.ID, err)
			}
			if !keep {
				continue
			}
		} else {
			if name, ok := s.Partitions[j.Partition]; ok {
				t.Partition = m.parts[name]
				flags[CountPartitionMapped]++
			} else if len(s.Partitions) > 0 {
				flags[CountPartitionDefault]++
			}
			t.Memory = taskMemory(w, i, s.Memory, flags)
		}
		if s.Allocation == Exclusive {
			t.Exclusive = true
			if !perNode {
				t.Nodes = m.nodesFor(&t, s.NodeSize)
			}
		}
		ok, err := m.fit(j, &t, s, perNode, counts, flags)
		if err != nil && s.Log != nil {
			return nil, nil, fmt.Errorf("%s line %d: job id %d: %w", w.Path, w.Requests[i].Line, j.ID, err)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: job id %d: %w", w.Path, j.ID, err)
		}
		if !ok {
			continue
		}
		if t.Exclusive {
			flags[CountExclusive]++
			if d := m.l.Demand(&t); d.Cores > int64(t.Count)*int64(t.Cores) {
				flags[CountRoundedUp]++
			}
		} else {
			flags[CountShared]++
		}
		for k, v := range flags {
			counts[k] += v
		}
		tasks[i] = t
		j.Tasks = &tasks[i]
		req := make(sdk.Vector, p.Dims())
		copy(req, j.Request)
		j.Request = req
		m.l.Request(j.Tasks, j.Request)
		out = append(out, in)
	}
	reindexAfter(out, len(jobs), counts)
	sim.Sort(out)
	return out, counts, nil
}

// reindexAfter points the dependencies of the jobs kept, out (in their
// order, with their indexes among the n given), at their predecessors'
// indexes among them, before sim.Sort gives them those indexes; a job whose
// predecessor was dropped depends on none (CountPredecessorDropped).
func reindexAfter(out []sim.Input, n int, counts map[string]int64) {
	var index []int32 // by index among the n given, 1 + index in out; 0 dropped
	for k := range out {
		if out[k].After == 0 {
			continue
		}
		if index == nil {
			index = make([]int32, n)
			for x := range out {
				index[out[x].Job.Index] = int32(x + 1)
			}
			counts[CountPredecessorDropped] += 0
		}
		if p := index[out[k].After-1]; p != 0 {
			out[k].After = p
		} else {
			out[k].After, out[k].Think = 0, 0
			counts[CountPredecessorDropped]++
		}
	}
}

// mapper holds what the mapping needs of the platform, computed once.
type mapper struct {
	l     *sdk.Layout
	parts map[string]int32
	// groups holds, by sdk.Tasks.Partition, the capacity of a node of
	// each group of the partition, and nodes its number of nodes.
	groups [][]sdk.Amount
	nodes  []int32
	// checked remembers Layout.Check by tasks: jobs have few shapes.
	checked map[sdk.Tasks]error
	// features are the cluster's features, the bits of Tasks.Features,
	// and maxNodes each partition's node limit (0 for none).
	features []string
	maxNodes []int32
}

func newMapper(p *sdk.Platform) *mapper {
	m := &mapper{l: sdk.NewLayout(p, 0), parts: map[string]int32{}, checked: map[sdk.Tasks]error{}}
	for k, pt := range p.Clusters[0].Partitions {
		m.parts[pt.Name] = int32(k + 1)
	}
	m.features = p.Clusters[0].FeatureNames()
	def := max(0, slices.IndexFunc(p.Clusters[0].Partitions, func(pt sdk.Partition) bool { return pt.Default }))
	for k := range m.l.Partitions() {
		var lim int
		switch {
		case len(p.Clusters[0].Partitions) == 0:
		case k == 0:
			lim = p.Clusters[0].Partitions[def].MaxNodes
		default:
			lim = p.Clusters[0].Partitions[k-1].MaxNodes
		}
		m.maxNodes = append(m.maxNodes, int32(min(lim, math.MaxInt32)))
	}
	for part := range int32(m.l.Partitions()) {
		seen := map[int]bool{}
		var caps []sdk.Amount
		nodes := m.l.PartitionNodes(part)
		for _, k := range nodes {
			if g := m.l.Group(int(k)); !seen[g] {
				seen[g] = true
				caps = append(caps, m.l.Cap(int(k)))
			}
		}
		m.groups = append(m.groups, caps)
		m.nodes = append(m.nodes, int32(len(nodes)))
	}
	return m
}

func (m *mapper) check(t *sdk.Tasks) error {
	err, ok := m.checked[*t]
	if !ok {
		err = m.l.Check(t)
		m.checked[*t] = err
	}
	return err
}

// perNode returns how many of t's tasks the smallest or largest node of
// its partition holds: as many as its cores and memory take, at least one.
func (m *mapper) perNode(t *sdk.Tasks, size string) int64 {
	var pick sdk.Amount
	for i, c := range m.groups[t.Partition] {
		if i == 0 || (size == NodeSmallest && c.Cores < pick.Cores) || (size == NodeLargest && c.Cores > pick.Cores) {
			pick = c
		}
	}
	per := pick.Cores / int64(t.Cores)
	if t.Memory > 0 && pick.Memory > 0 {
		per = min(per, pick.Memory/t.Memory)
	}
	return max(per, 1)
}

// nodesFor returns the number of nodes of an exclusive job: its tasks
// counted in the partition's smallest or largest node (perNode).
func (m *mapper) nodesFor(t *sdk.Tasks, size string) int32 {
	per := m.perNode(t, size)
	return int32(min((int64(t.Count)+per-1)/per, int64(t.Count)))
}

// fit applies the oversize rule to job j of tasks t: it reports whether
// the job is kept (t changed when clamped), counting a drop in counts and
// a clamp in flags, and fails under Fail.
// A job of a log of nodes whose tasks are one a node (perNode) is
// clamped by clampPerNode.
func (m *mapper) fit(j *sdk.Job, t *sdk.Tasks, s Settings, perNode bool, counts, flags map[string]int64) (bool, error) {
	if err := m.l.CheckWalltime(t, j.Walltime); err != nil {
		switch s.Oversize {
		case Fail:
			return false, fmt.Errorf("%w (%s=%s)", err, SettingOversize, Fail)
		case Drop:
			counts[CountWalltimeDropped]++
			return false, nil
		}
		j.Walltime = m.limitOf(t, j.Walltime)
		flags[CountWalltimeClamped]++
	}
	err := m.check(t)
	if err == nil {
		return true, nil
	}
	switch s.Oversize {
	case Fail:
		return false, fmt.Errorf("%w (%s=%s)", err, SettingOversize, Fail)
	case Drop:
		counts[CountOversizeDropped]++
		return false, nil
	}
	if perNode {
		m.clampPerNode(t)
	} else {
		m.clamp(t, s.NodeSize)
	}
	if m.check(t) != nil {
		counts[CountOversizeDropped]++
		return false, nil
	}
	flags[CountOversizeClamped]++
	return true, nil
}

// limitOf returns the walltime limit of t's partition, which w exceeds.
func (m *mapper) limitOf(t *sdk.Tasks, w int64) int64 {
	lo, hi := int64(1), w
	// CheckWalltime is monotone in the walltime: search for the limit.
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if m.l.CheckWalltime(t, mid) == nil {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// clamp cuts t down to what its partition holds: each task's memory to
// the largest node's, the tasks to the partition's cores, and an exclusive
// job to the partition's nodes, as many tasks as they hold.
func (m *mapper) clamp(t *sdk.Tasks, size string) {
	var largest, cores int64
	for _, c := range m.groups[t.Partition] {
		largest = max(largest, c.Memory)
	}
	for _, k := range m.l.PartitionNodes(t.Partition) {
		cores += m.l.Cap(int(k)).Cores
	}
	t.Memory = min(t.Memory, largest)
	t.Count = int32(min(int64(t.Count), cores))
	if t.Exclusive {
		per := m.perNode(t, size)
		t.Nodes = min(m.nodesFor(t, size), m.nodes[t.Partition])
		t.Count = int32(min(int64(t.Count), int64(t.Nodes)*per))
	}
}

// CountNames returns the names of every count Apply may report, in a
// fixed order.
func CountNames() []string {
	return []string{CountExclusive, CountShared, CountRoundedUp, CountMemoryRequested, CountMemoryUsed, CountMemoryUnknown,
		CountPartitionMapped, CountPartitionDefault, CountOversizeDropped, CountOversizeClamped, CountWalltimeDropped, CountWalltimeClamped}
}

// Keys returns the names of the counts in a stable order, for reports.
func Keys(counts map[string]int64) []string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// taskMemory returns a task's memory in bytes, by the memory setting, from
// job i's memory per processor in kilobytes (1 KB = 1,024 bytes, rounded
// up to a byte), counting where it came from.
func taskMemory(w *workload.Workload, i int, setting string, counts map[string]int64) int64 {
	if setting == MemoryNone {
		return 0
	}
	m := workload.Memory{Requested: -1, Used: -1}
	if i < len(w.Memory) {
		m = w.Memory[i]
	}
	var kb float64
	switch {
	case setting != MemoryUsed && m.Requested > 0:
		kb = m.Requested
		counts[CountMemoryRequested]++
	case setting != MemoryRequested && m.Used > 0:
		kb = m.Used
		counts[CountMemoryUsed]++
	default:
		counts[CountMemoryUnknown]++
		return 0
	}
	return int64(math.Ceil(min(kb*1024, 1<<62)))
}

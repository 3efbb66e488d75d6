package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/machines"
	"github.com/schedlab/schedlab/workload/nodes"
)

// nodeFlags are the flags of `schedlab sim` that make its platform one of
// nodes: a manifest.NodeSpec.
type nodeFlags struct {
	manifest.NodeSpec
}

func (f *nodeFlags) register(fl *pflag.FlagSet) {
	fl.Int64Var(&f.Nodes, "nodes", 0, "a platform of this many nodes (with --cores-per-node)")
	fl.Int64Var(&f.CoresPerNode, "cores-per-node", 0, "cores of each node")
	fl.StringVar(&f.MemoryPerNode, "memory-per-node", "", "memory of each node (\"64GiB\", \"4 GB\")")
	fl.Int64Var(&f.GPUsPerNode, "gpus-per-node", 0, "GPUs of each node")
	fl.StringVar(&f.Machine, "machine", "", "a known machine's nodes and partitions (\"list\" lists them)")
	fl.StringVar(&f.Allocation, "allocation", "", "on nodes: exclusive (jobs hold whole nodes; the default) or shared")
	fl.StringVar(&f.Memory, "memory", "", "on nodes: a task's memory, requested, used, requested-else-used or none (default: requested when the nodes have memory)")
	fl.StringVar(&f.Placement, "placement", "", "on nodes: first-fit (the default), best-fit or contiguous")
	fl.StringVar(&f.NodeSize, "node-size", "", "on nodes: the node an exclusive job's processors are counted in, smallest (the default) or largest")
	fl.StringVar(&f.Oversize, "oversize", "", "on nodes: a job its partition can never hold, drop (the default), clamp or error")
	fl.StringVar(&f.Partitions, "partitions", "", "on nodes: trace partition numbers to partitions, \"10=standard,4=large\", or \"machine\" for --machine's table; for a sacct log, its partition names, \"general-compute=batch\"")
}

// set reports whether any flag makes the platform one of nodes.
func (f *nodeFlags) set() bool { return f.Set() }

// errMachineList asks runSim to print the known machines.
var errMachineList = errors.New("list the known machines")

// platform returns the platform of nodes the flags describe, named name,
// and the mapping of a trace's jobs onto it.
func (f *nodeFlags) platform(name string) (*sdk.Platform, *nodes.Settings, error) {
	if f.Machine == "list" {
		return nil, nil, errMachineList
	}
	return f.Platform(name, func(k string) string { return "--" + strings.ReplaceAll(k, "_", "-") })
}

// printMachines lists the known machines.
func printMachines(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range machines.All() {
		var groups []string
		for _, g := range m.Groups {
			s := fmt.Sprintf("%s %d x %d cores", g.Name, g.Count, g.Cores)
			if g.Memory > 0 {
				s += fmt.Sprintf(", %d GiB", g.Memory>>30)
			}
			groups = append(groups, s)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Name, strings.Join(groups, "; "), m.Trace)
	}
	tw.Flush()
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func nodesJSON(p *sdk.Platform, s *nodes.Settings, counts map[string]int64) any {
	if s == nil {
		return nil
	}
	return map[string]any{"platform": p, "mapping": s.Map(), "counts": counts}
}

// printNodes prints what the mapping did and the node metrics.
func printNodes(w io.Writer, p *sdk.Platform, s *nodes.Settings, counts map[string]int64, out *runner.Outcome) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var groups []string
	for _, g := range p.Clusters[0].Nodes {
		groups = append(groups, fmt.Sprintf("%d x %d cores", g.Count, g.Cores))
	}
	fmt.Fprintf(tw, "nodes\t%s, %s\n", strings.Join(groups, " + "), p.Clusters[0].PlacementRule())
	m := s.Map()
	fmt.Fprintf(tw, "mapping\tallocation %s, memory %s, node size %s, oversize %s\n", m[nodes.SettingAllocation], m[nodes.SettingMemory],
		m[nodes.SettingNodeSize], m[nodes.SettingOversize])
	if s.Log != nil {
		fmt.Fprintf(tw, "log\ttres %s, constraints %s, unknown partition %s\n", s.Log.TRES, s.Log.Constraints, s.Log.UnknownPartition)
	}
	var parts []string
	for _, k := range nodes.Keys(counts) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	fmt.Fprintf(tw, "mapped\t%s\n", strings.Join(parts, ", "))
	sum := out.Summary
	fmt.Fprintf(tw, "on nodes\tcores held %.4f (tasks' %.4f), nodes busy %.4f, fragmentation %.4f\n",
		sum.HeldCoreUtil, sum.TaskCoreUtil, sum.NodeUtil, sum.Fragmentation)
	tw.Flush()
}

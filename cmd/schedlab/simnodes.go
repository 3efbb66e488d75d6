package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
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
// nodes.
type nodeFlags struct {
	nodes, coresPerNode, gpusPerNode int64
	memoryPerNode                    string
	machine                          string
	allocation, memory, placement    string
	nodeSize, oversize               string
	partitions                       string
}

func (f *nodeFlags) register(fl *pflag.FlagSet) {
	fl.Int64Var(&f.nodes, "nodes", 0, "a platform of this many nodes (with --cores-per-node)")
	fl.Int64Var(&f.coresPerNode, "cores-per-node", 0, "cores of each node")
	fl.StringVar(&f.memoryPerNode, "memory-per-node", "", "memory of each node (\"64GiB\", \"4 GB\")")
	fl.Int64Var(&f.gpusPerNode, "gpus-per-node", 0, "GPUs of each node")
	fl.StringVar(&f.machine, "machine", "", "a known machine's nodes and partitions (\"list\" lists them)")
	fl.StringVar(&f.allocation, "allocation", "", "on nodes: exclusive (jobs hold whole nodes; the default) or shared")
	fl.StringVar(&f.memory, "memory", "", "on nodes: a task's memory, requested, used, requested-else-used or none (default: requested when the nodes have memory)")
	fl.StringVar(&f.placement, "placement", "", "on nodes: first-fit (the default), best-fit or contiguous")
	fl.StringVar(&f.nodeSize, "node-size", "", "on nodes: the node an exclusive job's processors are counted in, smallest (the default) or largest")
	fl.StringVar(&f.oversize, "oversize", "", "on nodes: a job its partition can never hold, drop (the default), clamp or error")
	fl.StringVar(&f.partitions, "partitions", "", "on nodes: trace partition numbers to partitions, \"10=standard,4=large\", or \"machine\" for --machine's table")
}

// set reports whether any flag makes the platform one of nodes.
func (f *nodeFlags) set() bool {
	return f.nodes != 0 || f.coresPerNode != 0 || f.memoryPerNode != "" || f.gpusPerNode != 0 || f.machine != "" ||
		f.allocation != "" || f.memory != "" || f.placement != "" || f.nodeSize != "" || f.oversize != "" || f.partitions != ""
}

// errMachineList asks runSim to print the known machines.
var errMachineList = errors.New("list the known machines")

// platform returns the platform of nodes the flags describe, named name,
// and the mapping of a trace's jobs onto it.
func (f *nodeFlags) platform(name string) (*sdk.Platform, *nodes.Settings, error) {
	rule := sdk.Placement(f.placement)
	if rule == "" {
		rule = sdk.FirstFit
	}
	var p *sdk.Platform
	var table map[int32]string
	switch {
	case f.machine == "list":
		return nil, nil, errMachineList
	case f.machine != "" && (f.nodes != 0 || f.coresPerNode != 0 || f.memoryPerNode != "" || f.gpusPerNode != 0):
		return nil, nil, errors.New("--machine gives the nodes: leave out --nodes, --cores-per-node, --memory-per-node and --gpus-per-node")
	case f.machine != "":
		m, err := machines.Lookup(f.machine)
		if err != nil {
			return nil, nil, fmt.Errorf("--machine: %w", err)
		}
		p, table = m.Platform(name, rule), m.TracePartitions
	case f.nodes < 1 || f.coresPerNode < 1:
		return nil, nil, fmt.Errorf("--nodes %d --cores-per-node %d: a platform of nodes needs both, at least 1 (or --machine)", f.nodes, f.coresPerNode)
	default:
		g := sdk.NodeGroup{Name: "node", Count: int(f.nodes), Cores: f.coresPerNode, GPUs: f.gpusPerNode}
		if f.memoryPerNode != "" {
			b, err := manifest.ParseBytes(f.memoryPerNode)
			if err != nil {
				return nil, nil, fmt.Errorf("--memory-per-node: %w", err)
			}
			g.Memory = b
		}
		p = sdk.NodesPlatform(name, []sdk.NodeGroup{g}, nil, rule)
	}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	s := nodes.Settings{Allocation: f.allocation, Memory: f.memory, NodeSize: f.nodeSize, Oversize: f.oversize}
	switch f.partitions {
	case "":
	case "machine":
		if f.machine == "" {
			return nil, nil, errors.New("--partitions machine needs --machine")
		}
		s.Partitions = table
	default:
		s.Partitions = map[int32]string{}
		for _, kv := range strings.Split(f.partitions, ",") {
			k, v, ok := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(strings.TrimSpace(k), 10, 32)
			if !ok || err != nil || n < 0 {
				return nil, nil, fmt.Errorf("--partitions %q: want NUMBER=PARTITION,... (trace partition numbers, SWF field 16)", f.partitions)
			}
			s.Partitions[int32(n)] = strings.TrimSpace(v)
		}
	}
	if !slices.Contains(sdk.Placements(), rule) {
		return nil, nil, fmt.Errorf("--placement %q: want one of %v", f.placement, sdk.Placements())
	}
	resolved, err := s.Resolved(p)
	if err != nil {
		return nil, nil, err
	}
	return p, &resolved, nil
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

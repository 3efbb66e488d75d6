package manifest

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/machines"
	"github.com/schedlab/schedlab/workload/nodes"
)

// Nodes is what a [platforms.NAME] table says of a platform of nodes: a
// known machine or node groups, partitions, the placement rule, and how a
// trace's jobs map onto the nodes.
type Nodes struct {
	// Machine is the known machine (package workload/machines) the groups
	// and partitions come from; empty when the manifest writes them.
	Machine string
	// Groups are in the machine's order, or by name; nodes are numbered
	// in this order.
	Groups []sdk.NodeGroup
	// Partitions are in the machine's order, or by name.
	Partitions []sdk.Partition
	Placement  sdk.Placement
	// Mapping holds the mapping settings, defaults filled in, without a
	// partition table (the workload's).
	Mapping nodes.Settings
}

type rawNodeGroup struct {
	Count    int64    `toml:"count"`
	Cores    int64    `toml:"cores"`
	Memory   any      `toml:"memory"`
	GPUs     int64    `toml:"gpus"`
	Features []string `toml:"features"`
}

type rawPartition struct {
	Groups      []string `toml:"groups"`
	MaxWalltime int64    `toml:"max_walltime"`
	MaxNodes    int64    `toml:"max_nodes"`
	Default     bool     `toml:"default"`
}

// nodeKeys are the keys of a platform of nodes besides its tables.
var nodeKeys = []string{"machine", "placement", "allocation", "memory", "node_size", "oversize"}

// hasNodes reports whether a [platforms.NAME] table declares nodes.
func (p *parser) hasNodes(name string) bool {
	for _, k := range append([]string{"nodes", "partitions"}, nodeKeys...) {
		if p.md.IsDefined("platforms", name, k) {
			return true
		}
	}
	return false
}

// nodePlatform reads a platform of nodes.
func (p *parser) nodePlatform(name string, rp rawPlatform) Platform {
	key := func(k ...string) []string { return append([]string{"platforms", name}, k...) }
	pl := Platform{Name: name, Nodes: &Nodes{}}
	ns := pl.Nodes
	for _, k := range []string{"procs", "clusters"} {
		if p.md.IsDefined(key(k)...) {
			p.errAt(key(k), "a platform of nodes has no %s: its nodes give its cores (and memory and GPUs)", k)
		}
	}
	// Resources beside the nodes: a burst buffer on storage nodes of its
	// own, pooled or divided into units. What nodes hold is theirs.
	pl.Resources = p.resources(name, rp.Resources)
	for _, r := range pl.Resources {
		if r.Name == sdk.Memory || r.Name == sdk.GPUs {
			p.errAt(key("resources", r.Name), "%s is what nodes hold (their memory and GPUs per node), not a resource beside them", r.Name)
		}
	}
	hasMachine := p.md.IsDefined(key("machine")...)
	switch {
	case hasMachine && (p.md.IsDefined(key("nodes")...) || p.md.IsDefined(key("partitions")...)):
		p.errAt(key("machine"), "a platform names a machine or writes its nodes and partitions, not both")
	case hasMachine:
		m, err := machines.Lookup(rp.Machine)
		if err != nil {
			p.errAt(key("machine"), "%v", err)
			return pl
		}
		ns.Machine, ns.Groups, ns.Partitions = m.Name, slices.Clone(m.Groups), slices.Clone(m.Partitions)
	case !p.md.IsDefined(key("nodes")...):
		p.errAt(key(), "a platform of nodes needs machine (a known machine) or [platforms.%s.nodes.GROUP] tables", name)
		return pl
	default:
		ns.Groups = p.nodeGroups(name, rp.Nodes)
		ns.Partitions = p.partitions(name, rp.Partitions, ns.Groups)
	}
	ns.Placement = sdk.Placement(rp.Placement)
	if rp.Placement == "" {
		ns.Placement = sdk.FirstFit
	} else if !slices.Contains(sdk.Placements(), ns.Placement) {
		p.errAt(key("placement"), "%q is not a placement rule%s", rp.Placement, hint(rp.Placement, placementNames()))
	}
	sdkp := pl.SDK()
	if err := sdkp.Validate(); err != nil {
		p.errAt(key(), "%v", err)
		return pl
	}
	pl.Procs = sdkp.Clusters[0].Capacity[0]
	mapping, err := nodes.Settings{Allocation: rp.Allocation, Memory: rp.Memory, NodeSize: rp.NodeSize, Oversize: rp.Oversize}.Resolved(sdkp)
	if err != nil {
		k := key()
		for _, s := range []struct{ key, value string }{{"allocation", rp.Allocation}, {"memory", rp.Memory}, {"node_size", rp.NodeSize}, {"oversize", rp.Oversize}} {
			if s.value != "" && strings.Contains(err.Error(), strconv.Quote(s.value)) {
				k = key(s.key)
			}
		}
		p.errAt(k, "%v", err)
	}
	ns.Mapping = mapping
	pl.Outages = p.outageSettings(name, rp.Outages, int32(sdkp.Clusters[0].NodeCount()))
	pl.Power = p.powerModel(name, rp.Power, sdkp)
	switch {
	case rp.IO == nil:
	case rp.Outages != nil:
		p.errAt(key("io"), "an I/O model with outages of nodes is not supported yet")
	default:
		pl.IO = p.ioModel(name, rp.IO, sdkp)
	}
	return pl
}

func placementNames() []string {
	var out []string
	for _, r := range sdk.Placements() {
		out = append(out, string(r))
	}
	return out
}

// nodeGroups reads the [platforms.NAME.nodes.GROUP] tables, by name.
func (p *parser) nodeGroups(platform string, raw map[string]rawNodeGroup) []sdk.NodeGroup {
	var out []sdk.NodeGroup
	for _, name := range sortedKeys(raw) {
		key := func(k ...string) []string { return append([]string{"platforms", platform, "nodes", name}, k...) }
		rg := raw[name]
		if !validName(name) {
			p.errAt(key(), "%q is not a valid node group name (%s)", name, nameRule)
			continue
		}
		g := sdk.NodeGroup{Name: name, Features: rg.Features}
		switch {
		case rg.Count < 1 || rg.Count > 1<<24:
			p.errAt(key("count"), "the number of nodes must be 1 to %d, got %d", 1<<24, rg.Count)
		case rg.Cores < 1 || rg.Cores > 1<<20:
			p.errAt(key("cores"), "the cores of a node must be 1 to %d, got %d", 1<<20, rg.Cores)
		case rg.GPUs < 0:
			p.errAt(key("gpus"), "must not be negative, got %d", rg.GPUs)
		}
		g.Count, g.Cores, g.GPUs = int(rg.Count), rg.Cores, rg.GPUs
		if rg.Memory != nil {
			b, err := ParseBytes(rg.Memory)
			if err != nil {
				p.errAt(key("memory"), "%v", err)
			}
			g.Memory = b
		}
		out = append(out, g)
	}
	return out
}

// partitions reads the [platforms.NAME.partitions.PART] tables, by name.
func (p *parser) partitions(platform string, raw map[string]rawPartition, groups []sdk.NodeGroup) []sdk.Partition {
	var out []sdk.Partition
	for _, name := range sortedKeys(raw) {
		key := func(k ...string) []string { return append([]string{"platforms", platform, "partitions", name}, k...) }
		rp := raw[name]
		if !validName(name) {
			p.errAt(key(), "%q is not a valid partition name (%s)", name, nameRule)
			continue
		}
		for _, g := range rp.Groups {
			if !slices.ContainsFunc(groups, func(ng sdk.NodeGroup) bool { return ng.Name == g }) {
				var names []string
				for _, ng := range groups {
					names = append(names, ng.Name)
				}
				p.errAt(key("groups"), "%q is not a node group of the platform%s", g, hint(g, names))
			}
		}
		switch {
		case len(rp.Groups) == 0:
			p.errAt(key("groups"), "a partition needs at least one node group")
		case rp.MaxWalltime < 0:
			p.errAt(key("max_walltime"), "must be 0 (no limit) or a positive number of seconds, got %d", rp.MaxWalltime)
		case rp.MaxNodes < 0 || rp.MaxNodes > math.MaxInt32:
			p.errAt(key("max_nodes"), "must be 0 (no limit) or a positive number of nodes, got %d", rp.MaxNodes)
		}
		out = append(out, sdk.Partition{Name: name, Groups: rp.Groups, MaxWalltime: rp.MaxWalltime, MaxNodes: int(rp.MaxNodes), Default: rp.Default})
	}
	return out
}

var bytesRE = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$`)

// byteUnits are the units ParseBytes takes: SI (powers of 1,000) and
// binary (powers of 1,024), any case.
var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseBytes reads an amount of memory: an integer number of bytes, or a
// string of a number and a unit (B, KB, MB, GB, TB in powers of 1,000;
// KiB, MiB, GiB, TiB in powers of 1,024; any case): "64GiB", "4 GB",
// "1.5TiB". The result must be a whole number of bytes.
func ParseBytes(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("memory must not be negative, got %d", x)
		}
		return x, nil
	case string:
		m := bytesRE.FindStringSubmatch(x)
		if m == nil {
			return 0, fmt.Errorf("%q is not an amount of memory (a number and a unit: \"64GiB\", \"4 GB\")", x)
		}
		unit, ok := byteUnits[strings.ToLower(m[2])]
		if !ok {
			return 0, fmt.Errorf("%q: unknown unit %q (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", x, m[2])
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		b := n * unit
		if b != math.Trunc(b) || b > 1<<62 {
			return 0, fmt.Errorf("%q is not a whole number of bytes below 2^62", x)
		}
		return int64(b), nil
	}
	return 0, fmt.Errorf("memory must be an integer (bytes) or a string with a unit (\"64GiB\"), not %T", v)
}

// workloadPartitions reads a workload's partitions table: trace partition
// numbers (SWF field 16) to partition names.
func (p *parser) workloadPartitions(name string, raw map[string]string) map[int32]string {
	if len(raw) == 0 {
		return nil
	}
	out := map[int32]string{}
	for _, k := range sortedKeys(raw) {
		n, err := strconv.ParseInt(k, 10, 32)
		if err != nil || n < 0 {
			p.errAt([]string{"workloads", name, "partitions", k}, "%q is not a trace partition number (SWF field 16: 0 or more)", k)
			continue
		}
		out[int32(n)] = raw[k]
	}
	return out
}

// checkNodes checks, for every run on a platform of nodes, that its
// workload's partitions table names partitions of the platform, and that
// the workload is a trace or a generator (streams belong to grids).
func (p *parser) checkNodes(m *Manifest, runs []Run) {
	seen := map[[2]string]bool{}
	for _, r := range runs {
		pl, ok := m.Platforms[r.Platform]
		if !ok || pl.Nodes == nil || seen[[2]string{r.Workload, r.Platform}] {
			continue
		}
		seen[[2]string{r.Workload, r.Platform}] = true
		w := m.Workloads[r.Workload]
		if len(w.Streams) > 0 {
			p.errAt([]string{"workloads", r.Workload}, "a workload of streams runs on grids of clusters, not on platform %s of nodes", r.Platform)
			continue
		}
		s := pl.Nodes.Mapping
		s.Partitions, s.Log = w.Partitions, w.Log
		if _, err := s.Resolved(pl.SDK()); err != nil {
			key := []string{"workloads", r.Workload, "partitions"}
			if w.Log != nil && strings.Contains(err.Error(), nodes.SettingMemory+" = ") {
				key = []string{"platforms", r.Platform, "memory"}
			}
			p.errAt(key, "on platform %s: %v", r.Platform, err)
		}
	}
}

// NodeMapping returns the mapping of run r's jobs onto its platform's
// nodes: the platform's settings and the workload's partitions table. It
// is nil for a platform without nodes.
func (r Run) NodeMapping(m *Manifest) *nodes.Settings {
	pl, ok := m.Platforms[r.Platform]
	if !ok || pl.Nodes == nil {
		return nil
	}
	s := pl.Nodes.Mapping
	w := m.Workloads[r.Workload]
	s.Partitions, s.Log = w.Partitions, w.Log
	return &s
}

// specNodes is what a run's spec holds of a platform of nodes.
type specNodes struct {
	Groups     []sdk.NodeGroup   `json:"groups"`
	Machine    string            `json:"machine,omitempty"`
	Mapping    map[string]string `json:"mapping"`
	Partitions []sdk.Partition   `json:"partitions,omitempty"`
	Placement  string            `json:"placement"`
}

func nodesSpec(n *Nodes) *specNodes {
	return &specNodes{Groups: n.Groups, Machine: n.Machine, Mapping: n.Mapping.Map(), Partitions: n.Partitions, Placement: string(n.Placement)}
}

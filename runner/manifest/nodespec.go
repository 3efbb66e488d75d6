package manifest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/machines"
	"github.com/schedlab/schedlab/workload/nodes"
)

// NodeSpec is a platform of nodes given by a few settings rather than a
// manifest's [platforms.NAME] table: a homogeneous platform (Nodes of
// CoresPerNode cores, with memory and GPUs) or a known machine, and how a
// trace's jobs map onto it. It is what `schedlab sim`'s node flags and the
// environment's requests (serve-env) say, with the same names as JSON.
type NodeSpec struct {
	Nodes         int64  `json:"nodes,omitempty"`
	CoresPerNode  int64  `json:"cores_per_node,omitempty"`
	MemoryPerNode string `json:"memory_per_node,omitempty"`
	GPUsPerNode   int64  `json:"gpus_per_node,omitempty"`
	Machine       string `json:"machine,omitempty"`
	Allocation    string `json:"allocation,omitempty"`
	Memory        string `json:"memory,omitempty"`
	Placement     string `json:"placement,omitempty"`
	NodeSize      string `json:"node_size,omitempty"`
	Oversize      string `json:"oversize,omitempty"`
	// Partitions maps trace partition numbers (SWF field 16) to
	// partitions, "10=standard,4=large", or is "machine" for Machine's
	// table.
	Partitions string `json:"partitions,omitempty"`
}

// Set reports whether any setting makes the platform one of nodes.
func (s NodeSpec) Set() bool { return s != NodeSpec{} }

// Platform returns the platform of nodes s describes, named name, and the
// mapping of a trace's jobs onto it. key names a setting in errors as its
// reader knows it (a flag, a JSON key), given the JSON name.
func (s NodeSpec) Platform(name string, key func(string) string) (*sdk.Platform, *nodes.Settings, error) {
	rule := sdk.Placement(s.Placement)
	if rule == "" {
		rule = sdk.FirstFit
	}
	if !slices.Contains(sdk.Placements(), rule) {
		return nil, nil, fmt.Errorf("%s %q: want one of %v", key("placement"), s.Placement, sdk.Placements())
	}
	var p *sdk.Platform
	var table map[int32]string
	switch {
	case s.Machine != "" && (s.Nodes != 0 || s.CoresPerNode != 0 || s.MemoryPerNode != "" || s.GPUsPerNode != 0):
		return nil, nil, fmt.Errorf("%s gives the nodes: leave out %s, %s, %s and %s", key("machine"),
			key("nodes"), key("cores_per_node"), key("memory_per_node"), key("gpus_per_node"))
	case s.Machine != "":
		m, err := machines.Lookup(s.Machine)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", key("machine"), err)
		}
		p, table = m.Platform(name, rule), m.TracePartitions
	case s.Nodes < 1 || s.CoresPerNode < 1:
		return nil, nil, fmt.Errorf("%s %d %s %d: a platform of nodes needs both, at least 1 (or %s)",
			key("nodes"), s.Nodes, key("cores_per_node"), s.CoresPerNode, key("machine"))
	default:
		g := sdk.NodeGroup{Name: "node", Count: int(s.Nodes), Cores: s.CoresPerNode, GPUs: s.GPUsPerNode}
		if s.MemoryPerNode != "" {
			b, err := ParseBytes(s.MemoryPerNode)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", key("memory_per_node"), err)
			}
			g.Memory = b
		}
		p = sdk.NodesPlatform(name, []sdk.NodeGroup{g}, nil, rule)
	}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	set := nodes.Settings{Allocation: s.Allocation, Memory: s.Memory, NodeSize: s.NodeSize, Oversize: s.Oversize}
	switch s.Partitions {
	case "":
	case "machine":
		if s.Machine == "" {
			return nil, nil, errors.New(key("partitions") + " machine needs " + key("machine"))
		}
		set.Partitions = table
	default:
		set.Partitions = map[int32]string{}
		for _, kv := range strings.Split(s.Partitions, ",") {
			k, v, ok := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(strings.TrimSpace(k), 10, 32)
			if !ok || err != nil || n < 0 {
				return nil, nil, fmt.Errorf("%s %q: want NUMBER=PARTITION,... (trace partition numbers, SWF field 16)", key("partitions"), s.Partitions)
			}
			set.Partitions[int32(n)] = strings.TrimSpace(v)
		}
	}
	resolved, err := set.Resolved(p)
	if err != nil {
		return nil, nil, err
	}
	return p, &resolved, nil
}

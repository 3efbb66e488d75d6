// Package machines describes, as platforms of nodes, the machines whose
// logs the laboratory ships or reads: what each log's header (and notes)
// says of its nodes, with anything beyond it marked as an assumption and
// its source. A manifest names one (`machine = "SDSC-BLUE"`) instead of
// writing its nodes out; docs/manifest.md lists them.
package machines

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// GiB is 2^30 bytes.
const GiB = 1 << 30

// Machine is a known machine: its nodes, partitions and where each figure
// comes from.
type Machine struct {
	// Name is what a manifest names it by: the machine's part of the
	// archive's log name (CEA-Curie for CEA-Curie-2011-2.1-cln.swf.gz).
	Name       string
	Groups     []sdk.NodeGroup
	Partitions []sdk.Partition
	// Trace is the shipped or shared log of the machine.
	Trace string
	// TracePartitions maps the log's partition numbers (SWF field 16) to
	// the partitions above, for the workload's partitions table.
	TracePartitions map[int32]string
	// Source says where the nodes come from; Assumptions lists what is
	// not in the log's header, and why it was chosen.
	Source      string
	Assumptions []string
}

// Platform returns the machine as a platform of nodes, named name (the
// machine's own name when empty), placing by rule.
func (m Machine) Platform(name string, rule sdk.Placement) *sdk.Platform {
	if name == "" {
		name = m.Name
	}
	return sdk.NodesPlatform(name, slices.Clone(m.Groups), slices.Clone(m.Partitions), rule)
}

// All returns the known machines, by name.
func All() []Machine {
	return []Machine{
		{
			Name: "CEA-Curie", Trace: "CEA-Curie-2011-2.1-cln.swf.gz",
			Groups: []sdk.NodeGroup{
				{Name: "thin", Count: 5040, Cores: 16},
				{Name: "fat", Count: 360, Cores: 32},
				{Name: "hybrid", Count: 144, Cores: 8},
			},
			Partitions: []sdk.Partition{
				{Name: "standard", Groups: []string{"thin"}, Default: true},
				{Name: "large", Groups: []string{"fat"}},
				{Name: "hybrid", Groups: []string{"hybrid"}},
			},
			TracePartitions: map[int32]string{10: "standard", 4: "large", 8: "hybrid"},
			Source: "the log's header: \"Curie is composed of 3 types of nodes: thin, fat, and hybrid\", " +
				"\"5040 thin nodes + 360 fat nodes + 144 hybrid nodes\", \"80640 in thin nodes + 11520 in fat nodes + 1152 in hybrid nodes\" " +
				"(16, 32 and 8 cores a node)",
			Assumptions: []string{
				"partitions: the header names 33 partition numbers, most of them garbled; standard (10), large (4) and hybrid (8) hold " +
					"98.9 % of the log's records, and their widest jobs (79,920, 11,232 and 1,152 processors) fit the thin, fat and hybrid " +
					"nodes, so they are mapped there; every other number goes to the default partition, standard (counted)",
				"memory and GPUs: the header gives none, so the nodes have neither",
			},
		},
		{
			Name: "SDSC-BLUE", Trace: "SDSC-BLUE-2000-4.2-cln.swf.gz",
			Groups: []sdk.NodeGroup{{Name: "node", Count: 144, Cores: 8, Memory: 4 * GiB}},
			Source: "the log's header: MaxNodes 144, MaxProcs 1152, \"Each node is an 8-way SMP\", " +
				"\"4 GB memory per node (shared by 8 processors)\"",
			Assumptions: []string{"4 GB read as 4 GiB; the log has no memory per job, so memory constrains nothing unless a mapping gives some"},
		},
		{
			Name: "LLNL-Thunder", Trace: "LLNL-Thunder-2007-1.1-cln.swf.gz",
			Groups: []sdk.NodeGroup{{Name: "node", Count: 1002, Cores: 4}},
			Partitions: []sdk.Partition{
				{Name: "pbatch", Groups: []string{"node"}, Default: true},
				{Name: "pdebug", Groups: []string{"node"}},
			},
			TracePartitions: map[int32]string{1: "pbatch", 2: "pdebug"},
			Source:          "the log's header: MaxNodes 1002, MaxProcs 4008, partitions 1 pbatch and 2 pdebug",
			Assumptions: []string{"both partitions hold every node: the header does not say which nodes each has",
				"memory: the header gives none"},
		},
		{
			Name: "RICC", Trace: "RICC-2010-2.swf.gz",
			Groups: []sdk.NodeGroup{{Name: "node", Count: 1024, Cores: 8, Memory: 12 * GiB}},
			Source: "the log's header: \"Fujitsu RX200S5 Cluster\", MaxNodes 1024, MaxProcs 8192; every job of the log " +
				"requests memory (field 10)",
			Assumptions: []string{"12 GiB a node: not in the header. RICC's massively parallel cluster is commonly described as " +
				"RX200S5 nodes of two 4-core Xeon X5570 with 12 GB each, a source we could not check here; it agrees with the log, " +
				"95 % of whose jobs request 1,200,000 KB a processor, 9.2 GiB for 8. Give the nodes another size to test it"},
		},
		{
			Name: "HPC2N", Trace: "HPC2N-2002-2.2-cln.swf.gz",
			Groups: []sdk.NodeGroup{{Name: "node", Count: 240, Cores: 1}},
			Source: "the log's header: MaxNodes 240, MaxProcs 240",
			Assumptions: []string{"one processor a node, as the header's equal MaxNodes and MaxProcs say (the machine, Seth, is " +
				"described elsewhere as dual-processor nodes, a source we could not check here: 120 nodes of 2 cores is the other reading)",
				"memory: the header gives none, though the log has memory per job"},
		},
		{
			Name: "KTH-SP2", Trace: "KTH-SP2-1996-2.1-cln.swf.gz",
			Groups: []sdk.NodeGroup{{Name: "node", Count: 100, Cores: 1}},
			Source: "the log's header: MaxNodes 100, MaxProcs 100 (an IBM SP2 of single-processor nodes)",
		},
		{
			Name: "NASA-iPSC", Trace: "NASA-iPSC-1993-3.1-cln.swf.gz",
			Groups: []sdk.NodeGroup{{Name: "node", Count: 128, Cores: 1}},
			Source: "the log's header: MaxNodes 128, MaxProcs 128 (an Intel iPSC/860 hypercube)",
		},
	}
}

// Lookup returns the machine of the given name (any case).
func Lookup(name string) (Machine, error) {
	var names []string
	for _, m := range All() {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Machine{}, fmt.Errorf("no known machine %q (known: %s)", name, strings.Join(names, ", "))
}

package wire

import (
	"encoding/json"
	"fmt"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// The JSON documents of the protocol: the header frame, the stats frame and
// the answer to Describe. Each is a struct of its own with its keys spelled
// out, converted to and from the public types, so that renaming a field of
// package sdk or sim cannot change what goes over the wire; the golden test
// (TestGolden) pins every document and frame of both protocols. Protocol 4
// spells every key in snake_case; protocol 3 encoded sdk.Platform and
// sim.Stats by their Go field names, which the *3 types below keep.

// header is the header frame of protocol 4.
type header struct {
	Protocol       int               `json:"protocol"`
	Platform       *platformDoc      `json:"platform"`
	Params         map[string]string `json:"params,omitempty"`
	Seed           uint64            `json:"seed"`
	ExactEstimates bool              `json:"exact_estimates"`
	Jobs           int               `json:"jobs"`
	// Dependencies is sent from protocol 7 on, when some job depends on
	// another; a host refuses such a run to a plugin of an older protocol.
	Dependencies bool `json:"dependencies,omitempty"`
	// Outages and Faults are sent from protocol 8 on, for a run with
	// outages of nodes; a host refuses such a run to a plugin of an older
	// protocol.
	Outages []outageDoc `json:"outages,omitempty"`
	Faults  *faultsDoc  `json:"faults,omitempty"`
	// Power is sent from protocol 9 on, for a run with a power model; a
	// host refuses such a run to a plugin of an older protocol.
	Power *powerDoc `json:"power,omitempty"`
	// IO is sent from protocol 10 on, for a run with an I/O model; a host
	// refuses such a run to a plugin of an older protocol.
	IO *ioDoc `json:"io,omitempty"`
}

type ioDoc struct {
	Resource      int     `json:"resource"`
	FSBandwidth   float64 `json:"fs_bandwidth"`
	UnitBandwidth float64 `json:"unit_bandwidth"`
	SplitDuplex   bool    `json:"split_duplex,omitempty"`
	NodeBandwidth float64 `json:"node_bandwidth,omitempty"`
	StageIn       float64 `json:"stage_in"`
	Checkpoint    float64 `json:"checkpoint"`
	StageOut      float64 `json:"stage_out"`
	Drain         bool    `json:"drain,omitempty"`
	PhaseSeconds  int64   `json:"phase_seconds"`
	MaxPhases     int     `json:"max_phases"`
}

type powerDoc struct {
	Groups [][]nodePowerDoc `json:"groups"`
	Caps   []capDoc         `json:"caps,omitempty"`
}

type nodePowerDoc struct {
	Off        float64 `json:"off"`
	Idle       float64 `json:"idle"`
	Full       float64 `json:"full"`
	OnSeconds  int64   `json:"on_seconds,omitempty"`
	OnJoules   float64 `json:"on_joules,omitempty"`
	OffSeconds int64   `json:"off_seconds,omitempty"`
	OffJoules  float64 `json:"off_joules,omitempty"`
	// Busy is sent from protocol 11 on, for a group with a busy power
	// table; a host refuses such a run to a plugin of an older protocol.
	Busy []float64 `json:"busy,omitempty"`
	// Down is sent from protocol 11 on; it matters only with outages,
	// which a plugin of protocol 11 built before it refuses with a model.
	Down string `json:"down,omitempty"`
}

type capDoc struct {
	From  int64   `json:"from"`
	Watts float64 `json:"watts"`
}

// energyDoc is the engine's energy of a run with a power model, in the
// stats frame of protocol 9 (left out without a model).
type energyDoc struct {
	From      int64   `json:"from"`
	To        int64   `json:"to"`
	Static    float64 `json:"static"`
	Dynamic   float64 `json:"dynamic"`
	Off       float64 `json:"off"`
	Switching float64 `json:"switching"`
	OverCap   int64   `json:"over_cap"`
}

type outageDoc struct {
	Cluster int32   `json:"cluster"`
	Nodes   []int32 `json:"nodes,omitempty"`
	Start   int64   `json:"start"`
	End     int64   `json:"end"`
	Kind    string  `json:"kind"`
}

type faultsDoc struct {
	OnFailure   string         `json:"on_failure"`
	LosePlace   bool           `json:"lose_place,omitempty"`
	Maintenance string         `json:"maintenance"`
	Checkpoint  *checkpointDoc `json:"checkpoint,omitempty"`
}

type checkpointDoc struct {
	Rule     string  `json:"rule"`
	Interval int64   `json:"interval,omitempty"`
	Cost     int64   `json:"cost"`
	Restart  int64   `json:"restart"`
	MTBF     float64 `json:"mtbf,omitempty"`
}

type platformDoc struct {
	Name      string       `json:"name"`
	Resources []string     `json:"resources"`
	Clusters  []clusterDoc `json:"clusters"`
}

type clusterDoc struct {
	Name     string     `json:"name"`
	Capacity []int64    `json:"capacity"`
	Units    []unitsDoc `json:"units,omitempty"`
	// PriceFactor is sent from protocol 5 on (older plugins ignore it).
	PriceFactor float64 `json:"price_factor,omitempty"`
	// Nodes, Partitions and Placement are sent from protocol 6 on; a host
	// refuses a plugin of an older protocol on a platform of nodes.
	Nodes      []nodeGroupDoc `json:"nodes,omitempty"`
	Partitions []partitionDoc `json:"partitions,omitempty"`
	Placement  string         `json:"placement,omitempty"`
	// Features, a grid cluster's tags, are sent from protocol 11 on; a
	// host refuses a plugin of an older protocol a run with some.
	Features []string `json:"features,omitempty"`
}

type nodeGroupDoc struct {
	Name     string   `json:"name"`
	Count    int      `json:"count"`
	Cores    int64    `json:"cores"`
	Memory   int64    `json:"memory,omitempty"`
	GPUs     int64    `json:"gpus,omitempty"`
	Features []string `json:"features,omitempty"`
}

type partitionDoc struct {
	Name        string   `json:"name"`
	Groups      []string `json:"groups"`
	MaxWalltime int64    `json:"max_walltime,omitempty"`
	MaxNodes    int      `json:"max_nodes,omitempty"`
	Default     bool     `json:"default,omitempty"`
}

type unitsDoc struct {
	Resource int     `json:"resource"`
	PiecesBy int     `json:"pieces_by"`
	Capacity []int64 `json:"capacity"`
}

// statsDoc is the stats frame of protocol 4. PolicyCounts, the counts of
// a policy that keeps some (sdk.Counter), is left out when there are none,
// so the frame of any other policy is the same as before; a host that does
// not know the key ignores it, so it needs no new protocol version.
type statsDoc struct {
	Events       int64            `json:"events"`
	PolicyCalls  int64            `json:"policy_calls"`
	Decisions    int64            `json:"decisions"`
	PolicyNanos  int64            `json:"policy_nanos"`
	WallNanos    int64            `json:"wall_nanos"`
	PolicyCounts map[string]int64 `json:"policy_counts,omitempty"`
	// PolicyDrains, from protocol 11, counts the nodes the policy drained
	// (sim.Stats.PolicyDrains); left out when it drained none, so that
	// the frame of a run without drains is the same as before.
	PolicyDrains int64 `json:"policy_drains,omitempty"`
	// Energy, from protocol 9, is the engine's energy of a run with a
	// power model.
	Energy *energyDoc `json:"energy,omitempty"`
}

// infoDoc answers Describe, in both protocols.
type infoDoc struct {
	Name            string     `json:"name"`
	Version         string     `json:"version"`
	Description     string     `json:"description,omitempty"`
	Params          []paramDoc `json:"params,omitempty"`
	SDKVersion      string     `json:"sdk_version"`
	ProtocolVersion int        `json:"protocol_version"`
}

type paramDoc struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Default string   `json:"default"`
	Doc     string   `json:"doc,omitempty"`
	Choices []string `json:"choices,omitempty"`
}

// header3 is the header frame of protocol 3.
type header3 struct {
	Protocol       int               `json:"protocol"`
	Platform       *platform3        `json:"platform"`
	Params         map[string]string `json:"params,omitempty"`
	Seed           uint64            `json:"seed"`
	ExactEstimates bool              `json:"exact_estimates"`
	Jobs           int               `json:"jobs"`
}

type platform3 struct {
	Name      string     `json:"Name"`
	Resources []string   `json:"Resources"`
	Clusters  []cluster3 `json:"Clusters"`
}

type cluster3 struct {
	Name     string   `json:"Name"`
	Capacity []int64  `json:"Capacity"`
	Units    []units3 `json:"Units,omitempty"`
}

type units3 struct {
	Resource int     `json:"Resource"`
	PiecesBy int     `json:"PiecesBy"`
	Capacity []int64 `json:"Capacity"`
}

// stats3 is the stats frame of protocol 3.
type stats3 struct {
	Events      int64 `json:"Events"`
	PolicyCalls int64 `json:"PolicyCalls"`
	Decisions   int64 `json:"Decisions"`
	PolicyNanos int64 `json:"PolicyNanos"`
	WallNanos   int64 `json:"WallNanos"`
}

// encodeHeader returns the JSON of the header of a run of jobs jobs in the
// given protocol version.
func encodeHeader(version int, spec RunSpec, jobs int) ([]byte, error) {
	p := spec.Platform
	switch version {
	case sdk.ProtocolVersion, 11, 10, 9, 8, 7, 6, 5, 4:
		h := header{Protocol: version, Params: spec.Params, Seed: spec.Seed, ExactEstimates: spec.ExactEstimates, Jobs: jobs}
		if version >= 7 {
			h.Dependencies = spec.Dependencies
		}
		if version >= 8 && len(spec.Outages) > 0 {
			for _, o := range spec.Outages {
				h.Outages = append(h.Outages, outageDoc{Cluster: o.Cluster, Nodes: o.Nodes, Start: o.Start, End: o.End, Kind: o.Kind.String()})
			}
			f := spec.Faults
			h.Faults = &faultsDoc{OnFailure: f.OnFailure.String(), LosePlace: f.LosePlace, Maintenance: f.Maintenance.String()}
			if c := f.Checkpoint; f.OnFailure == sim.FailCheckpoint {
				h.Faults.Checkpoint = &checkpointDoc{Rule: c.Rule.String(), Interval: c.Interval, Cost: c.Cost, Restart: c.Restart, MTBF: c.MTBF}
			}
		}
		if version >= 9 && spec.Power != nil {
			h.Power = &powerDoc{}
			for _, gs := range spec.Power.Groups {
				var docs []nodePowerDoc
				for _, g := range gs {
					d := nodePowerDoc(g)
					if version < 11 {
						d.Busy, d.Down = nil, ""
					}
					docs = append(docs, d)
				}
				h.Power.Groups = append(h.Power.Groups, docs)
			}
			for _, c := range spec.Power.Caps {
				h.Power.Caps = append(h.Power.Caps, capDoc(c))
			}
		}
		if version >= 10 && spec.IO != nil {
			d := ioDoc(*spec.IO)
			h.IO = &d
		}
		if p != nil {
			h.Platform = &platformDoc{Name: p.Name, Resources: p.Resources, Clusters: make([]clusterDoc, len(p.Clusters))}
			for i, c := range p.Clusters {
				h.Platform.Clusters[i] = clusterDoc{Name: c.Name, Capacity: c.Capacity}
				if version >= 5 {
					h.Platform.Clusters[i].PriceFactor = c.PriceFactor
				}
				if version >= 6 {
					h.Platform.Clusters[i].Nodes, h.Platform.Clusters[i].Partitions = nodesDoc(&c)
					h.Platform.Clusters[i].Placement = string(c.Placement)
				}
				if version >= 11 {
					h.Platform.Clusters[i].Features = c.Features
				}
				for _, u := range c.Units {
					h.Platform.Clusters[i].Units = append(h.Platform.Clusters[i].Units,
						unitsDoc{Resource: u.Resource, PiecesBy: u.PiecesBy, Capacity: u.Capacity})
				}
			}
		}
		return json.Marshal(h)
	case 3:
		h := header3{Protocol: version, Params: spec.Params, Seed: spec.Seed, ExactEstimates: spec.ExactEstimates, Jobs: jobs}
		if p != nil {
			h.Platform = &platform3{Name: p.Name, Resources: p.Resources, Clusters: make([]cluster3, len(p.Clusters))}
			for i, c := range p.Clusters {
				h.Platform.Clusters[i] = cluster3{Name: c.Name, Capacity: c.Capacity}
				for _, u := range c.Units {
					h.Platform.Clusters[i].Units = append(h.Platform.Clusters[i].Units,
						units3{Resource: u.Resource, PiecesBy: u.PiecesBy, Capacity: u.Capacity})
				}
			}
		}
		return json.Marshal(h)
	}
	return nil, fmt.Errorf("wire: no header for protocol %d", version)
}

// decodeHeader reads a header of this SDK's protocol: the run's spec and
// its number of jobs.
func decodeHeader(b []byte) (RunSpec, int, error) {
	var h header
	if err := json.Unmarshal(b, &h); err != nil {
		return RunSpec{}, 0, fmt.Errorf("wire: header: %w", err)
	}
	if h.Protocol != sdk.ProtocolVersion {
		return RunSpec{}, 0, fmt.Errorf("wire: host speaks protocol %d, plugin %d", h.Protocol, sdk.ProtocolVersion)
	}
	if h.Platform == nil {
		return RunSpec{}, 0, fmt.Errorf("wire: header has no platform")
	}
	if h.Jobs < 0 {
		return RunSpec{}, 0, fmt.Errorf("wire: header announces %d jobs", h.Jobs)
	}
	p := &sdk.Platform{Name: h.Platform.Name, Resources: h.Platform.Resources, Clusters: make([]sdk.Cluster, len(h.Platform.Clusters))}
	for i, c := range h.Platform.Clusters {
		p.Clusters[i] = sdk.Cluster{Name: c.Name, Capacity: c.Capacity, PriceFactor: c.PriceFactor, Placement: sdk.Placement(c.Placement), Features: c.Features}
		for _, g := range c.Nodes {
			p.Clusters[i].Nodes = append(p.Clusters[i].Nodes, sdk.NodeGroup(g))
		}
		for _, pt := range c.Partitions {
			p.Clusters[i].Partitions = append(p.Clusters[i].Partitions, sdk.Partition(pt))
		}
		for _, u := range c.Units {
			p.Clusters[i].Units = append(p.Clusters[i].Units, sdk.Units{Resource: u.Resource, PiecesBy: u.PiecesBy, Capacity: u.Capacity})
		}
	}
	spec := RunSpec{Platform: p, Params: h.Params, Seed: h.Seed, ExactEstimates: h.ExactEstimates, Dependencies: h.Dependencies}
	for _, o := range h.Outages {
		kind, err := sdk.ParseOutageKind(o.Kind)
		if err != nil {
			return RunSpec{}, 0, fmt.Errorf("wire: header: %w", err)
		}
		spec.Outages = append(spec.Outages, sdk.Outage{Cluster: o.Cluster, Nodes: o.Nodes, Start: o.Start, End: o.End, Kind: kind})
	}
	if h.Power != nil {
		spec.Power = &sdk.Power{}
		for _, gs := range h.Power.Groups {
			var ms []sdk.NodePower
			for _, g := range gs {
				ms = append(ms, sdk.NodePower(g))
			}
			spec.Power.Groups = append(spec.Power.Groups, ms)
		}
		for _, c := range h.Power.Caps {
			spec.Power.Caps = append(spec.Power.Caps, sdk.CapStep(c))
		}
	}
	if h.IO != nil {
		m := sdk.IO(*h.IO)
		spec.IO = &m
	}
	if h.Faults != nil {
		var err error
		if spec.Faults.OnFailure, err = sim.ParseOnFailure(h.Faults.OnFailure); err != nil {
			return RunSpec{}, 0, fmt.Errorf("wire: header: %w", err)
		}
		if spec.Faults.Maintenance, err = sim.ParseMaintenance(h.Faults.Maintenance); err != nil {
			return RunSpec{}, 0, fmt.Errorf("wire: header: %w", err)
		}
		spec.Faults.LosePlace = h.Faults.LosePlace
		if c := h.Faults.Checkpoint; c != nil {
			if spec.Faults.Checkpoint.Rule, err = sim.ParseIntervalRule(c.Rule); err != nil {
				return RunSpec{}, 0, fmt.Errorf("wire: header: %w", err)
			}
			spec.Faults.Checkpoint.Interval, spec.Faults.Checkpoint.Cost, spec.Faults.Checkpoint.Restart = c.Interval, c.Cost, c.Restart
			spec.Faults.Checkpoint.MTBF = c.MTBF
		}
	}
	return spec, h.Jobs, nil
}

// nodesDoc returns the documents of c's node groups and partitions.
func nodesDoc(c *sdk.Cluster) ([]nodeGroupDoc, []partitionDoc) {
	var groups []nodeGroupDoc
	for _, g := range c.Nodes {
		groups = append(groups, nodeGroupDoc(g))
	}
	var parts []partitionDoc
	for _, pt := range c.Partitions {
		parts = append(parts, partitionDoc(pt))
	}
	return groups, parts
}

// encodeStats returns the JSON of a stats frame of this SDK's protocol,
// with the engine's energy of a run with a power model (nil: none).
func encodeStats(s sim.Stats, en *sim.Energy) ([]byte, error) {
	d := statsDoc{Events: s.Events, PolicyCalls: s.PolicyCalls, Decisions: s.Decisions,
		PolicyNanos: s.PolicyNanos, WallNanos: s.WallNanos, PolicyCounts: s.PolicyCounts, PolicyDrains: s.PolicyDrains}
	if en != nil {
		d.Energy = &energyDoc{From: en.From, To: en.To, Static: en.Static, Dynamic: en.Dynamic, Off: en.Off, Switching: en.Switching, OverCap: en.OverCap}
	}
	return json.Marshal(d)
}

// decodeStats reads the JSON of a stats frame in the given protocol
// version, and the energy it holds (nil when none).
func decodeStats(version int, b []byte) (sim.Stats, *sim.Energy, error) {
	var d statsDoc
	var err error
	switch version {
	case sdk.ProtocolVersion, 11, 10, 9, 8, 7, 6, 5, 4:
		err = json.Unmarshal(b, &d)
	case 3:
		var d3 stats3
		err = json.Unmarshal(b, &d3)
		d = statsDoc{Events: d3.Events, PolicyCalls: d3.PolicyCalls, Decisions: d3.Decisions,
			PolicyNanos: d3.PolicyNanos, WallNanos: d3.WallNanos}
	default:
		return sim.Stats{}, nil, fmt.Errorf("wire: no stats for protocol %d", version)
	}
	if err != nil {
		return sim.Stats{}, nil, fmt.Errorf("wire: stats: %w", err)
	}
	var en *sim.Energy
	if e := d.Energy; e != nil {
		en = &sim.Energy{From: e.From, To: e.To, Static: e.Static, Dynamic: e.Dynamic, Off: e.Off, Switching: e.Switching, OverCap: e.OverCap}
	}
	return sim.Stats{Events: d.Events, PolicyCalls: d.PolicyCalls, Decisions: d.Decisions,
		PolicyNanos: d.PolicyNanos, WallNanos: d.WallNanos, PolicyCounts: d.PolicyCounts, PolicyDrains: d.PolicyDrains}, en, nil
}

// EncodeInfo returns the JSON form of a policy's description, as Describe
// and a plugin binary's "describe" argument give it.
func EncodeInfo(info sdk.Info) ([]byte, error) {
	d := infoDoc{Name: info.Name, Version: info.Version, Description: info.Description,
		SDKVersion: info.SDKVersion, ProtocolVersion: info.ProtocolVersion}
	for _, p := range info.Params {
		d.Params = append(d.Params, paramDoc{Name: p.Name, Type: string(p.Type), Default: p.Default, Doc: p.Doc, Choices: p.Choices})
	}
	return json.Marshal(d)
}

// DecodeInfo reads the JSON form of a policy's description.
func DecodeInfo(b []byte) (sdk.Info, error) {
	var d infoDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return sdk.Info{}, fmt.Errorf("wire: describe: %w", err)
	}
	info := sdk.Info{Name: d.Name, Version: d.Version, Description: d.Description,
		SDKVersion: d.SDKVersion, ProtocolVersion: d.ProtocolVersion}
	for _, p := range d.Params {
		info.Params = append(info.Params, sdk.Param{Name: p.Name, Type: sdk.ParamType(p.Type), Default: p.Default, Doc: p.Doc, Choices: p.Choices})
	}
	return info, nil
}

package results

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// OutageRow is what a jobs file says of a job in a run with outages of
// nodes (failures, drains, maintenance windows; docs/engine.md), in its
// last columns:
//
//   - attempts: the job's runs that an outage ended;
//   - interrupted: "failure" or "maintenance" when an outage ended its
//     last run for good (on_failure = kill: its start and end are that
//     run's), NULL when it ran to its end;
//   - lost_core_seconds: the cores it held on its nodes times the length
//     of each run an outage ended, less the work its checkpoints kept,
//     summed: the work lost;
//   - attempt_starts, attempt_ends (LIST of INT64), attempt_causes (LIST
//     of STRING), attempt_nodes (LIST of INT32) and attempt_saved (LIST of
//     INT64): each run an outage ended, in order, with the kind of the
//     outage, the node it hit and the seconds of work its checkpoints kept
//     (on_failure = checkpoint; else 0).
//
// DuckDB unnests them: SELECT job_id, unnest(attempt_starts) AS s,
// unnest(attempt_ends) AS e FROM 'jobs.parquet'.
type OutageRow struct {
	Attempts        int32    `parquet:"attempts"`
	Interrupted     *string  `parquet:"interrupted,optional,dict"`
	LostCoreSeconds int64    `parquet:"lost_core_seconds"`
	AttemptStarts   []int64  `parquet:"attempt_starts,list"`
	AttemptEnds     []int64  `parquet:"attempt_ends,list"`
	AttemptCauses   []string `parquet:"attempt_causes,list"`
	AttemptNodes    []int32  `parquet:"attempt_nodes,list"`
	AttemptSaved    []int64  `parquet:"attempt_saved,list"`
}

// outageFirstColumn is the first of OutageRow's columns, which come last.
const outageFirstColumn = "attempts"

// readOutages reads OutageRow's columns of a jobs file; nil for a file
// without them.
func readOutages(path string, rows int) ([]OutageRow, error) {
	return readGroup[OutageRow](path, rows, outageFirstColumn, "outage")
}

// lastGroup returns the index in gf, from n on, of the first column of the
// trailing groups (feedback, outages, power, notes), or len(gf) without
// them.
func lastGroup(gf []parquet.Field, n int) int {
	for k := n; k < len(gf); k++ {
		if name := gf[k].Name(); name == feedbackFirstColumn || name == outageFirstColumn || name == powerFirstColumn ||
			strings.HasPrefix(name, NotePrefix) {
			return k
		}
	}
	return len(gf)
}

// checkOutageColumns checks the outage columns of a file, gf (from its
// first, attempts, to the last), against OutageRow's.
func checkOutageColumns(gf []parquet.Field) error {
	want := parquet.SchemaOf(OutageRow{}).Fields()
	if len(gf) != len(want) {
		return fmt.Errorf("%d outage columns, want %d", len(gf), len(want))
	}
	for i, w := range want {
		g := gf[i]
		if g.Name() != w.Name() || g.Leaf() != w.Leaf() || g.Optional() != w.Optional() || g.Repeated() != w.Repeated() {
			return fmt.Errorf("outage column %d is %q, want %q", i, g.Name(), w.Name())
		}
		if w.Leaf() && g.Type().Kind() != w.Type().Kind() {
			return fmt.Errorf("column %q is %s, want %s", g.Name(), g.Type().Kind(), w.Type().Kind())
		}
	}
	return nil
}

// OutagesKey is the key, in a jobs file's metadata, of the run's outages
// (EncodeOutages), which `schedlab gantt` draws.
const OutagesKey = "outages.list"

// outageDoc is an outage as OutagesKey holds it.
type outageDoc struct {
	Kind  string  `json:"kind"`
	Nodes []int32 `json:"nodes,omitempty"`
	Start int64   `json:"start"`
	End   int64   `json:"end"`
}

// EncodeOutages returns the JSON of a run's outages (on its one cluster of
// nodes): a list of {kind, nodes (none: every node), start, end}.
func EncodeOutages(outs []sdk.Outage) string {
	docs := make([]outageDoc, len(outs))
	for i, o := range outs {
		docs[i] = outageDoc{Kind: o.Kind.String(), Nodes: o.Nodes, Start: o.Start, End: o.End}
	}
	b, _ := json.Marshal(docs) // strings and integers only
	return string(b)
}

// PolicyDrainsKey is the key, in a jobs file's metadata, of the nodes the
// run's policy drained itself (EncodePolicyDrains), which `schedlab gantt`
// draws; only the file of a run whose policy drained nodes has it.
const PolicyDrainsKey = "policy_drains"

// drainDoc is a node a policy drained, as PolicyDrainsKey lists it: end
// -1 when the policy never resumed it.
type drainDoc struct {
	Cluster int32 `json:"cluster"`
	Node    int32 `json:"node"`
	Start   int64 `json:"start"`
	End     int64 `json:"end"`
}

// EncodePolicyDrains returns the JSON of the nodes a run's policy
// drained: a list of {cluster, node, start, end}.
func EncodePolicyDrains(ds []sim.PolicyDrain) string {
	docs := make([]drainDoc, len(ds))
	for i, d := range ds {
		docs[i] = drainDoc(d)
	}
	b, _ := json.Marshal(docs) // integers only
	return string(b)
}

// DecodePolicyDrains reads what EncodePolicyDrains wrote, as outages of
// kind sdk.PolicyDrain of one node each; a drain the policy never resumed
// ends at end.
func DecodePolicyDrains(s string, end int64) ([]sdk.Outage, error) {
	var docs []drainDoc
	if err := json.Unmarshal([]byte(s), &docs); err != nil {
		return nil, fmt.Errorf("results: %s: %w", PolicyDrainsKey, err)
	}
	outs := make([]sdk.Outage, len(docs))
	for i, d := range docs {
		if d.End < 0 {
			d.End = max(end, d.Start)
		}
		outs[i] = sdk.Outage{Cluster: d.Cluster, Kind: sdk.PolicyDrain, Nodes: []int32{d.Node}, Start: d.Start, End: d.End}
	}
	return outs, nil
}

// DecodeOutages reads what EncodeOutages wrote.
func DecodeOutages(s string) ([]sdk.Outage, error) {
	var docs []outageDoc
	if err := json.Unmarshal([]byte(s), &docs); err != nil {
		return nil, fmt.Errorf("results: %s: %w", OutagesKey, err)
	}
	outs := make([]sdk.Outage, len(docs))
	for i, d := range docs {
		k, err := sdk.ParseOutageKind(d.Kind)
		if err != nil {
			return nil, fmt.Errorf("results: %s: %w", OutagesKey, err)
		}
		outs[i] = sdk.Outage{Kind: k, Nodes: d.Nodes, Start: d.Start, End: d.End}
	}
	return outs, nil
}

package wire

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// The golden files in testdata/golden pin every document and frame of the
// protocol, byte for byte, so that no change of a public type, a field name
// or an encoder can change the protocol unnoticed. header-v3.json and
// stats-v3.json were written by SDK 0.3.0 itself (its wire.RunSpec and
// sim.Stats through encoding/json) and must never be regenerated; the
// others were written by this SDK and checked by eye. A deliberate change of
// the protocol is a new protocol version with new golden files.

func goldenSpec() RunSpec {
	return RunSpec{
		Platform: &sdk.Platform{Name: "grid", Resources: []string{"procs", "bb"}, Clusters: []sdk.Cluster{
			{Name: "a", Capacity: sdk.Vector{8, 40}, Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: []int64{10, 10, 20}}}},
			{Name: "b", Capacity: sdk.Vector{4, 0}, PriceFactor: 1.5},
		}},
		Params: map[string]string{"order": "shortest"}, Seed: 42, ExactEstimates: true,
	}
}

var goldenStats = sim.Stats{Events: 1, PolicyCalls: 2, Decisions: 3, PolicyNanos: 4, WallNanos: 5}

func goldenInfo() sdk.Info {
	return sdk.Info{Name: "easy", Version: "1.2.0", Description: "EASY backfilling",
		Params: []sdk.Param{
			{Name: "order", Type: sdk.String, Default: "submit", Doc: "queue order", Choices: []string{"submit", "shortest"}},
			{Name: "depth", Type: sdk.Int, Default: "1"},
		},
		SDKVersion: "0.4.0", ProtocolVersion: 4}
}

func goldenJobs() []sim.Input {
	return []sim.Input{
		{Job: sdk.Job{Index: 0, ID: 7, Submit: 100, Walltime: 3600, Request: sdk.Vector{4, 8},
			User: 1, Group: 2, App: 3, Queue: 4, Partition: 5, Priority: 0.5}, Runtime: 1800},
		{Job: sdk.Job{Index: 1, ID: -1, Submit: 1 << 40, Walltime: 1, Request: sdk.Vector{1, 0},
			User: -1, Group: -1, App: -1, Queue: -1, Partition: -1}, Runtime: 2},
	}
}

func goldenRecords() []sim.Record {
	return []sim.Record{
		{Index: 0, Cluster: 1, Start: 100, End: 1900, Promised: 50, HasPromise: true, Backfilled: true},
		{Index: 1, Cluster: 0, Start: 1 << 40, End: 1<<40 + 1, Killed: true},
	}
}

// goldenJobs5 are goldenJobs with a home cluster and a transfer time,
// which protocol 5 carries.
func goldenJobs5() []sim.Input {
	jobs := goldenJobs()
	jobs[0].Job.Home, jobs[0].Job.Transfer = 2, 0
	jobs[1].Job.Home, jobs[1].Job.Transfer = 0, 300
	return jobs
}

// goldenRecords5 are goldenRecords with a shipment, a reservation (one
// refused before), a charge and a rejected job, which protocol 5 carries.
func goldenRecords5() []sim.Record {
	recs := goldenRecords()
	recs[1].Shipped, recs[1].ShipTime = true, 1<<40-300
	recs[1].Reserved, recs[1].ReservedAt, recs[1].ReservedCluster, recs[1].Refusals = true, 1<<40, 0, 1
	recs[1].Charged, recs[1].Cost = true, 12.5
	return append(recs, sim.Record{Index: 2, Cluster: -1, Start: 1 << 40, End: 1 << 40, Rejected: true})
}

// goldenSpec6 is a run on a platform of nodes, which only protocol 6
// carries.
func goldenSpec6() RunSpec {
	return RunSpec{
		Platform: &sdk.Platform{Name: "curie", Resources: []string{"procs", "mem", "gpus"}, Clusters: []sdk.Cluster{{
			Name: "curie", Capacity: sdk.Vector{40, 96, 2},
			Nodes: []sdk.NodeGroup{{Name: "thin", Count: 2, Cores: 16, Memory: 32}, {Name: "fat", Count: 1, Cores: 8, Memory: 32, GPUs: 2, Features: []string{"gpu"}}},
			Partitions: []sdk.Partition{{Name: "all", Groups: []string{"thin", "fat"}, Default: true},
				{Name: "fat", Groups: []string{"fat"}, MaxWalltime: 3600, MaxNodes: 1}},
			Placement: sdk.BestFit,
		}}},
		Seed: 6,
	}
}

// goldenJobs6 are goldenJobs5 with tasks, which protocol 6 carries.
func goldenJobs6() []sim.Input {
	jobs := goldenJobs5()
	jobs[0].Job.Tasks = &sdk.Tasks{Count: 4, Cores: 1, Memory: 2, Nodes: 1, Exclusive: true, Partition: 2, Features: 1}
	jobs[1].Job.Tasks = &sdk.Tasks{Count: 1, Cores: 2, GPUs: 1}
	return jobs
}

// goldenSpec7 and goldenJobs7 are a run of jobs that depend on others,
// which only protocol 7 carries: the second job waits 600 s after the
// first.
func goldenSpec7() RunSpec {
	spec := goldenSpec6()
	spec.Dependencies = true
	return spec
}

func goldenJobs7() []sim.Input {
	jobs := goldenJobs6()
	jobs[1].After, jobs[1].Think = 1, 600
	return jobs
}

// goldenSpec8, goldenRecords8 and goldenAttempts are a run with outages
// of nodes, which only protocol 8 carries: a failure of node 0 that
// ended job index 0's run, which had checkpointed 300 s of its work, and
// a machine-wide maintenance.
func goldenSpec8() RunSpec {
	spec := goldenSpec7()
	spec.Outages = []sdk.Outage{
		{Nodes: []int32{0}, Start: 500, End: 900, Kind: sdk.Failure},
		{Start: 1 << 40, End: 1<<40 + 3600, Kind: sdk.Maintenance},
	}
	spec.Faults = sim.Faults{OnFailure: sim.FailCheckpoint, LosePlace: true, Maintenance: sim.MaintenanceSoft,
		Checkpoint: sim.Checkpoint{Rule: sim.IntervalDaly, Cost: 120, Restart: 60, MTBF: 86400 * 30}}
	return spec
}

func goldenRecords8() []sim.Record {
	recs := goldenRecords5()
	recs[0].Attempts = 1
	recs[1].Attempts, recs[1].Interrupted = 2, sdk.Maintenance
	return recs
}

func goldenAttempts() []sim.Attempt {
	return []sim.Attempt{{Index: 0, Cluster: 0, Start: 100, End: 500, Cause: sdk.Failure, Node: 0, Saved: 300},
		{Index: 1, Cluster: 1, Start: -5, End: 1 << 40, Cause: sdk.Maintenance, Node: 7}}
}

// goldenSpec9, goldenPower and goldenEnergy are a run with a power model,
// which only protocol 9 carries: two node groups' models, one switching
// in 0 s, and a cap lowered at 3600 s.
func goldenSpec9() RunSpec {
	spec := goldenSpec8()
	spec.Power = &sdk.Power{
		Groups: [][]sdk.NodePower{{{Off: 9.5, Idle: 95, Full: 240.25, OnSeconds: 300, OnJoules: 45000, OffSeconds: 60, OffJoules: 3000}}, nil},
		Caps:   []sdk.CapStep{{From: 0, Watts: 1e6}, {From: 3600, Watts: 0}},
	}
	return spec
}

// goldenSpec10 is a run with an I/O model, which only protocol 10
// carries.
func goldenSpec10() RunSpec {
	spec := goldenSpec9()
	spec.IO = &sdk.IO{Resource: 1, FSBandwidth: 5e9, UnitBandwidth: 1.25e9, SplitDuplex: true, NodeBandwidth: 1.25e9,
		StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 3600, MaxPhases: 10}
	return spec
}

// goldenSpec11Features and goldenJobs11 are a run on clusters with features and a
// job that requires one, which only protocol 11 carries.
func goldenSpec11Features() RunSpec {
	spec := goldenSpec()
	spec.Platform.Clusters[1].Features = []string{"gpu", "fast"}
	return spec
}

func goldenJobs11() []sim.Input {
	jobs := goldenJobs7()
	jobs[0].Job.Requires = 2 // "gpu": the features sorted are fast, gpu
	return jobs
}

// goldenSpec11 is a run with a busy power table, which only protocol 11
// carries.
func goldenSpec11() RunSpec {
	spec := goldenSpec10()
	g := &spec.Power.Groups[0][0]
	g.Busy = []float64{g.Idle + 1.5, g.Full}
	return spec
}

func goldenPower() []sim.PowerEvent {
	return []sim.PowerEvent{{At: 0, Cluster: 0, Node: 1, Mode: sdk.NodeSwitchingOff}, {At: 1 << 40, Cluster: 2, Node: -1, Mode: sdk.NodeOn}}
}

var goldenEnergy = sim.Energy{From: -5, To: 1 << 40, Static: 1.5, Dynamic: 1e300, Off: 0.1, Switching: 0, OverCap: 7}

// goldenDrains are drains of a run of protocol 11, and goldenDrainStats
// its stats, which count them.
func goldenDrains() []sim.PolicyDrain {
	return []sim.PolicyDrain{{Cluster: 0, Node: 3, Start: -5, End: 1 << 40}, {Cluster: 2, Node: 0, Start: 7, End: -1}}
}

func goldenDrainStats() sim.Stats {
	s := goldenStats
	s.PolicyDrains = 2
	return s
}

// goldenNotes are notes of a run of two jobs, of protocol 12: the first
// job's priority and age and its reasons, none for the second, whose
// priority is NaN.
func goldenNotes() *sdk.Notes {
	return &sdk.Notes{
		Columns: []sdk.NoteColumn{{Name: "priority", Values: []float64{1400, math.NaN()}}, {Name: "age", Values: []float64{-0.5, 0}}},
		Waits:   [][]sdk.WaitSpell{{{From: 60, Reason: "Resources"}, {From: 1 << 40, Reason: "Priority"}}, nil},
	}
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".hex") {
		if b, err = hex.DecodeString(strings.Join(strings.Fields(string(b)), "")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

func TestGolden(t *testing.T) {
	must := func(b []byte, err error) []byte {
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		file string
		got  []byte
	}{
		{"header-v12.json", must(encodeHeader(12, goldenSpec11Features(), 2))}, // 12 adds nothing to the header
		{"notes.hex", AppendNotes(nil, goldenNotes(), 2)},
		{"header-v11.json", must(encodeHeader(11, goldenSpec11(), 2))},
		{"header-v11-features.json", must(encodeHeader(11, goldenSpec11Features(), 2))},
		{"header-v10.json", must(encodeHeader(10, goldenSpec10(), 2))},
		{"header-v10.json", must(encodeHeader(10, goldenSpec11(), 2))}, // 10 cannot carry a busy power table
		{"stats-v11.json", must(encodeStats(goldenDrainStats(), nil))},
		{"drains.hex", AppendDrains(nil, goldenDrains())},
		{"header-v9.json", must(encodeHeader(9, goldenSpec9(), 2))},
		{"header-v9.json", must(encodeHeader(9, goldenSpec10(), 2))}, // 9 cannot carry an I/O model
		{"header-v8.json", must(encodeHeader(8, goldenSpec8(), 2))},
		{"header-v8.json", must(encodeHeader(8, goldenSpec9(), 2))}, // 8 cannot carry power
		{"stats-v9.json", must(encodeStats(goldenStats, &goldenEnergy))},
		{"power.hex", AppendPower(nil, goldenPower())},
		{"header-v7.json", must(encodeHeader(7, goldenSpec7(), 2))},
		{"header-v7.json", must(encodeHeader(7, goldenSpec8(), 2))}, // 7 cannot carry outages
		{"header-v6.json", must(encodeHeader(6, goldenSpec6(), 2))},
		{"header-v6.json", must(encodeHeader(6, goldenSpec7(), 2))}, // 6 cannot carry dependencies
		{"header-v5.json", must(encodeHeader(5, goldenSpec(), 2))},
		{"header-v4.json", must(encodeHeader(4, goldenSpec(), 2))},
		{"header-v3.json", must(encodeHeader(3, goldenSpec(), 2))},
		{"stats-v4.json", must(encodeStats(goldenStats, nil))},
		{"describe.json", must(EncodeInfo(goldenInfo()))},
		{"jobs.hex", AppendJobsVersion(nil, goldenJobs(), 4)},
		{"records.hex", AppendRecordsVersion(nil, goldenRecords(), 4)},
		{"jobs-v5.hex", AppendJobsVersion(nil, goldenJobs5(), 5)},
		{"jobs-v6.hex", AppendJobsVersion(nil, goldenJobs6(), 6)},
		{"jobs-v7.hex", AppendJobsVersion(nil, goldenJobs7(), 7)},
		{"jobs-v7.hex", AppendJobsVersion(nil, goldenJobs11(), 7)}, // 7 cannot carry requirements
		{"jobs-v11.hex", AppendJobs(nil, goldenJobs11())},
		{"records-v5.hex", AppendRecordsVersion(nil, goldenRecords5(), 5)},
		{"records-v8.hex", AppendRecords(nil, goldenRecords8())},
		{"attempts.hex", AppendAttempts(nil, goldenAttempts())},
		{"allocs.hex", AppendAllocs(nil, AllocsStream(&sim.Allocs{Start: []int32{0, 1, 3}, Nodes: []int32{2, 0, 1}, Tasks: []int32{4, 1, 1}}))},
		{"units.hex", AppendUnits(nil, []int32{0, 2, -1})},
		{"progress.hex", AppendProgress(nil, 1234, -5)},
	} {
		if want := readGolden(t, tc.file); !bytes.Equal(tc.got, want) {
			t.Errorf("%s: encoded\n%s\nwant\n%s", tc.file, tc.got, want)
		}
	}

	// 10 cannot carry features: its header is that of the same run without.
	if got, want := must(encodeHeader(10, goldenSpec11Features(), 2)), must(encodeHeader(10, goldenSpec(), 2)); !bytes.Equal(got, want) {
		t.Errorf("protocol 10's header of a run with features:\n%s\nwant\n%s", got, want)
	}

	// And back: what the golden files hold decodes to the values.
	spec, jobs, err := decodeHeader(readGolden(t, "header-v12.json"))
	if err != nil || jobs != 2 || !reflect.DeepEqual(spec, goldenSpec11Features()) {
		t.Errorf("header-v12.json decodes to %+v, %d jobs, %v", spec, jobs, err)
	}
	if got, err := DecodeNotes(readGolden(t, "notes.hex"), 2); err != nil || fmt.Sprint(got) != fmt.Sprint(goldenNotes()) {
		t.Errorf("notes.hex decodes to %+v, %v", got, err)
	}
	if st, en, err := decodeStats(11, readGolden(t, "stats-v11.json")); err != nil || !reflect.DeepEqual(st, goldenDrainStats()) || en != nil {
		t.Errorf("stats-v11.json decodes to %+v, %+v, %v", st, en, err)
	}
	if got, err := DecodeDrains(nil, readGolden(t, "drains.hex")); err != nil || !reflect.DeepEqual(got, goldenDrains()) {
		t.Errorf("drains.hex decodes to %+v, %v", got, err)
	}
	if st, en, err := decodeStats(9, readGolden(t, "stats-v9.json")); err != nil || !reflect.DeepEqual(st, goldenStats) || en == nil || *en != goldenEnergy {
		t.Errorf("stats-v9.json decodes to %+v, %+v, %v", st, en, err)
	}
	if got, err := DecodePower(nil, readGolden(t, "power.hex")); err != nil || !reflect.DeepEqual(got, goldenPower()) {
		t.Errorf("power.hex decodes to %+v, %v", got, err)
	}
	for _, v := range []int{3, 4} {
		st, en, err := decodeStats(v, readGolden(t, "stats-v"+string(rune('0'+v))+".json"))
		if err != nil || !reflect.DeepEqual(st, goldenStats) || en != nil {
			t.Errorf("stats-v%d.json decodes to %+v, %v", v, st, err)
		}
	}
	// A policy's counts travel in the same frame, under a key of their
	// own that the golden frame (a policy without counts) does not hold.
	counted := goldenStats
	counted.PolicyCounts = map[string]int64{"limit_hits": 3, "solves": 7}
	if st, _, err := decodeStats(7, must(encodeStats(counted, nil))); err != nil || !reflect.DeepEqual(st, counted) {
		t.Errorf("stats with policy counts decode to %+v, %v", st, err)
	}
	info, err := DecodeInfo(readGolden(t, "describe.json"))
	if err != nil || !reflect.DeepEqual(info, goldenInfo()) {
		t.Errorf("describe.json decodes to %+v, %v", info, err)
	}
	gotJobs, err := DecodeJobsVersion(nil, readGolden(t, "jobs.hex"), 2, 4)
	if err != nil || !reflect.DeepEqual(gotJobs, goldenJobs()) {
		t.Errorf("jobs.hex decodes to %+v, %v", gotJobs, err)
	}
	recs, err := DecodeRecordsVersion(nil, readGolden(t, "records.hex"), 4)
	if err != nil || !reflect.DeepEqual(recs, goldenRecords()) {
		t.Errorf("records.hex decodes to %+v, %v", recs, err)
	}
	if got, err := DecodeJobsVersion(nil, readGolden(t, "jobs-v5.hex"), 2, 5); err != nil || !reflect.DeepEqual(got, goldenJobs5()) {
		t.Errorf("jobs-v5.hex decodes to %+v, %v", got, err)
	}
	if got, err := DecodeJobsVersion(nil, readGolden(t, "jobs-v6.hex"), 2, 6); err != nil || !reflect.DeepEqual(got, goldenJobs6()) {
		t.Errorf("jobs-v6.hex decodes to %+v, %v", got, err)
	}
	if got, err := DecodeJobsVersion(nil, readGolden(t, "jobs-v7.hex"), 2, 7); err != nil || !reflect.DeepEqual(got, goldenJobs7()) {
		t.Errorf("jobs-v7.hex decodes to %+v, %v", got, err)
	}
	if got, err := DecodeJobs(nil, readGolden(t, "jobs-v11.hex"), 2); err != nil || !reflect.DeepEqual(got, goldenJobs11()) {
		t.Errorf("jobs-v11.hex decodes to %+v, %v", got, err)
	}
	if got, err := DecodeRecordsVersion(nil, readGolden(t, "records-v5.hex"), 5); err != nil || !reflect.DeepEqual(got, goldenRecords5()) {
		t.Errorf("records-v5.hex decodes to %+v, %v", got, err)
	}
	if got, err := DecodeRecords(nil, readGolden(t, "records-v8.hex")); err != nil || !reflect.DeepEqual(got, goldenRecords8()) {
		t.Errorf("records-v8.hex decodes to %+v, %v", got, err)
	}
	if got, err := DecodeAttempts(nil, readGolden(t, "attempts.hex")); err != nil || !reflect.DeepEqual(got, goldenAttempts()) {
		t.Errorf("attempts.hex decodes to %+v, %v", got, err)
	}
	if events, now, err := DecodeProgress(readGolden(t, "progress.hex")); err != nil || events != 1234 || now != -5 {
		t.Errorf("progress.hex decodes to %d events at %d, %v", events, now, err)
	}
	units, err := DecodeUnits(nil, readGolden(t, "units.hex"))
	if err != nil || !reflect.DeepEqual(units, []int32{0, 2, -1}) {
		t.Errorf("units.hex decodes to %v, %v", units, err)
	}
}

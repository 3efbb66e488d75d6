package calls_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	. "github.com/schedlab/schedlab/sdk/internal/calls"
	"github.com/schedlab/schedlab/sdk/sim"
)

// TestPowerSection encodes, by hand, a State of three nodes of which two
// changed mode since the previous call (one of them twice: it is sent
// once, with its last mode), then the next State, where none changed. An
// encoder of a run without a power model writes the same State without
// the section, whatever the state holds.
func TestPowerSection(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	ps := &sdk.PowerState{Modes: [][]sdk.PowerMode{make([]sdk.PowerMode, 3)}, Until: [][]int64{make([]int64, 3)},
		Draw: 300.5, Committed: 310, Cap: 1000}
	ps.SetMode(0, 2, sdk.NodeSwitchingOff, 35)
	ps.SetMode(0, 0, sdk.NodeOff, 0)
	ps.SetMode(0, 2, sdk.NodeSwitchingOff, 40)
	s := &sdk.State{Now: 10, Platform: p, Free: []sdk.Vector{{12}}, Nodes: []*sdk.Nodes{sdk.NewLayout(p, 0).NewNodes()}, Power: ps}

	le := binary.LittleEndian
	head := le.AppendUint64(nil, 10)          // now
	head = append(head, make([]byte, 5*4)...) // no job arrived, left, completed, refused; no node changed
	head = le.AppendUint64(head, 12)          // free cores
	f64 := func(b []byte, x float64) []byte { return le.AppendUint64(b, mathBits(x)) }
	first := f64(f64(f64(bytes.Clone(head), 300.5), 310), 1000)
	first = le.AppendUint32(first, 2)
	first = append(le.AppendUint32(le.AppendUint32(first, 0), 2), byte(sdk.NodeSwitchingOff))
	first = le.AppendUint64(first, 40)
	first = append(le.AppendUint32(le.AppendUint32(first, 0), 0), byte(sdk.NodeOff))
	first = le.AppendUint64(first, 0)

	cases := []struct {
		name  string
		power bool
		want  []byte
	}{
		{"with a power model", true, first},
		{"without", false, head},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewEncoder(p, tc.power, false).State(s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("State\n%x\nwant\n%x", got, tc.want)
			}
		})
	}

	enc := NewEncoder(p, true, false)
	if _, err := enc.State(s); err != nil {
		t.Fatal(err)
	}
	ps.ClearChanged()
	s.Now, ps.Draw = 20, 200
	got, err := enc.State(s)
	if err != nil {
		t.Fatal(err)
	}
	next := le.AppendUint64(nil, 20)
	next = append(next, head[8:]...)
	next = le.AppendUint32(f64(f64(f64(next, 200), 310), 1000), 0)
	if !bytes.Equal(got, next) {
		t.Fatalf("the next State\n%x\nwant\n%x", got, next)
	}
	if _, err := NewEncoder(p, true, false).State(&sdk.State{Now: 1, Platform: p, Free: s.Free, Nodes: s.Nodes}); err == nil {
		t.Fatal("a run with a power model whose state shows none: no error")
	}
}

// TestPowerDecisions decodes switches of power, which carry their nodes
// where a start carries its units and name no job.
func TestPowerDecisions(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	for _, want := range []sdk.Decision{sdk.PowerOn(0, []int32{1, 2}), sdk.PowerOff(0, []int32{0}), sdk.DrainNodes(0, []int32{2})} {
		ds, err := NewEncoder(p, true, false).Decisions(encodeDecisions([]sdk.Decision{want}))
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 1 || ds[0].Action != want.Action || ds[0].Job != nil || ds[0].Units != nil || !slices.Equal(ds[0].Nodes, want.Nodes) {
			t.Fatalf("decoded %+v, want %+v", ds, want)
		}
	}
}

// TestPowerInit: the Init of a run with a power model carries it, and
// that of a run without one has no power at all.
func TestPowerInit(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 5, Idle: 50, Full: 150, OnSeconds: 10, OnJoules: 900}}},
		Caps: []sdk.CapStep{{From: 100, Watts: 600}}}
	for _, m := range []*sdk.Power{model, nil} {
		var sent bytes.Buffer
		ready, _ := WriteFrame(new(bytes.Buffer), nil, MsgReady, nil)
		r := &Remote{Conn: struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(ready), &sent}}
		if err := r.Init(sdk.Env{Platform: p, Power: m}); err != nil {
			t.Fatal(err)
		}
		typ, payload, _, err := ReadFrame(&sent, nil)
		if err != nil || typ != MsgInit {
			t.Fatalf("frame %q: %v", typ, err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(payload, &doc); err != nil {
			t.Fatal(err)
		}
		raw, has := doc["power"]
		if m == nil {
			if has {
				t.Fatalf("a run without a power model sends power %s", raw)
			}
			continue
		}
		var got sdk.Power
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&got, m) {
			t.Fatalf("power %+v, want %+v", got, *m)
		}
	}
}

// switcher decides the same switches at its first call, whatever it sees.
type switcher struct{ ds []sdk.Decision }

func (s *switcher) Init(sdk.Env) error { return nil }

func (s *switcher) Schedule(st *sdk.State) ([]sdk.Decision, error) {
	ds := s.ds
	s.ds = nil
	for _, j := range st.Queue {
		ds = append(ds, sdk.Start(j))
	}
	return ds, nil
}

// TestPowerNonsense: switches the engine refuses, sent through the call
// protocol, fail the run with the engine's reason, as they do called
// directly.
func TestPowerNonsense(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 5, Idle: 50, Full: 150}}}}
	tasks := sdk.Tasks{Count: 1, Cores: 1}
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 10, Request: sdk.Vector{1}, Tasks: &tasks}, Runtime: 5}}
	cases := []struct {
		name string
		ds   []sdk.Decision
		want string
	}{
		{"on a node on", []sdk.Decision{sdk.PowerOn(0, []int32{1})}, "power on node 1 of cluster \"m\": it is on, not off"},
		{"a bad node", []sdk.Decision{sdk.PowerOff(0, []int32{7})}, "power off node 7 of cluster \"m\", which has 3"},
		{"a bad cluster", []sdk.Decision{sdk.PowerOff(2, []int32{0})}, "power off on cluster 2: not a cluster of nodes"},
		{"off twice", []sdk.Decision{sdk.PowerOff(0, []int32{0}), sdk.PowerOff(0, []int32{0})}, "power off node 0 of cluster \"m\": it is "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pl := sdk.Plugin{Info: sdk.Info{Name: "switcher"}, New: func() sdk.Policy { return &switcher{ds: tc.ds} }}
			cfg := sim.Config{Platform: p, Jobs: jobs, Power: model}
			_, direct := sim.Run(context.Background(), pl, cfg)
			_, err := sim.Run(context.Background(), remote(t, pl), cfg)
			if direct == nil || err == nil || !strings.Contains(err.Error(), tc.want) || err.Error() != direct.Error() {
				t.Fatalf("through the protocol: %v\ncalled directly: %v\nwant %q", err, direct, tc.want)
			}
		})
	}
}

func mathBits(x float64) uint64 { return math.Float64bits(x) }

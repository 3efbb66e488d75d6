package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/verify"
)

// policySide is a policy side of the call protocol, for the host's tests:
// it answers Init with a Ready of payload ready and keeps the Init
// (init), the n-th State with answers[n] (a Decisions payload; none past
// them), and a request for notes with a frame of type notesType and
// payload notes, noting that it was asked (asked).
type policySide struct {
	ready     []byte
	answers   [][]byte
	notesType byte
	notes     []byte
	init      []byte
	asked     bool
}

// serve answers on conn until the test ends.
func (ps *policySide) serve(t *testing.T, conn net.Conn) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		n := 0
		for {
			typ, p, err := host.ReadCallsMessage(conn)
			if err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
					err = nil
				}
				done <- err
				return
			}
			switch typ {
			case 'I':
				ps.init = append([]byte(nil), p...)
				err = host.WriteCallsMessage(conn, 'R', ps.ready)
			case 'S':
				answer := []byte{0, 0, 0, 0}
				if n < len(ps.answers) {
					answer = ps.answers[n]
				}
				n++
				err = host.WriteCallsMessage(conn, 'D', answer)
			case 'N':
				ps.asked = true
				err = host.WriteCallsMessage(conn, ps.notesType, ps.notes)
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("policy side: %v", err)
		}
	})
}

// switchPayload is the Decisions payload, laid out by hand, of a switch
// of action a on nodes of cluster 0 ({action, job -1, cluster 0, time 0,
// cost 0, the nodes where a start's units go, no allocation}), then a
// start of job index 0 where the engine places it.
func switchPayload(a sdk.Action, nodes ...int32) []byte {
	b := []byte{2, 0, 0, 0, byte(a), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}
	b = append(b, make([]byte, 16)...)
	b = append(b, byte(len(nodes)), 0, 0, 0)
	for _, k := range nodes {
		b = append(b, byte(k), 0, 0, 0)
	}
	b = append(b, 0, 0, 0, 0)
	b = append(b, byte(sdk.ActionStart), 0, 0, 0, 0, 0, 0, 0, 0)
	return append(b, make([]byte, 16+4+4)...)
}

// TestCallsPower runs policies of the call protocol on a run with a power
// model, as a Python policy is run: the Init carries the model, a switch
// off of an idle node is applied and verified (its power events are in
// the result), and switches the engine refuses fail the run with its
// reason.
func TestCallsPower(t *testing.T) {
	plat, jobs, _ := outageWorkload()
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 9.5, Idle: 95.25, Full: 240, OffSeconds: 30, OffJoules: 1500}}}}
	cases := []struct {
		name    string
		answers [][]byte
		want    string // the run's error; "": none
	}{
		{"switch off", [][]byte{switchPayload(sdk.ActionPowerOff, 5)}, ""},
		{"on a node on", [][]byte{switchPayload(sdk.ActionPowerOn, 5)}, `power on node 5 of cluster "nodes": it is on, not off`},
		{"a bad node", [][]byte{switchPayload(sdk.ActionPowerOff, 9)}, `power off node 9 of cluster "nodes", which has 6`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hostEnd, side := net.Pipe()
			ps := &policySide{answers: tc.answers}
			ps.serve(t, side)
			p := host.CallsPolicy(sdk.Info{Name: "switcher"}, hostEnd)
			res, err := p.Run(context.Background(), host.RunSpec{Platform: plat, Seed: 1, Power: model}, jobs[:1], nil)
			var doc struct {
				Power *sdk.Power `json:"power"`
			}
			if jerr := json.Unmarshal(ps.init, &doc); jerr != nil || !reflect.DeepEqual(doc.Power, model) {
				t.Fatalf("the Init carried power %+v (%v), want %+v", doc.Power, jerr, model)
			}
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%v, want an error with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := verify.Power(plat, model, nil, jobs[:1], res); err != nil {
				t.Fatal(err)
			}
			ev := res.Power.Events
			if len(ev) != 2 || ev[0].Node != 5 || ev[0].Mode != sdk.NodeSwitchingOff || ev[1].Mode != sdk.NodeOff || ev[1].At != ev[0].At+30 {
				t.Fatalf("power events %+v, want node 5 switching off, then off 30 s later", ev)
			}
		})
	}
}

// TestCallsOutages: a run with outages of nodes goes to a policy of the
// call protocol (it was refused before Python policies saw outages), its
// Init says so, and a run without says nothing of outages.
func TestCallsOutages(t *testing.T) {
	plat, jobs, outs := outageWorkload()
	start := []byte{1, 0, 0, 0, byte(sdk.ActionStart), 0, 0, 0, 0, 0, 0, 0, 0}
	start = append(start, make([]byte, 16+4+4)...)
	for _, o := range [][]sdk.Outage{outs, nil} {
		hostEnd, side := net.Pipe()
		ps := &policySide{answers: [][]byte{start}}
		ps.serve(t, side)
		res, err := host.CallsPolicy(sdk.Info{Name: "starter"}, hostEnd).Run(context.Background(),
			host.RunSpec{Platform: plat, Seed: 1, Outages: o}, jobs[:1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := verify.Result(plat, jobs[:1], res); err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(ps.init, &doc); err != nil {
			t.Fatal(err)
		}
		if got, has := doc["outages"]; (o != nil) != has || has && string(got) != "true" {
			t.Fatalf("with %d outages, the Init's outages: %s", len(o), got)
		}
	}
}

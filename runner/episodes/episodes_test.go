package episodes

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk/host"
)

// ask sends a request and returns the Finished frame that answers it
// (requests that run a reference policy, or cannot run, get no calls).
func ask(t *testing.T, c net.Conn, req Request) Finished {
	t.Helper()
	b, _ := json.Marshal(req)
	if err := host.WriteCallsMessage(c, MsgRequest, b); err != nil {
		t.Fatal(err)
	}
	typ, p, err := host.ReadCallsMessage(c)
	if err != nil {
		t.Fatal(err)
	}
	if typ != MsgFinished {
		t.Fatalf("a frame of type %q, want Finished", typ)
	}
	var fin Finished
	if err := json.Unmarshal(p, &fin); err != nil {
		t.Fatal(err)
	}
	return fin
}

func TestServe(t *testing.T) {
	env, srv := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), srv) }()

	fin := ask(t, env, Request{First: -1, Count: 1})
	if fin.Jobs != 28467 || !strings.Contains(fin.Error, "the trace has 28467 jobs") {
		t.Errorf("a window outside the trace: %+v", fin)
	}
	fin = ask(t, env, Request{Trace: "/nonexistent.swf", Count: 1})
	if !strings.Contains(fin.Error, "/nonexistent.swf") {
		t.Errorf("no such trace: %+v", fin)
	}
	fin = ask(t, env, Request{Count: 10, Policy: "nosuch"})
	if !strings.Contains(fin.Error, `no reference policy "nosuch"`) {
		t.Errorf("no such policy: %+v", fin)
	}
	// The first 100 jobs under FCFS: FCFS starts them in submit order.
	fin = ask(t, env, Request{First: 500, Count: 100, Policy: "fcfs"})
	if fin.Error != "" || fin.Summary == nil || fin.Summary.Jobs != 100 || len(fin.Starts) != 100 {
		t.Fatalf("FCFS on jobs 500 to 599: %+v", fin)
	}
	for i := 1; i < 100; i++ {
		if fin.Starts[i] < fin.Starts[i-1] {
			t.Fatalf("FCFS started job %d at %d, before job %d at %d", i, fin.Starts[i], i-1, fin.Starts[i-1])
		}
	}
	// A frame that is not a request ends the service with an error.
	if err := host.WriteCallsMessage(env, 'Z', nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "where a request was due") {
		t.Errorf("Serve after a bad frame: %v", err)
	}
	env.Close()

	// The environment closing ends the service without an error.
	env, srv = net.Pipe()
	go func() { done <- Serve(context.Background(), srv) }()
	env.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve after the environment closed: %v", err)
	}
}

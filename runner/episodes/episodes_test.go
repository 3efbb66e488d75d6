package episodes

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
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
	// Cleaning settings: clamping the 8 jobs without a runtime to 1 s,
	// which the default drops, keeps 28,475 of the log's 28,476 jobs.
	fin = ask(t, env, Request{First: -1, Count: 1, Clean: map[string]string{"nonpositive-runtime": "clamp"}})
	if fin.Jobs != 28475 {
		t.Errorf("with nonpositive-runtime=keep: %+v", fin)
	}
	fin = ask(t, env, Request{First: -1, Count: 1, Clean: map[string]string{"nosuch": "x"}})
	if !strings.Contains(fin.Error, "clean: ") || !strings.Contains(fin.Error, "nosuch") {
		t.Errorf("a bad cleaning setting: %+v", fin)
	}
	fin = ask(t, env, Request{Count: 10, Policy: "nosuch"})
	if !strings.Contains(fin.Error, `policy "nosuch" is neither a reference policy`) {
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
	// A scenario inline, by hand under FCFS on 10 processors: job 2 waits
	// for job 1's end, job 3 starts with it, job 4 at job 3's end, job 5
	// (all 10) once job 4 ends, and is killed at its walltime.
	fin = ask(t, env, Request{Procs: 10, Policy: "fcfs", Jobs: []Job{
		{ID: 1, Submit: 0, Runtime: 10, Walltime: 20, Procs: 6},
		{ID: 2, Submit: 1, Runtime: 5, Walltime: 10, Procs: 6},
		{ID: 3, Submit: 2, Runtime: 3, Walltime: 5, Procs: 2},
		{ID: 4, Submit: 2, Runtime: 4, Walltime: 4, Procs: 4},
		{ID: 5, Submit: 3, Runtime: 40, Walltime: 30, Procs: 10},
	}})
	if fmt.Sprint(fin.IDs, fin.Starts, fin.Ends, fin.Killed) != "[1 2 3 4 5] [0 10 10 13 17] [10 15 13 17 47] [false false false false true]" {
		t.Errorf("the FCFS scenario: %+v", fin)
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

// TestServeNodes runs windows of KTH-SP2 on platforms of nodes: as 100
// exclusive nodes of one core EASY schedules it as on the pool of 100
// processors (each job's processors are whole nodes), and on 25 shared
// nodes of 4 cores the mapping's counts come back with the run.
func TestServeNodes(t *testing.T) {
	env, srv := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), srv) }()
	defer func() {
		env.Close()
		<-done
	}()
	pool := ask(t, env, Request{First: 1000, Count: 300, Policy: "easy"})
	one := ask(t, env, Request{First: 1000, Count: 300, Policy: "easy", Nodes: &manifest.NodeSpec{Nodes: 100, CoresPerNode: 1}})
	if pool.Error != "" || one.Error != "" {
		t.Fatalf("pool: %s; nodes: %s", pool.Error, one.Error)
	}
	if fmt.Sprint(pool.IDs, pool.Starts) != fmt.Sprint(one.IDs, one.Starts) || one.Nodes["exclusive"] != int64(one.Jobs) || one.Mapping["allocation"] != "exclusive" {
		t.Errorf("EASY on 100 nodes of 1 core differs from the pool: %v jobs, counts %v, mapping %v", one.Jobs, one.Nodes, one.Mapping)
	}
	shared := ask(t, env, Request{First: 1000, Count: 300, Policy: "easy", Nodes: &manifest.NodeSpec{Nodes: 25, CoresPerNode: 4, Allocation: "shared"}})
	if shared.Error != "" || shared.Nodes["shared"] != int64(shared.Jobs) || len(shared.Starts) != 300 {
		t.Errorf("shared nodes: %+v", shared)
	}
	bad := ask(t, env, Request{Count: 10, Policy: "easy", Nodes: &manifest.NodeSpec{Nodes: 25}})
	if !strings.Contains(bad.Error, "nodes.nodes 25 nodes.cores_per_node 0: a platform of nodes needs both") {
		t.Errorf("nodes without cores: %q", bad.Error)
	}
	// A misspelled node setting is named, not left at its default.
	if err := host.WriteCallsMessage(env, MsgRequest, []byte(`{"count": 10, "policy": "easy", "nodes": {"nodes": 25, "cores_per_nod": 4}}`)); err != nil {
		t.Fatal(err)
	}
	if typ, p, err := host.ReadCallsMessage(env); err != nil || typ != MsgFinished || !strings.Contains(string(p), `unknown field \"cores_per_nod\"`) {
		t.Errorf("a misspelled node setting: %q %s %v", typ, p, err)
	}
	bad = ask(t, env, Request{Procs: 4, Policy: "easy", Jobs: []Job{{ID: 1, Runtime: 1, Walltime: 1, Procs: 1}}, Nodes: &manifest.NodeSpec{Nodes: 1, CoresPerNode: 4}})
	if !strings.Contains(bad.Error, "not on nodes") {
		t.Errorf("a scenario on nodes: %q", bad.Error)
	}
}

// TestServeScenarioOnNodes runs a scenario on a platform of its own, two
// nodes of 4 cores, by hand: job 1 holds 3 cores on each node, so job 2
// (one task of 2 cores) fits the 2 free cores but no node, and starts at
// job 1's end; under FCFS job 3 (one core) waits behind it, under EASY it
// is backfilled at once (it ends by the shadow time, 10).
func TestServeScenarioOnNodes(t *testing.T) {
	env, srv := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), srv) }()
	defer func() {
		env.Close()
		<-done
	}()
	plat := sdk.NodesPlatform("two", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	jobs := []Job{
		{ID: 1, Runtime: 10, Walltime: 10, Tasks: &Tasks{Count: 2, Cores: 3, Nodes: 2}},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Tasks: &Tasks{Count: 1, Cores: 2}},
		{ID: 3, Submit: 2, Runtime: 5, Walltime: 5, Tasks: &Tasks{Count: 1, Cores: 1}},
	}
	for policy, want := range map[string]string{"fcfs": "[0 10 10]", "easy": "[0 10 2]"} {
		fin := ask(t, env, Request{Policy: policy, Jobs: jobs, Platform: plat})
		if fin.Error != "" || fmt.Sprint(fin.Starts) != want {
			t.Errorf("%s: starts %v, want %s (%s)", policy, fin.Starts, want, fin.Error)
		}
	}
	for _, c := range []struct {
		name string
		req  Request
		want string
	}{
		{"no tasks", Request{Policy: "fcfs", Platform: plat, Jobs: []Job{{ID: 7, Runtime: 1, Walltime: 1, Procs: 1}}}, "job 7: a job on nodes needs tasks"},
		{"too large", Request{Policy: "fcfs", Platform: plat, Jobs: []Job{{ID: 8, Runtime: 1, Walltime: 1, Tasks: &Tasks{Count: 1, Cores: 5}}}}, "job 8: invalid tasks"},
		{"tasks on a pool", Request{Policy: "fcfs", Procs: 4, Jobs: []Job{{ID: 9, Runtime: 1, Walltime: 1, Tasks: &Tasks{Count: 1, Cores: 1}}}}, "job 9: tasks are for a platform of nodes"},
		{"bad platform", Request{Policy: "fcfs", Platform: sdk.NodesPlatform("bad", []sdk.NodeGroup{{Name: "n", Count: 0, Cores: 4}}, nil, ""), Jobs: jobs}, "0 nodes; want 1 to"},
		{"platform of a trace", Request{Policy: "fcfs", Count: 10, Platform: plat}, "platform is a scenario's"},
	} {
		if fin := ask(t, env, c.req); !strings.Contains(fin.Error, c.want) {
			t.Errorf("%s: %q, want %q", c.name, fin.Error, c.want)
		}
	}
}

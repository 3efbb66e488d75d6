// Package host is the host side of the plugin protocol: it runs simulations
// under a policy, either linked into this process or inside a plugin
// process started with go-plugin, whose protocol it negotiates (this SDK's
// and the previous one). Both return the policy's raw records; callers
// verify them (package verify) before use. Policy authors do not need this
// package: schedlab's runner uses it, and package serve is its other side.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/calls"
	"github.com/schedlab/schedlab/sdk/internal/runmark"
	"github.com/schedlab/schedlab/sdk/internal/stream"
	"github.com/schedlab/schedlab/sdk/internal/wire"
	"github.com/schedlab/schedlab/sdk/sim"
)

// RunSpec is everything about a run except its jobs.
type RunSpec struct {
	// Platform is the simulated machine.
	Platform *sdk.Platform
	// Params are the policy's parameter values, checked against its Info.
	Params map[string]string
	// Seed seeds the policy's random stream.
	Seed uint64
	// ExactEstimates shows the policy each job's actual duration in place
	// of its requested walltime.
	ExactEstimates bool
	// Log, when set, receives what a plugin process writes to its standard
	// output and error during the run (a policy in this process writes to
	// this process's).
	Log io.Writer
	// Outages are the run's outages of nodes, sorted by sdk.CompareOutages,
	// and Faults the rules for the jobs they reach (sim.Config).
	Outages []sdk.Outage
	Faults  sim.Faults
	// Power is the run's power model of the nodes (sim.Config.Power);
	// nil for none.
	Power *sdk.Power
	// IO is the run's model of jobs that move data (sim.Config.IO); nil
	// for none.
	IO *sdk.IO
	// StallTimeout, when positive, ends a run in a plugin process whose
	// engine makes no progress (no new event) for that long, by its
	// heartbeat (protocol 4; a plugin of protocol 3 sends none). A run in
	// this process cannot be stopped inside a policy call.
	StallTimeout time.Duration
}

func (s RunSpec) wire() wire.RunSpec {
	return wire.RunSpec{Platform: s.Platform, Params: s.Params, Seed: s.Seed, ExactEstimates: s.ExactEstimates, Outages: s.Outages, Faults: s.Faults, Power: s.Power, IO: s.IO}
}

// DefaultStartTimeout bounds the start of a plugin process, handshake and
// description included, when Start's context has no earlier deadline.
const DefaultStartTimeout = 30 * time.Second

// Policy runs simulations under one policy.
type Policy interface {
	// Info describes the policy, with the SDK and protocol it was built with.
	Info() sdk.Info
	// Run simulates jobs (sorted with sim.Sort) as spec says. When sink is
	// not nil, it is given the result's records in consecutive pieces, in
	// order, on one goroutine, while the simulation runs on (as the engine
	// finalises them), all before Run returns.
	Run(ctx context.Context, spec RunSpec, jobs []sim.Input, sink func([]sim.Record)) (*sim.Result, error)
	// Close releases the policy's process, if any.
	Close() error
}

// InProcess returns a Policy that runs p in this process, with no RPC.
func InProcess(p sdk.Plugin) Policy { return local{p} }

type local struct{ p sdk.Plugin }

func (l local) Info() sdk.Info { return wire.Describe(l.p) }

func (l local) Close() error { return nil }

func (l local) Run(ctx context.Context, spec RunSpec, jobs []sim.Input, sink func([]sim.Record)) (*sim.Result, error) {
	cfg := sim.Config{
		Platform: spec.Platform, Jobs: jobs, Params: spec.Params,
		Seed: spec.Seed, ExactEstimates: spec.ExactEstimates,
		Outages: spec.Outages, Faults: spec.Faults, Power: spec.Power, IO: spec.IO,
	}
	if sink == nil {
		return sim.Run(ctx, l.p, cfg)
	}
	// As a plugin's host does, hand the records to sink on another
	// goroutine while the engine runs on, in pieces of wire.StreamRecords
	// or more: the two paths differ only by the process and the transport.
	// The channel holds every piece the run can have, so that the engine
	// never waits for that goroutine.
	pieces := make(chan []sim.Record, len(jobs)/wire.StreamRecords+2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p := range pieces {
			sink(p)
		}
	}()
	ctx = stream.With(ctx, &stream.Hooks[sim.Input, sim.Record]{
		EmitAtLeast: wire.StreamRecords,
		Emit: func(recs []sim.Record) error {
			pieces <- recs
			return nil
		},
	})
	res, err := sim.Run(ctx, l.p, cfg)
	close(pieces)
	<-done
	return res, err
}

// Plugin is a policy served by a plugin process.
type Plugin struct {
	client *plugin.Client
	cmd    *exec.Cmd
	rpc    *wire.Client
	info   sdk.Info
	out    *output
	name   string
	// conn is the socket of a policy served over the call protocol, whose
	// runs the engine of this process simulates; nil for a Go plugin.
	conn *callsEnd
}

// StderrLimit is how much of a plugin's output is kept for error messages:
// the last bytes, where a panic's message and stack are.
const StderrLimit = 16 << 10

// Start launches the plugin command cmd and asks it to describe itself,
// within ctx's deadline, or DefaultStartTimeout without one. The process is
// killed if this process dies, and must be ended with Close.
func Start(ctx context.Context, cmd *exec.Cmd) (*Plugin, error) {
	limit := DefaultStartTimeout
	if d, ok := ctx.Deadline(); ok {
		limit = max(time.Until(d), time.Millisecond)
	}
	name := cmd.Path
	if len(cmd.Args) > 0 {
		name = strings.Join(cmd.Args, " ")
	}
	dieWithParent(cmd)
	// The plugin's environment: this process's, then cmd's own, then what
	// the host adds below, which must win over the first (a host that is
	// itself served over a socket has CallsFDEnv set); go-plugin would add
	// this process's last.
	cmd.Env = append(os.Environ(), cmd.Env...)
	// Ask the plugin to mark each run's output (runmark): what a run
	// writes last may reach this process after the run, and must not
	// reach the next run's log and error.
	cmd.Env = append(cmd.Env, runmark.Env+"=1")
	out := newOutput()
	// A policy served over the call protocol (a Python policy) answers
	// the engine's calls on a socket of its own, its file descriptor 3;
	// a Go plugin leaves it alone. The host offers that protocol where it
	// has the socket (Unix).
	hostEnd, err := callsSocket(cmd)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	versions := wire.HostPlugins()
	if hostEnd != nil {
		versions[calls.Version] = plugin.PluginSet{wire.PluginName: &wire.GRPCPlugin{Version: calls.Version}}
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake(),
		SkipHostEnv:      true,
		VersionedPlugins: versions,
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		// The process's own standard error (the runtime's panics and fatal
		// errors), and, once it serves, what the policy writes to
		// os.Stdout and os.Stderr, which go-plugin forwards.
		Stderr:       out,
		SyncStdout:   out.forwardedWriter(0),
		SyncStderr:   out.forwardedWriter(1),
		Logger:       hclog.NewNullLogger(),
		StartTimeout: limit,
	})
	p := &Plugin{client: client, cmd: cmd, out: out, name: name}
	fail := func(err error) (*Plugin, error) {
		if hostEnd != nil {
			_ = hostEnd.Close()
		}
		if strings.Contains(err.Error(), "dial ") {
			// A line on standard output that reads as a handshake, from a
			// program that is not a schedlab plugin or one that printed
			// before serving, names an address nobody serves.
			err = fmt.Errorf("%w (the first line the program printed was taken as its handshake: a plugin must print nothing to standard output before it serves)", err)
		}
		ended := client.Exited() // on its own, before the kill
		client.Kill()
		return nil, p.wrap(err, nil, ended)
	}
	rpcClient, err := client.Client()
	// The process, if it started, has its own copy of its end.
	closeChildEnd(cmd)
	if err != nil {
		return fail(fmt.Errorf("start: %w", err))
	}
	raw, err := rpcClient.Dispense(wire.PluginName)
	if err != nil {
		return fail(fmt.Errorf("dispense: %w", err))
	}
	var ok bool
	if p.rpc, ok = raw.(*wire.Client); !ok {
		return fail(fmt.Errorf("plugin served %T, not a policy", raw))
	}
	if p.info, err = p.rpc.Describe(ctx); err != nil {
		return fail(fmt.Errorf("describe: %w", err))
	}
	if v := p.rpc.Version(); p.info.ProtocolVersion != v {
		return fail(fmt.Errorf("plugin negotiated protocol %d but describes itself as speaking %d", v, p.info.ProtocolVersion))
	}
	// The process has its end of the socket; this one is the host's.
	if p.rpc.Version() == calls.Version {
		p.conn = hostEnd
	} else if hostEnd != nil {
		_ = hostEnd.Close()
	}
	if p.info.Name != "" {
		// Errors of runs name the policy, not a command line that may be
		// the long path of a cached build.
		p.name = p.info.Name
	}
	return p, nil
}

// Info describes the plugin's policy.
func (p *Plugin) Info() sdk.Info { return p.info }

// Run sends a run to the plugin. When ctx ends first (a hang), the plugin
// process is killed. What the process writes meanwhile goes to spec.Log;
// errors carry its last lines, and how the process ended when it did.
func (p *Plugin) Run(ctx context.Context, spec RunSpec, jobs []sim.Input, sink func([]sim.Record)) (*sim.Result, error) {
	if p.conn != nil {
		if err := callsTakeJobs(jobs); err != nil {
			return nil, err
		}
		return p.runCalls(ctx, spec, jobs, sink)
	}
	run, k := p.out.lend(spec.Log)
	defer p.out.unlend()
	w := spec.wire()
	if spec.StallTimeout > 0 && p.rpc.Version() >= 4 {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		watch := newStallWatch(spec.StallTimeout, cancel)
		defer watch.stop()
		w.Progress = watch.beat
	}
	res, err := p.rpc.Run(ctx, w, jobs, sink)
	if err != nil {
		if c := status.Code(err); ctx.Err() != nil || c == codes.DeadlineExceeded || c == codes.Canceled {
			// gRPC may notice the deadline a moment before the context's
			// own timer fires; wait for it so the cause is the context's.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			p.client.Kill()
			cause := err
			if ctx.Err() != nil {
				cause = context.Cause(ctx)
			}
			return nil, p.wrap(fmt.Errorf("run: %w", cause), run, false)
		}
		if st, ok := status.FromError(err); ok && (st.Code() == codes.Aborted || st.Code() == codes.InvalidArgument) {
			// The plugin's engine refused the run or the policy failed:
			// its message says why, and the run's last lines, which may
			// still be on their way, complete it.
			p.out.settle(k, failedRunSettle, p.client.Exited)
			return nil, p.wrap(errors.New(st.Message()), run, true)
		}
		// Anything else is a broken transport: give a dying process a
		// moment to exit so that its stderr is complete and the error
		// says what happened.
		for deadline := time.Now().Add(time.Second); !p.client.Exited() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		what := "plugin connection failed during the run"
		if p.client.Exited() {
			what = "plugin process died during the run"
		}
		p.client.Kill()
		return nil, p.wrap(fmt.Errorf("%s: %w", what, err), run, true)
	}
	// The run's log is whole once the run's last output has come.
	p.out.settle(k, runSettle, p.client.Exited)
	return res, nil
}

// How long a run's end waits for the last of its output (output.settle):
// a mark written when the run ended, normally there in a millisecond, later
// only behind megabytes the run wrote last.
const (
	runSettle       = 5 * time.Second
	failedRunSettle = time.Second
)

// Close ends the plugin process.
func (p *Plugin) Close() error {
	p.client.Kill()
	if p.conn != nil {
		p.conn.Close()
	}
	return nil
}

// wrap names the plugin in err and adds what the process said: how it
// ended, when it ended on its own (ended says so), and the first fatal line
// and last lines it printed during the run, or, outside a run (run nil: a
// start that failed), since it started. A run's error holds that run's
// output only: a process serves many runs.
func (p *Plugin) wrap(err error, run *sink, ended bool) error {
	msg := fmt.Sprintf("plugin %s: %v", p.name, err)
	if ended && p.client.Exited() && p.cmd.ProcessState != nil {
		msg += " (process " + p.cmd.ProcessState.String() + ")"
	}
	said := run
	if said == nil {
		said = &p.out.proc
	}
	if f := p.out.fatalLine(said); f != "" && !strings.Contains(msg, f) {
		msg += "\nplugin said: " + f
	}
	if last := strings.TrimSpace(p.out.text(said)); last != "" {
		msg += "\nplugin output (last lines):\n" + last
	}
	return errors.New(msg)
}

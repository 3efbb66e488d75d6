package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
)

// DefaultProcessRuns is how many runs a plugin process serves before it is
// replaced, when Processes.MaxRuns is zero: enough to spread the start of a
// process (some 8 ms) over many runs, few enough that a policy whose memory
// grows from run to run is restarted now and then.
const DefaultProcessRuns = 200

// Processes keeps plugin processes for reuse across runs: a campaign
// starts a plugin once per worker rather than once per run. A process
// serves one run at a time, each with a fresh policy from the plugin's New,
// so that the records are those of a fresh process (policytest's
// NoStateBetweenRuns and rerun's comparison check that a policy keeps no
// state between runs). A process whose run failed (an error, a crash, a
// timeout) is ended, never reused; so is one that served MaxRuns runs.
// The zero value is ready; Close ends the idle processes.
type Processes struct {
	// MaxRuns bounds the runs of one process; 0 means DefaultProcessRuns.
	MaxRuns int

	mu     sync.Mutex
	idle   map[string][]*process
	closed bool
}

// process is a plugin process and the number of runs it has served.
type process struct {
	*host.Plugin
	key  string
	runs int
}

// get returns an idle process of the command, or starts one.
func (ps *Processes) get(ctx context.Context, command []string) (*process, error) {
	key := strings.Join(command, "\x00")
	ps.mu.Lock()
	if list := ps.idle[key]; len(list) > 0 {
		p := list[len(list)-1]
		ps.idle[key] = list[:len(list)-1]
		ps.mu.Unlock()
		return p, nil
	}
	ps.mu.Unlock()
	p, err := startPlugin(ctx, command)
	if err != nil {
		return nil, err
	}
	return &process{Plugin: p, key: key}, nil
}

// put takes back a process: for reuse when its last run succeeded (or it
// served none), otherwise it ends the process. The caller counts the runs.
func (ps *Processes) put(p *process, ok bool) {
	max := ps.MaxRuns
	if max <= 0 {
		max = DefaultProcessRuns
	}
	ps.mu.Lock()
	if ok && !ps.closed && p.runs < max {
		if ps.idle == nil {
			ps.idle = map[string][]*process{}
		}
		ps.idle[p.key] = append(ps.idle[p.key], p)
		ps.mu.Unlock()
		return
	}
	ps.mu.Unlock()
	p.Close()
}

// Close ends every idle process; processes still in a run end when they
// are put back.
func (ps *Processes) Close() {
	ps.mu.Lock()
	idle := ps.idle
	ps.idle, ps.closed = nil, true
	ps.mu.Unlock()
	var wg sync.WaitGroup
	for _, list := range idle {
		for _, p := range list {
			wg.Go(func() { p.Close() })
		}
	}
	wg.Wait()
}

// Describe asks the policy res resolves to what it is: linked in when
// inProcess and it is a reference policy, otherwise from a plugin process,
// which procs keeps for the runs (nil: a process started for the question
// and ended).
func Describe(ctx context.Context, res *Resolved, inProcess bool, procs *Processes) (sdk.Info, error) {
	if inProcess && res.Kind == KindReference {
		if ref, ok := reference.Lookup(res.Ref); ok {
			return host.InProcess(ref).Info(), nil
		}
	}
	if len(res.Command) == 0 {
		return sdk.Info{}, fmt.Errorf("policy %s: no plugin command (run it in-process)", res.Ref)
	}
	if procs == nil {
		p, err := startPlugin(ctx, res.Command)
		if err != nil {
			return sdk.Info{}, err
		}
		defer p.Close()
		return p.Info(), nil
	}
	p, err := procs.get(ctx, res.Command)
	if err != nil {
		return sdk.Info{}, err
	}
	procs.put(p, true) // a description is not a run
	return p.Info(), nil
}

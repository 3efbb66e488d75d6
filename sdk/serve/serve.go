// Package serve turns a policy into a schedlab plugin binary:
//
//	func main() { serve.Main(mypolicy.Plugin()) }
//
// Run with the single argument "describe", the binary prints its description as
// JSON and exits. Started by a schedlab host, it serves the policy over
// go-plugin's gRPC transport; the simulation engine runs inside this process.
// The binary writes nothing to standard output before the handshake, and
// anything the policy writes to standard error reaches the host, which shows
// it when a run fails.
package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/runmark"
	"github.com/schedlab/schedlab/sdk/internal/wire"
)

// Main serves p and does not return. Run with the single argument
// "describe", the binary prints p's description as JSON and exits; started
// by a schedlab host, it serves p (see Serve); run any other way, it says
// what it is and exits with status 2.
func Main(p sdk.Plugin) {
	os.Exit(run(p, os.Args[1:], os.Stdout, os.Stderr))
}

func run(p sdk.Plugin, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "describe" {
		b, err := wire.EncodeInfo(wire.Describe(p))
		var out bytes.Buffer
		if err == nil {
			err = json.Indent(&out, b, "", "  ")
		}
		if err == nil {
			out.WriteByte('\n')
			_, err = out.WriteTo(stdout)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	h := wire.Handshake()
	if len(args) > 0 || os.Getenv(h.MagicCookieKey) != h.MagicCookieValue {
		fmt.Fprintf(stderr, "%s is a schedlab policy plugin (%s %s).\n"+
			"Run it with the argument \"describe\" to see its parameters,\n"+
			"or name it in a schedlab manifest or `schedlab sim --policy PATH`.\n",
			os.Args[0], p.Info.Name, p.Info.Version)
		return 2
	}
	Serve(p)
	return 0
}

// Serve serves p over go-plugin until the host ends the process. Most
// plugins call Main instead; Serve is for binaries that choose when to
// become a plugin themselves (schedlab serves its reference policies so).
// The process serves one run at a time, each with a fresh policy from
// p.New, for as long as the host keeps it.
//
// When the environment variable SCHEDLAB_PLUGIN_PROFILE names a directory,
// the process profiles itself there (docs/performance.md).
func Serve(p sdk.Plugin) {
	// A simulation keeps most of what it allocates to its end: collect
	// less (pluginGC).
	pluginGC()
	if dir := os.Getenv(profileEnv); dir != "" {
		stop, err := startProfile(dir)
		if err != nil {
			// Standard error reaches the host, which shows it if the run
			// fails; a profile is not worth failing the run.
			fmt.Fprintf(os.Stderr, "schedlab plugin: %v\n", err)
		} else {
			defer stop()
		}
	}
	// Each run's output is marked (runmark) when the host asks: the
	// start when the run's policy is made, the end when the run ends.
	firstEnded := sync.OnceFunc(reuseGC)
	runEnded := firstEnded
	if runmark.Wanted() {
		inner := p.New
		p.New = func() sdk.Policy {
			runmark.Write(runmark.Start)
			return inner()
		}
		runEnded = func() {
			firstEnded()
			runmark.Write(runmark.End)
		}
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake(),
		Plugins: plugin.PluginSet{wire.PluginName: &wire.GRPCPlugin{Policy: p, Version: sdk.ProtocolVersion,
			RunEnded: runEnded}},
		GRPCServer: wire.NewServer,
		// go-plugin would otherwise write its own JSON log lines to standard
		// error, mixing them with what the policy writes there.
		Logger: hclog.NewNullLogger(),
	})
}

// profileEnv names the environment variable that makes a plugin process
// profile itself: its value is a directory, where the process writes the CPU
// profile of its whole life, from the start of ServePlugin to the end of
// serving, to plugin-PID.cpu.pprof, and its allocations (the "allocs"
// profile) at the end to plugin-PID.allocs.pprof. A host's environment
// reaches the plugins it starts, so
//
//	SCHEDLAB_PLUGIN_PROFILE=$PWD/out/prof go test -run '^$' -bench 'EASY/CEA-Curie/plugin' ./runner
//	go build -o out/easy ./plugins/easy
//	go tool pprof -top out/easy out/prof/*.cpu.pprof
//
// profiles the plugin side of those runs (docs/performance.md).
const profileEnv = "SCHEDLAB_PLUGIN_PROFILE"

// startProfile starts the CPU profile of this process, written in dir, and
// returns the function that ends it and writes the allocations profile.
func startProfile(dir string) (func(), error) {
	base := filepath.Join(dir, fmt.Sprintf("plugin-%d", os.Getpid()))
	f, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("profile %s: %w", f.Name(), err)
	}
	return func() {
		pprof.StopCPUProfile()
		err := f.Close()
		if err == nil {
			err = writeProfile("allocs", base+".allocs.pprof")
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "schedlab plugin: profile: %v\n", err)
		}
	}, nil
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// gcPercent is the garbage collector target of a plugin process once it
// collects.
const gcPercent = 400

// firstGCHeap is the heap size, in bytes, that the first collection of a
// plugin process waits for (pluginGC).
const firstGCHeap = 256 << 20

// pluginGC sets the garbage collector of a plugin process: no collection
// until the heap reaches firstGCHeap (a memory limit with GOGC off), then,
// from the first collection on, gcPercent and no limit. Most runs then never collect: a simulation keeps most of what
// it allocates (the engine's arrays for every job) to its end, and in a
// fresh process the collections cost more than their marking: the process
// also takes about a third more page faults with them (docs/performance.md).
// A run that allocates more collects as before. GOGC or GOMEMLIMIT in the
// environment leave the collector to them (and to lessGC).
func pluginGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		lessGC()
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstGCHeap)
	// The cleanup of an object nothing refers to runs after the first
	// collection.
	runtime.AddCleanup(new(gcSentinel), func(int) {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	}, 0)
}

// reuseGC sets the collector of a plugin process whose first run has ended
// as after its first collection (gcPercent, no limit): a process that
// serves more runs then recycles the memory of the runs before instead of
// touching fresh memory, a page fault per page, for each. The first run
// keeps pluginGC's setting, which spares a single run the collections.
func reuseGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(math.MaxInt64)
}

// gcSentinel is large enough not to share the tiny allocator's blocks,
// which would delay its cleanup.
type gcSentinel struct{ _ [32]byte }

// lessGC sets the garbage collector's target to gcPercent unless the GOGC
// environment variable is set, which then wins.
func lessGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

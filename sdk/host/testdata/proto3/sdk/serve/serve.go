// Package serve turns a policy into a schedlab plugin binary:
//
//	func main() { serve.Main(mypolicy.Plugin()) }
//
// Run with the single argument "describe", the binary prints its sdk.Info as
// JSON and exits. Started by a schedlab host, it serves the policy over
// go-plugin's gRPC transport; the simulation engine runs inside this process.
// The binary writes nothing to standard output before the handshake, and
// anything the policy writes to standard error reaches the host, which shows
// it when a run fails.
package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/wire"
)

// Main serves p and does not return.
func Main(p sdk.Plugin) {
	os.Exit(run(p, os.Args[1:], os.Stdout, os.Stderr))
}

func run(p sdk.Plugin, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "describe" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(wire.Describe(p)); err != nil {
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
	ServePlugin(p)
	return 0
}

// ServePlugin serves p over go-plugin until the host ends the process. Most
// plugins call Main instead; ServePlugin is for binaries that choose when to
// become a plugin themselves.
//
// It sets the garbage collector as PluginGC says: none until the heap
// reaches FirstGCHeap, then collections when the heap has grown to 5 times
// the live data (GOGC=400) instead of 2 times.
//
// When the environment variable named by ProfileEnv names a directory, the
// process profiles itself there.
func ServePlugin(p sdk.Plugin) {
	PluginGC()
	if dir := os.Getenv(ProfileEnv); dir != "" {
		stop, err := startProfile(dir)
		if err != nil {
			// Standard error reaches the host, which shows it if the run
			// fails; a profile is not worth failing the run.
			fmt.Fprintf(os.Stderr, "schedlab plugin: %v\n", err)
		} else {
			defer stop()
		}
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake(),
		Plugins:         plugin.PluginSet{wire.PluginName: &wire.GRPCPlugin{Policy: p}},
		GRPCServer:      wire.NewServer,
		// go-plugin would otherwise write its own JSON log lines to standard
		// error, mixing them with what the policy writes there.
		Logger: hclog.NewNullLogger(),
	})
}

// ProfileEnv names the environment variable that makes a plugin process
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
const ProfileEnv = "SCHEDLAB_PLUGIN_PROFILE"

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

// GCPercent is the garbage collector target that LessGC sets.
const GCPercent = 400

// FirstGCHeap is the heap size, in bytes, that the first collection of a
// plugin process waits for (PluginGC).
const FirstGCHeap = 256 << 20

// PluginGC sets the garbage collector of a plugin process, which serves one
// run and exits: no collection until the heap reaches FirstGCHeap (a memory
// limit with GOGC off), then, from the first collection on, LessGC's target
// and no limit. Most runs then never collect: a simulation keeps most of what
// it allocates (the engine's arrays for every job) to its end, and in a
// fresh process the collections cost more than their marking: the process
// also takes about a third more page faults with them (docs/performance.md).
// A run that allocates more collects as before. GOGC or GOMEMLIMIT in the
// environment leave the collector to them (and to LessGC).
func PluginGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		LessGC()
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(FirstGCHeap)
	// The cleanup of an object nothing refers to runs after the first
	// collection.
	runtime.AddCleanup(new(gcSentinel), func(int) {
		debug.SetGCPercent(GCPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	}, 0)
}

// gcSentinel is large enough not to share the tiny allocator's blocks,
// which would delay its cleanup.
type gcSentinel struct{ _ [32]byte }

// LessGC sets the garbage collector's target to GCPercent unless the GOGC
// environment variable is set, which then wins.
func LessGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}

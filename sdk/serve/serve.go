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
	"os"
	"path/filepath"
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
// Unless the GOGC environment variable says otherwise, it lets the heap grow
// to 5 times the live data between collections (GOGC=400) instead of 2
// times: a simulation allocates much and keeps little, and with one plugin
// process per concurrent run the collector's work competes with the other
// runs for the cores (docs/performance.md).
//
// When the environment variable named by ProfileEnv names a directory, the
// process profiles itself there.
func ServePlugin(p sdk.Plugin) {
	LessGC()
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

// LessGC sets the garbage collector's target to GCPercent unless the GOGC
// environment variable is set, which then wins.
func LessGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}

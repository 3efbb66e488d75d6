package manifest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/swf"
)

// Generator is a synthetic workload model that a manifest can name with
// `generator = "NAME"` in a [workloads.X] table. Adding a generator is one
// call to RegisterGenerator, from an init function of the package that
// implements it; the manifest then accepts its name and checks the
// parameters of [workloads.X.params] against Params.
type Generator struct {
	// Name is what manifests write.
	Name string
	// Doc is a one-line description.
	Doc string
	// Params declares the parameters, with types and defaults, exactly as a
	// policy declares its own (sdk.Param); values are checked with
	// sdk.ResolveParams when the manifest is parsed.
	Params []sdk.Param
	// Generate returns the workload's job records for a platform of procs
	// processors. rng is NewRand(seed) with the run's "workload" seed, so
	// every policy of a replicate sees the same jobs. The records are then
	// cleaned like a trace's (workload.FromRecords with the workload's
	// clean settings).
	Generate func(params sdk.Params, procs int64, rng *rand.Rand) ([]swf.Record, error)
}

var (
	genMu      sync.RWMutex
	generators = map[string]Generator{}
)

// RegisterGenerator makes g available to manifests. It panics on an empty
// or already registered name, or a missing Generate function: these are
// programming errors found at start-up.
func RegisterGenerator(g Generator) {
	if g.Name == "" || g.Generate == nil {
		panic("manifest: RegisterGenerator needs a name and a Generate function")
	}
	if !validName(g.Name) {
		panic(fmt.Sprintf("manifest: generator name %q is not a valid name", g.Name))
	}
	genMu.Lock()
	defer genMu.Unlock()
	if _, dup := generators[g.Name]; dup {
		panic(fmt.Sprintf("manifest: generator %q registered twice", g.Name))
	}
	generators[g.Name] = g
}

// LookupGenerator returns the generator registered as name.
func LookupGenerator(name string) (Generator, bool) {
	genMu.RLock()
	defer genMu.RUnlock()
	g, ok := generators[name]
	return g, ok
}

// GeneratorNames returns the registered generators' names, sorted.
func GeneratorNames() []string {
	genMu.RLock()
	defer genMu.RUnlock()
	out := make([]string, 0, len(generators))
	for n := range generators {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// unregisterGenerator removes a generator; tests use it to clean up.
func unregisterGenerator(name string) {
	genMu.Lock()
	defer genMu.Unlock()
	delete(generators, name)
}

package manifest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/swf"
)

// Generator is a synthetic workload model that a manifest can name with
// `generator = "NAME"` in a [workloads.X] table when it is among the
// generators given to Load or Parse; the manifest then accepts its name and
// checks the parameters of [workloads.X.params] against Params. There is no
// global registry: the caller (the schedlab command) passes the generators
// it links in.
type Generator struct {
	// Name is what manifests write.
	Name string
	// Doc is a one-line description.
	Doc string
	// Params declares the parameters, with types and defaults, exactly as a
	// policy declares its own (sdk.Param); values are checked with
	// sdk.ResolveParams when the manifest is parsed.
	Params []sdk.Param
	// Optional names parameters added after others: a workload that leaves
	// one at its default does not list it in its resolved parameters
	// (Workload.Params, hence its spec, key and files), so that adding it
	// kept the specs of the workloads written before. Generate still gets
	// it, with its default.
	Optional []string
	// Generate returns the workload's job records for a platform of procs
	// processors. rng is NewRand(seed) with the run's "workload" seed, so
	// every policy of a replicate sees the same jobs. The records are then
	// cleaned like a trace's (workload.FromRecords with the workload's
	// clean settings).
	Generate func(params sdk.Params, procs int64, rng *rand.Rand) ([]swf.Record, error)
}

// generatorNames returns the names of gens, sorted.
func generatorNames(gens []Generator) []string {
	out := make([]string, 0, len(gens))
	for _, g := range gens {
		out = append(out, g.Name)
	}
	slices.Sort(out)
	return out
}

// checkGenerators reports a generator without a valid name or a Generate
// function, and a name given twice: programming errors of the caller.
func checkGenerators(gens []Generator) error {
	seen := map[string]bool{}
	for _, g := range gens {
		switch {
		case !validName(g.Name):
			return fmt.Errorf("manifest: generator name %q is not a valid name", g.Name)
		case g.Generate == nil:
			return fmt.Errorf("manifest: generator %s has no Generate function", g.Name)
		case seen[g.Name]:
			return fmt.Errorf("manifest: generator %q given twice", g.Name)
		}
		seen[g.Name] = true
	}
	return nil
}

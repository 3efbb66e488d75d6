package sdk

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// Policy is a scheduling policy. The engine creates one value per run (with
// Plugin.New), calls Init once, then Schedule at every event time at which a
// job waits.
type Policy interface {
	// Init prepares the policy for a run.
	Init(env Env) error
	// Schedule returns the decisions for the state s. The engine applies them
	// in order and fails the run on the first one that is not feasible. The
	// returned slice may be reused by the policy once the next call begins.
	Schedule(s *State) ([]Decision, error)
}

// Counter is implemented by a policy that counts events of its own worth
// keeping with a run's records, such as the scheduling calls at which a
// search stopped at its limit and a fallback decided. The engine asks for
// the counts once, after the last call, and keeps them in the run's stats
// (sim.Stats.PolicyCounts), which reach the run's summary and provenance.
// Counts must depend only on the run's inputs, never on time or machine,
// so that a rerun gives the same counts.
type Counter interface {
	Counts() map[string]int64
}

// Env is what a policy learns once, at the start of a run.
type Env struct {
	// Platform is the simulated machine.
	Platform *Platform
	// Params holds the run's parameter values, checked against Info.Params.
	Params Params
	// Seed is the run's seed for the policy's random stream.
	Seed uint64
	// Rand is a random source seeded from Seed. Policies must draw all their
	// randomness from it so that a run is reproducible.
	Rand *rand.Rand
	// ExactEstimates reports whether Job.Walltime equals the actual runtime
	// in this run.
	ExactEstimates bool
	// Outages reports whether the run has outages of nodes
	// (State.Outages): a policy that cannot take them may refuse the run
	// at Init.
	Outages bool
	// Power is the run's power model, nil for a run without one: nodes
	// then are always on and draw nothing the run accounts.
	Power *Power
}

// Plugin describes a policy and how to make one.
type Plugin struct {
	Info Info
	// New returns a fresh policy for one run.
	New func() Policy
}

// Info describes a policy to hosts and users (`plugin describe`).
type Info struct {
	Name        string  `json:"name"`
	Version     string  `json:"version"`
	Description string  `json:"description,omitempty"`
	Params      []Param `json:"params,omitempty"`
	// SDKVersion and ProtocolVersion are filled in by the SDK.
	SDKVersion      string `json:"sdk_version"`
	ProtocolVersion int    `json:"protocol_version"`
}

// ParamType is the type of a policy parameter.
type ParamType string

// The parameter types.
const (
	Int    ParamType = "int"
	Float  ParamType = "float"
	String ParamType = "string"
	Bool   ParamType = "bool"
)

// Param declares a policy parameter.
type Param struct {
	Name    string    `json:"name"`
	Type    ParamType `json:"type"`
	Default string    `json:"default"`
	Doc     string    `json:"doc,omitempty"`
	// Choices, when not empty, lists the allowed values.
	Choices []string `json:"choices,omitempty"`
}

// Params holds checked parameter values. Its zero value has no parameters.
type Params struct {
	values map[string]string
	types  map[string]ParamType
}

// ResolveParams checks the given values against the declared parameters
// and fills in defaults. An undeclared name or an ill-typed value is an error
// naming the parameter.
func ResolveParams(declared []Param, given map[string]string) (Params, error) {
	p := Params{values: map[string]string{}, types: map[string]ParamType{}}
	for _, d := range declared {
		p.types[d.Name] = d.Type
		p.values[d.Name] = d.Default
	}
	names := make([]string, 0, len(given))
	for k := range given {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if _, ok := p.types[k]; !ok {
			return Params{}, fmt.Errorf("unknown parameter %q (declared: %s)", k, declaredNames(declared))
		}
		p.values[k] = given[k]
	}
	for _, d := range declared {
		v := p.values[d.Name]
		if err := checkValue(d, v); err != nil {
			return Params{}, fmt.Errorf("parameter %q: %w", d.Name, err)
		}
	}
	return p, nil
}

func declaredNames(declared []Param) string {
	if len(declared) == 0 {
		return "none"
	}
	names := make([]string, len(declared))
	for i, d := range declared {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

func checkValue(d Param, v string) error {
	var err error
	switch d.Type {
	case Int:
		_, err = strconv.ParseInt(v, 10, 64)
	case Float:
		_, err = strconv.ParseFloat(v, 64)
	case Bool:
		_, err = strconv.ParseBool(v)
	case String:
	default:
		return fmt.Errorf("unknown type %q", d.Type)
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid %s", v, d.Type)
	}
	if len(d.Choices) > 0 {
		for _, c := range d.Choices {
			if c == v {
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %s", v, strings.Join(d.Choices, ", "))
	}
	return nil
}

// Values returns a copy of all values, defaults included.
func (p Params) Values() map[string]string {
	out := make(map[string]string, len(p.values))
	for k, v := range p.values {
		out[k] = v
	}
	return out
}

func (p Params) get(name string, t ParamType) string {
	if got, ok := p.types[name]; !ok || got != t {
		// A policy asking for a parameter it did not declare is a bug in
		// the policy, not bad input, so it is reported loudly.
		panic(fmt.Sprintf("sdk: parameter %q is not declared as %s", name, t))
	}
	return p.values[name]
}

// Int returns the value of a declared int parameter.
func (p Params) Int(name string) int64 {
	v, _ := strconv.ParseInt(p.get(name, Int), 10, 64)
	return v
}

// Float returns the value of a declared float parameter.
func (p Params) Float(name string) float64 {
	v, _ := strconv.ParseFloat(p.get(name, Float), 64)
	return v
}

// Bool returns the value of a declared bool parameter.
func (p Params) Bool(name string) bool {
	v, _ := strconv.ParseBool(p.get(name, Bool))
	return v
}

// String returns the value of a declared string parameter.
func (p Params) String(name string) string { return p.get(name, String) }

// Package sdk is the public face of schedlab: the only package tree a scheduling
// policy author imports.
//
// A policy is a value that implements [Policy]. The engine (package sdk/sim)
// owns all simulation state and calls Schedule at every event time at which at
// least one job waits; the policy answers with [Decision] values (start a job,
// promise a start time, wake me later), which the engine checks one by one. A
// policy never sees a job's actual runtime, only the walltime its user
// requested, unless the run asks for exact estimates.
//
// To ship a policy as a plugin binary, describe it with a [Plugin] and call
// serve.Main from package sdk/serve in the binary's main function. The engine
// then runs inside the plugin process, so a run costs one round trip, not one
// per scheduling event.
package sdk

// ProtocolVersion is the version of the host-plugin protocol. A host refuses a
// plugin that speaks another version. Version 3 streams both ways: the plugin
// simulates while the jobs still arrive and sends records while it simulates,
// and the host reads them while it still sends (a version 2 host, which reads
// only once it has sent everything, could wait forever on a version 3 plugin).
const ProtocolVersion = 3

// Version is the version of this SDK, recorded in every result's provenance.
const Version = "0.3.0"

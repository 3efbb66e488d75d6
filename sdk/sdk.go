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

// ProtocolVersion is the version of the host-plugin protocol that plugins
// built with this SDK speak. A host of this SDK also speaks versions 11, 10,
// 9, 8, 7, 6, 5, 4 and 3, so plugins built with the previous SDKs keep
// working (a plugin of 11 or older cannot send notes) for runs without
// cluster features or a busy power table (which only 11 and 12 carry), without an I/O model (which only 10 and 11 carry), without a
// power model (which only 9 to 11 carry), without outages of nodes (which
// only 8 to 11 carry), whose jobs depend
// on none (which only 7 and 8 carry), on platforms without nodes (which
// only 6 to 8 carry), and whose jobs have no home cluster or transfer time
// (which only 5 to 8 carry); it refuses any other. Version 12 adds a
// policy's notes per job (sdk.Noter, sim.Result.Notes) after the drains.
// Version 11 adds the
// features of a grid's clusters (Cluster.Features), those each job
// requires (Job.Requires), and a node group's busy power table
// (sdk.NodePower.Busy), and the nodes a policy drained (sdk.DrainNodes,
// sim.Result.Drains) after the records, with their count in the stats; a
// plugin of an older version cannot drain. Version 10 adds the
// run's I/O model (sim.Config.IO) to the header. Version 9 adds the power
// model, the power events and the engine's energy. Version 8 adds the
// run's outages of nodes and their rules (sim.Config.Outages and Faults)
// to the header, and each record's attempts and interruption, with the
// attempts outages ended and their allocations. Version 7 adds each job's dependency (sim.Input.After
// and Think, jobs submitted during a run) and a header flag saying the run
// has some. Version 6 adds the nodes, partitions and placement rule of
// each cluster, each job's tasks, and the jobs' allocations on nodes with
// the records. Version 5 adds to each job its home cluster and transfer
// time and to each record its shipment, reservation and charge; version 4
// spells every key of the protocol's JSON documents in snake_case, from a
// schema of its own rather than from Go field names; version 3 streams
// both ways, as 4 to 8 do.
const ProtocolVersion = 12

// Version is the version of this SDK, recorded in every result's provenance.
// A release of the SDK module is tagged sdk/vVersion in the repository.
const Version = "0.12.0"

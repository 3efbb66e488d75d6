package manifest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
)

// CanonicalSpec is the canonical JSON of everything a manifest says about
// one run: object keys sorted, no insignificant space. Equal specs mean the
// manifest asks for the same run.
type CanonicalSpec []byte

// SpecSchema names the layout of CanonicalSpec; it changes, changing every
// key, whenever the layout does.
const SpecSchema = "schedlab.run/1"

// The spec's layout. Struct fields are in the alphabetical order of their
// JSON names and encoding/json sorts map keys, so the encoding is
// canonical.
type specJSON struct {
	Estimates  string        `json:"estimates"`
	MasterSeed int64         `json:"master_seed"`
	Metrics    specMetrics   `json:"metrics"`
	Platform   *specPlatform `json:"platform,omitempty"`
	Policy     specPolicy    `json:"policy"`
	Replicate  int           `json:"replicate"`
	Schema     string        `json:"schema"`
	Workload   specWorkload  `json:"workload"`
}

type specMetrics struct {
	BSLDTau      int64 `json:"bsld_tau"`
	CooldownJobs int   `json:"cooldown_jobs"`
	WarmupJobs   int   `json:"warmup_jobs"`
}

type specPlatform struct {
	Name  string `json:"name"`
	Procs int64  `json:"procs"`
	// Resources is left out when the platform has only processors, so
	// that such platforms keep the specs (and keys) they had before
	// resources existed.
	Resources []specResource `json:"resources,omitempty"`
	// Clusters is left out for a platform of one cluster.
	Clusters []specCluster `json:"clusters,omitempty"`
	// Nodes is left out for a platform without nodes, and Outages for
	// one without outages.
	Nodes   *specNodes   `json:"nodes,omitempty"`
	Outages *outagesSpec `json:"outages,omitempty"`
	// Power is left out for a platform without a power model, and IO
	// for one without an I/O model.
	Power *powerSpec `json:"power,omitempty"`
	IO    *ioSpec    `json:"io,omitempty"`
}

type specCluster struct {
	// Features are left out for a cluster without any.
	Features    []string `json:"features,omitempty"`
	Name        string   `json:"name"`
	PriceFactor float64  `json:"price_factor"`
	Procs       int64    `json:"procs"`
}

type specResource struct {
	Capacity     int64  `json:"capacity"`
	Name         string `json:"name"`
	PiecesBy     string `json:"pieces_by,omitempty"`
	UnitCapacity int64  `json:"unit_capacity,omitempty"`
	Units        int64  `json:"units,omitempty"`
}

type specTransform struct {
	Name   string            `json:"name"`
	Params map[string]string `json:"params"`
}

type specPolicy struct {
	Kind   RefKind           `json:"kind"`
	Name   string            `json:"name"`
	Params map[string]string `json:"params"`
	Ref    string            `json:"ref,omitempty"`
}

type specWorkload struct {
	Clean     map[string]string `json:"clean"`
	Generator string            `json:"generator,omitempty"`
	Name      string            `json:"name"`
	Params    map[string]string `json:"params,omitempty"`
	Procs     int64             `json:"procs"`
	SHA256    string            `json:"sha256,omitempty"`
	// SeedName is left out when the workload's seeds derive from its name.
	SeedName string `json:"seed_name,omitempty"`
	// Streams is left out when the workload has none.
	Streams []specStream `json:"streams,omitempty"`
	// Transform is left out when the workload has none.
	Transform *specTransform `json:"transform,omitempty"`
	// Partitions, the partitions table ("2=thin,4=fat"), is left out
	// when the workload has none.
	Partitions string `json:"partitions,omitempty"`
	// Feedback, its settings (workload.Feedback.Settings), is left out
	// for a replay (feedback none), whose spec is what it was before.
	Feedback map[string]string `json:"feedback,omitempty"`
	// Format and Log, a sacct log's settings, are left out for SWF.
	Format string            `json:"format,omitempty"`
	Log    map[string]string `json:"log,omitempty"`
}

// specStream is a stream with the spec of the workload it holds.
type specStream struct {
	// Budget and BudgetPeriod are left out without a budget.
	Budget       float64 `json:"budget,omitempty"`
	BudgetPeriod int64   `json:"budget_period,omitempty"`
	From         int64   `json:"from"`
	Home         string  `json:"home"`
	// MinRuntime is left out when no job is left out by its runtime.
	MinRuntime int64      `json:"min_runtime,omitempty"`
	Name       string     `json:"name"`
	Payment    [2]float64 `json:"payment"`
	Priority   [2]float64 `json:"priority"`
	// Require and RequireShare are left out when the stream requires no
	// features.
	Require      []string     `json:"require,omitempty"`
	RequireShare float64      `json:"require_share,omitempty"`
	To           int64        `json:"to"`
	Transfer     int64        `json:"transfer"`
	Workload     specWorkload `json:"workload"`
}

// workloadSpec returns the spec of workload name.
func workloadSpec(m *Manifest, name string) specWorkload {
	w := m.Workloads[name]
	s := specWorkload{
		Clean: specClean(w.Clean), Generator: w.Generator, Name: name,
		Params: w.Params, Procs: w.Procs, SHA256: w.SHA256, SeedName: w.SeedName,
		Feedback: w.Feedback.Settings(),
	}
	if w.Transform != "" {
		s.Transform = &specTransform{Name: w.Transform, Params: nonNil(w.TransformParams)}
	}
	if len(w.Partitions) > 0 {
		s.Partitions = nodes.PartitionTable(w.Partitions)
	}
	if w.Log != nil {
		s.Format, s.Log = w.Format, logSpec(w.Log)
		// Only when set, so that the keys of other sacct runs stay.
		if w.Groups != "" {
			s.Log["groups"] = w.Groups
		}
		if w.Priority != "" {
			s.Log["priority"] = w.Priority
		}
		if len(w.Log.Partitions) > 0 {
			s.Partitions = nodes.NameTable(w.Log.Partitions)
		}
	}
	for _, st := range w.Streams {
		s.Streams = append(s.Streams, specStream{Budget: st.Budget, BudgetPeriod: st.BudgetPeriod, From: st.From, Home: st.Home, MinRuntime: st.MinRuntime, Name: st.Name, Payment: st.Payment,
			Priority: st.Priority, Require: st.Require, RequireShare: st.RequireShare, To: st.To, Transfer: st.Transfer, Workload: workloadSpec(m, st.Workload)})
	}
	return s
}

// specClean returns the cleaning settings of a spec: all of them, except
// job-ids when it selects every job and huge-time when it drops, since
// those settings came later and leaving out their defaults keeps the keys
// of the campaigns made before them.
func specClean(c workload.Clean) map[string]string {
	s := c.Settings()
	if s[workload.SettingJobIDs] == workload.AllJobs {
		delete(s, workload.SettingJobIDs)
	}
	if s[workload.SettingHugeTime] == workload.Drop {
		delete(s, workload.SettingHugeTime)
	}
	return s
}

// Spec returns the canonical JSON of the run: the master seed, the
// workload (name, trace sha256 or generator and parameters, procs,
// cleaning settings with defaults filled in (job-ids only when it selects), the transform and its
// parameters when it has one), the platform when the run has one (name,
// procs, and its other resources when it has any), the policy (name, reference as written, effective parameters),
// the estimates, the replicate and the metrics settings. It leaves out
// what does not change results (campaign name, output folder, timeout,
// the run's index, file paths: a trace is identified by its sha256 and a
// plugin given by path by its identity in the key), so that such
// edits, or moving files, keep keys.
func (r Run) Spec(m *Manifest) CanonicalSpec {
	pol := m.Policies[r.Policy]
	s := specJSON{
		Estimates:  r.Estimates,
		MasterSeed: m.Campaign.Seed,
		Metrics: specMetrics{
			BSLDTau: m.Metrics.SlowdownTau, CooldownJobs: m.Metrics.CooldownJobs, WarmupJobs: m.Metrics.WarmupJobs,
		},
		Policy:    specPolicy{Kind: pol.Kind, Name: r.Policy, Params: nonNil(r.Params), Ref: pol.Ref},
		Replicate: r.Replicate,
		Schema:    SpecSchema,
		Workload:  workloadSpec(m, r.Workload),
	}
	if pol.Kind == RefPath {
		// A path depends on where the manifest is; the plugin binary's
		// sha256, part of the key, pins the code instead.
		s.Policy.Ref = ""
	}
	if r.Platform != "" {
		pl := m.Platforms[r.Platform]
		s.Platform = &specPlatform{Name: r.Platform, Procs: pl.Procs}
		for _, res := range pl.Resources {
			s.Platform.Resources = append(s.Platform.Resources, specResource{Capacity: res.Capacity, Name: res.Name,
				PiecesBy: res.PiecesBy, UnitCapacity: res.UnitCapacity, Units: res.Units})
		}
		for _, c := range pl.Clusters {
			s.Platform.Clusters = append(s.Platform.Clusters, specCluster{Features: c.Features, Name: c.Name, PriceFactor: c.PriceFactor, Procs: c.Procs})
		}
		if pl.Nodes != nil {
			s.Platform.Nodes = nodesSpec(pl.Nodes)
		}
		s.Platform.Outages = specOutages(pl.Outages)
		if pl.Power != nil {
			s.Platform.Power = specPower(pl.Power, pl.Nodes.Groups)
		}
		if pl.IO != nil {
			s.Platform.IO = specIO(pl.IO, pl.SDK().Resources)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic("manifest: encoding a run spec: " + err.Error()) // strings and integers only
	}
	return b
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Key returns a run's identity: the hex sha256 (64 digits) of the spec, the
// policy's identity (runner.Resolved.Identity: a digest of a reference
// policy's sources, else the plugin binary's sha256) and the sha256 of the workload
// (uncompressed trace bytes, or the generated records), each prefixed by
// its length so that no two different triples hash alike. The hashes are
// lower-cased first. Two runs with equal keys compute the same thing;
// file names may use a prefix of the key.
func Key(spec []byte, policyIdentity, workloadSHA string) string {
	h := sha256.New()
	writeParts(h, "schedlab.run-key/1", string(spec), strings.ToLower(policyIdentity), strings.ToLower(workloadSHA))
	return hex.EncodeToString(h.Sum(nil))
}

// Stream names for DeriveSeed.
const (
	// StreamWorkload seeds workload generation; it depends on the workload
	// and the replicate only, so every policy of a replicate sees the same
	// generated jobs.
	StreamWorkload = "workload"
	// StreamPolicy seeds the policy's random source (sdk.Env.Rand); it
	// depends on the workload, the policy, its effective parameters and the
	// replicate.
	StreamPolicy = "policy"
	// StreamOutages seeds the failures of a platform's failure model.
	StreamOutages = "outages"
)

// DeriveSeed returns the seed of one random stream: the first 8 bytes
// (big-endian) of the sha256 of a domain tag, the master seed (8 bytes,
// big-endian two's complement), the stream name and the parts, each string
// prefixed by its length, with the top bit cleared. Only what is passed
// changes the seed, so a stream is independent of every other run of the
// manifest. 63 bits keep every seed an int64, which TOML, Parquet readers
// and pandas all hold exactly.
func DeriveSeed(master int64, stream string, parts ...string) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(master))
	writeParts(h, "schedlab.seed/1")
	h.Write(b[:])
	writeParts(h, stream)
	writeParts(h, parts...)
	return binary.BigEndian.Uint64(h.Sum(nil)[:8]) &^ (1 << 63)
}

func writeParts(h hash.Hash, parts ...string) {
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
}

// Seeds are a run's derived seeds.
type Seeds struct {
	// Workload seeds a generated workload (StreamWorkload).
	Workload uint64
	// Policy is the seed given to the policy (sim.Config.Seed, wire
	// RunSpec.Seed; StreamPolicy).
	Policy uint64
	// Transform seeds the workload's transform: the workload stream with
	// one more part, "transform", so that it is shared by every policy of
	// a replicate like the workload seed, yet independent of a generator's
	// draws.
	Transform uint64
	// Outages seeds the failures a platform's model draws: shared by every
	// policy of a replicate on one platform and workload, so that they
	// meet the same failures (StreamOutages).
	Outages uint64
}

// Seeds derives the run's seeds from the master seed:
//
//	workload:  DeriveSeed(master, "workload", workload, replicate)
//	transform: DeriveSeed(master, "workload", workload, replicate, "transform")
//	policy:    DeriveSeed(master, "policy", workload, policy, params, replicate)
//	outages:   DeriveSeed(master, "outages", platform, workload, replicate)
//
// where replicate is in decimal and params is the canonical JSON of the
// effective parameters. Adding a policy, a workload or an axis value to a
// manifest therefore changes no other run's seeds, and all policies of a
// replicate share the workload seed.
func (r Run) Seeds(m *Manifest) Seeds {
	rep := strconv.Itoa(r.Replicate)
	params, err := json.Marshal(nonNil(r.Params))
	if err != nil {
		panic("manifest: encoding parameters: " + err.Error())
	}
	name := r.Workload
	if s := m.Workloads[r.Workload].SeedName; s != "" {
		name = s
	}
	return Seeds{
		Workload:  DeriveSeed(m.Campaign.Seed, StreamWorkload, name, rep),
		Transform: DeriveSeed(m.Campaign.Seed, StreamWorkload, name, rep, "transform"),
		Policy:    DeriveSeed(m.Campaign.Seed, StreamPolicy, name, r.Policy, string(params), rep),
		Outages:   DeriveSeed(m.Campaign.Seed, StreamOutages, r.Platform, name, rep),
	}
}

// PCGIncrement is the second PCG word NewRand uses, the one sdk/sim uses
// for a policy's Env.Rand.
const PCGIncrement = 0x5eed_0f_7011c7

// NewRand returns the math/rand/v2 source of a derived seed:
// rand.New(rand.NewPCG(seed, PCGIncrement)). Generators get it for the
// workload seed.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, PCGIncrement))
}

// Package manifest reads campaign manifests: TOML files that name the
// platforms, workloads, policies and parameters of an experiment, and a
// matrix whose expansion is the list of runs. Decoding is strict: a key
// the manifest does not define is an error naming the file, the line and,
// when one is close, the key that was probably meant. Every run has a key
// (a hash of everything that determines its result) and random seeds
// derived so that editing one part of a manifest leaves the other runs'
// numbers alone. The format is documented in docs/manifest.md.
package manifest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/outages"
	"github.com/schedlab/schedlab/workload/pwa"
)

// Manifest is a parsed and checked campaign manifest.
type Manifest struct {
	// Path is the file's path as given to Load, or the name given to Parse.
	Path string
	// Dir is the absolute directory that relative paths are resolved
	// against: the manifest's own directory.
	Dir      string
	Campaign Campaign
	// Metrics are the [metrics] settings, defaults filled in.
	Metrics   metrics.Settings
	Platforms map[string]Platform
	Workloads map[string]Workload
	Policies  map[string]Policy
	Matrix    Matrix
	// Lock is the [lock] table that campaigns write into
	// manifest.lock.toml; nil in a manifest people write.
	Lock *Lock

	// loc finds the line of a key, for problems found after loading.
	loc *locator
	// tree is the manifest's text decoded as TOML tables, from which the
	// lock writes the settings it does not spell out one by one
	// (lockTree).
	tree map[string]any
}

// ErrorAt returns an Error about key at the key's line in the manifest,
// its message prefixed with the key path: for what can be checked only
// after loading (a trace whose sha256 differs, a parameter the policy does
// not declare).
func (m *Manifest) ErrorAt(key []string, format string, args ...any) *Error {
	ks := keyString(key...)
	return &Error{File: m.Path, Line: m.loc.line(key...), Key: ks, Msg: ks + ": " + fmt.Sprintf(format, args...)}
}

// Campaign is the [campaign] table.
type Campaign struct {
	// Name names the campaign; by default the manifest's file name without
	// its extension.
	Name string
	// Seed is the master seed every run's seeds derive from. It is an int64
	// because TOML integers are: a larger value cannot be written.
	Seed int64
	// Replicates is the number of seeds per matrix combination (replicate
	// index 0 .. Replicates-1); at least 1, 1 by default.
	Replicates int
	// Out is the absolute output folder; by default out/NAME next to the
	// manifest.
	Out string
	// Timeout bounds each run; 0 means no bound. Unless TimeoutSet, the
	// manifest gives none and each run gets a limit from its size
	// (runner.DefaultTimeout).
	Timeout    time.Duration
	TimeoutSet bool
	// StallTimeout ends a run whose plugin reports no progress in
	// simulated time for that long; 0 means never. DefaultStallTimeout
	// unless the manifest says otherwise.
	StallTimeout time.Duration
	// StartTimeout bounds the start of a plugin process, handshake and
	// description included; DefaultStartTimeout unless the manifest says
	// otherwise.
	StartTimeout time.Duration
}

// The defaults of [campaign]'s stall_timeout and start_timeout.
const (
	DefaultStallTimeout = 5 * time.Minute
	DefaultStartTimeout = 30 * time.Second
)

// Platform is a [platforms.NAME] table: a machine of one cluster, or a
// grid of several (Clusters).
type Platform struct {
	Name string
	// Procs is the number of processors of a platform of one cluster; of
	// a grid, its largest cluster's, the size its global streams are
	// loaded on.
	Procs int64
	// Resources are the resources besides processors, sorted by name: the
	// order of sdk.Platform.Resources after "procs" (see SDK).
	Resources []Resource
	// Clusters are a grid's clusters, sorted by name (the order of
	// sdk.Platform.Clusters); empty for a platform of one cluster.
	Clusters []Cluster
	// Nodes describes a platform of nodes (then Procs is their cores);
	// nil for a pool of processors.
	Nodes *Nodes
	// Outages are the outages of a platform of nodes (its
	// [platforms.NAME.outages] table); nil without.
	Outages *outages.Settings
	// Power is the power model of a platform of nodes (its
	// [platforms.NAME.power] table); nil without.
	Power *sdk.Power
	// IO is the model of jobs that move data through the burst buffer of
	// a platform of one cluster (its [platforms.NAME.io] table); nil
	// without.
	IO *sdk.IO
}

// Resource is a [platforms.NAME.resources.RES] table: a resource besides
// processors, pooled or divided into units (a burst buffer spread over
// storage nodes, see sdk.Units).
type Resource struct {
	// Name names the resource: letters, digits and '_', starting with a
	// letter, not "procs"; jobs files have a req_NAME column.
	Name string
	// Capacity is the total amount: Units x UnitCapacity when divided.
	Capacity int64
	// Units is the number of units, 0 for a pooled resource, and
	// UnitCapacity each unit's capacity.
	Units, UnitCapacity int64
	// PiecesBy names the resource whose requested amount is a job's number
	// of pieces (one per processor: "procs"); set only when divided.
	PiecesBy string
}

// SDK returns the platform as the engine sees it: a grid's clusters in
// name order, processors only; else one cluster named after the platform, resources "procs" then Resources in order, and a
// sdk.Units declaration for each divided resource.
func (p Platform) SDK() *sdk.Platform {
	if p.Nodes != nil {
		sp := sdk.NodesPlatform(p.Name, p.Nodes.Groups, p.Nodes.Partitions, p.Nodes.Placement)
		AddResources(sp, p.Resources)
		return sp
	}
	if len(p.Clusters) > 0 {
		return &sdk.Platform{Name: p.Name, Resources: []string{sdk.Processors}, Clusters: p.sdkClusters()}
	}
	sp := &sdk.Platform{Name: p.Name, Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{{Name: p.Name, Capacity: sdk.Vector{p.Procs}}}}
	AddResources(sp, p.Resources)
	return sp
}

// AddResources adds resources rs, in order, to the one cluster of sp after
// the resources it has (processors, and on nodes their memory and GPUs),
// each divided one with its units.
func AddResources(sp *sdk.Platform, rs []Resource) {
	c := &sp.Clusters[0]
	first := len(sp.Resources)
	for _, r := range rs {
		sp.Resources = append(sp.Resources, r.Name)
		c.Capacity = append(c.Capacity, r.Capacity)
	}
	for i, r := range rs {
		if r.Units == 0 {
			continue
		}
		units := make([]int64, r.Units)
		for k := range units {
			units[k] = r.UnitCapacity
		}
		c.Units = append(c.Units, sdk.Units{Resource: first + i, PiecesBy: slices.Index(sp.Resources, r.PiecesBy), Capacity: units})
	}
}

// Workload is a [workloads.NAME] table: a trace file or a generator.
type Workload struct {
	Name string
	// Trace is the absolute path of the SWF trace (plain or gzip), or
	// pwa:NAME for a log of the Parallel Workloads Archive (package
	// workload/pwa; its sha256 is the table's); empty for a generator.
	Trace string
	// SHA256 is the expected sha256 of the trace's uncompressed bytes, in
	// lower-case hex. Whoever loads the trace checks it (VerifySHA256).
	SHA256 string
	// Generator names a registered Generator; empty for a trace.
	Generator string
	// Params are the generator's parameters, defaults filled in.
	Params map[string]string
	// Procs is the platform size; 0 takes it from the trace header (traces
	// only: a generator needs a positive size).
	Procs int64
	// Clean holds the cleaning settings, defaults filled in.
	Clean workload.Clean
	// Feedback is how the workload reacts to the scheduler (feedback and
	// session_threshold), defaults filled in: none, a replay, by default.
	Feedback workload.Feedback
	// Transform names the transform applied to the cleaned jobs (see
	// Transforms); empty for none. TransformParams are its parameters,
	// defaults filled in, numbers in canonical form.
	Transform       string
	TransformParams map[string]string
	// Partitions maps the trace's partition numbers (SWF field 16) to the
	// partitions of the platforms of nodes it runs on; nil for none.
	Partitions map[int32]string
	// Format is the trace's format: "" for SWF, FormatSacct for a Slurm
	// accounting log.
	Format string
	// Log holds a sacct log's settings of the mapping onto nodes, defaults
	// filled in, with its partitions table by name; nil for SWF.
	Log *nodes.LogSettings
	// Groups is a sacct log's field that gives each job its group
	// (sacct.Options.Groups): "" (the Unix group) or sacct.GroupsAccount.
	Groups string
	// Priority is a sacct log's source of each job's priority: ""
	// (none: 0) or PriorityLog (its Priority; sacct.Options.Priority).
	Priority string
	// SeedName, when set, is the name the workload's seeds derive from in
	// place of its own: workloads that share it draw the same jobs and
	// transform draws, so that they differ only by what else differs (a
	// transform, a cleaning setting), with common random numbers.
	SeedName string
	// Streams, when not empty, make the workload of a grid out of other
	// workloads, sorted by name; such a workload has no trace, generator,
	// cleaning or transform of its own.
	Streams []Stream
}

// VerifySHA256 checks the sha256 of the loaded trace's uncompressed bytes
// against the manifest's.
func (w Workload) VerifySHA256(actual string) error {
	if w.Trace == "" {
		return nil
	}
	if !strings.EqualFold(actual, w.SHA256) {
		return fmt.Errorf("trace %s has sha256 %s, the manifest expects %s", w.Trace, actual, w.SHA256)
	}
	return nil
}

// RefKind says what a policy reference names.
type RefKind string

// The kinds of policy reference.
const (
	// RefReference is a policy shipped with schedlab (plugins/reference).
	RefReference RefKind = "reference"
	// RefPath is a file or directory path: a plugin binary or a Go package
	// directory, written relative to the manifest (./x, ../x) or absolute.
	RefPath RefKind = "path"
	// RefImport is a Go import path (example.com/lab/policy).
	RefImport RefKind = "import"
)

// Policy is a [policies.NAME] table.
type Policy struct {
	Name string
	// Ref is the reference as written.
	Ref  string
	Kind RefKind
	// Target is what runner.Resolver.Resolve takes: the reference name,
	// the absolute path (RefPath) or the import path.
	Target string
	// Params are the fixed parameter values, as strings.
	Params map[string]string
	// FreshProcess runs every run of the policy in a plugin process of its
	// own instead of one that served earlier runs: for a plugin that keeps
	// state between runs and cannot be fixed. The records are the same
	// either way for a policy that keeps none, so it is not part of the run
	// keys.
	FreshProcess bool
	// Cost is the policy's relative cost per job, which balances the shards
	// of a campaign (schedlab run --shard): a run's expected cost is its
	// workload's jobs times its policy's Cost. 1 when the manifest does not
	// say. Not part of the run keys.
	Cost float64
}

// The estimates axis values.
const (
	EstimatesRequested = "requested"
	EstimatesExact     = "exact"
)

// Load reads and checks the manifest at path. gens are the workload
// generators the manifest may name. A file over MaxBytes is refused before
// it is parsed, with an error wrapping ErrTooLarge.
func Load(path string, gens ...Generator) (*Manifest, error) {
	return load(path, MaxBytes, "a manifest", gens)
}

// LoadLock reads a campaign's lock file (manifest.lock.toml, written by
// WriteLock) as Load reads a manifest, up to MaxLockBytes.
func LoadLock(path string, gens ...Generator) (*Manifest, error) {
	return load(path, MaxLockBytes, "a campaign's lock", gens)
}

// MaxBytes bounds the size of a manifest Load reads. Reading a manifest
// takes some 125 times its size in memory at the peak and close to a second
// per megabyte (BenchmarkLoadLarge: 132 MB and 0.83 s at the bound), and
// the largest manifests of this repository are under 6 KB: a file past the
// bound is refused before it is parsed, most likely not a manifest, or one
// a program wrote that is better split into several campaigns.
const MaxBytes = 1 << 20

// MaxLockBytes bounds the size of a lock file LoadLock reads. A lock spells
// out every default and records how each policy was resolved, some ten
// times the manifest it comes from at most, for a manifest of nothing but
// policy tables.
const MaxLockBytes = 16 * MaxBytes

// ErrTooLarge is wrapped by the error of Load and LoadLock for a file over
// their bound.
var ErrTooLarge = errors.New("file too large")

func load(path string, limit int64, what string, gens []Generator) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	defer f.Close()
	// One byte past the bound tells a file over it, whatever Stat says of
	// a pipe or a file that grows.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if int64(len(data)) > limit {
		size := fmt.Sprintf("more than %d bytes", limit)
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = fmt.Sprintf("%d bytes", st.Size())
		}
		return nil, fmt.Errorf("%s: %w: %s, more than the %d (%d MiB) %s may have; is it the file meant? A campaign that large is better split into several manifests (docs/manifest.md)",
			path, ErrTooLarge, size, limit, limit>>20, what)
	}
	return Parse(path, data, filepath.Dir(path), gens...)
}

// Parse checks the manifest text data. name is used in errors (normally
// the file's path) and, without its extension, as the default campaign
// name; dir is the directory relative paths are resolved against. The
// error, if any, is an Errors listing every problem found. gens are the
// workload generators the manifest may name.
func Parse(name string, data []byte, dir string, gens ...Generator) (*Manifest, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := checkGenerators(gens); err != nil {
		return nil, err
	}
	p := &parser{file: name, dir: absDir, gens: gens}
	m := p.parse(data)
	if len(p.errs) > 0 {
		return nil, p.errs.sorted()
	}
	return m, nil
}

// The TOML layout. The parser walks these types to know which keys exist,
// so a field added here is a key the manifest accepts.
type rawFile struct {
	Campaign  rawCampaign            `toml:"campaign"`
	Metrics   rawMetrics             `toml:"metrics"`
	Platforms map[string]rawPlatform `toml:"platforms"`
	Workloads map[string]rawWorkload `toml:"workloads"`
	Policies  map[string]rawPolicy   `toml:"policies"`
	Matrix    map[string]any         `toml:"matrix"`
	Lock      *rawLock               `toml:"lock"`
}

type rawCampaign struct {
	Name       string `toml:"name"`
	Seed       int64  `toml:"seed"`
	Replicates int64  `toml:"replicates"`
	Out        string `toml:"out"`
	Timeout    string `toml:"timeout"`
	Stall      string `toml:"stall_timeout"`
	Start      string `toml:"start_timeout"`
}

type rawMetrics struct {
	BSLDTau      int64 `toml:"bsld_tau"`
	WarmupJobs   int64 `toml:"warmup_jobs"`
	CooldownJobs int64 `toml:"cooldown_jobs"`
}

type rawPlatform struct {
	Procs     int64                  `toml:"procs"`
	Resources map[string]rawResource `toml:"resources"`
	Clusters  map[string]rawCluster  `toml:"clusters"`
	// A platform of nodes (nodes.go).
	Machine    string                  `toml:"machine"`
	Nodes      map[string]rawNodeGroup `toml:"nodes"`
	Partitions map[string]rawPartition `toml:"partitions"`
	Placement  string                  `toml:"placement"`
	Allocation string                  `toml:"allocation"`
	Memory     string                  `toml:"memory"`
	NodeSize   string                  `toml:"node_size"`
	Oversize   string                  `toml:"oversize"`
	Outages    *rawOutages             `toml:"outages"`
	Power      *rawPower               `toml:"power"`
	IO         *rawIO                  `toml:"io"`
}

type rawResource struct {
	Capacity     int64  `toml:"capacity"`
	Units        int64  `toml:"units"`
	UnitCapacity int64  `toml:"unit_capacity"`
	PiecesBy     string `toml:"pieces_by"`
}

type rawWorkload struct {
	Trace     string            `toml:"trace"`
	SHA256    string            `toml:"sha256"`
	Generator string            `toml:"generator"`
	Params    map[string]any    `toml:"params"`
	Procs     int64             `toml:"procs"`
	Clean     map[string]string `toml:"clean"`
	Transform string            `toml:"transform"`
	// Feedback, SessionThreshold and UnknownWait are workload.Feedback's
	// settings.
	Feedback         string `toml:"feedback"`
	SessionThreshold int64  `toml:"session_threshold"`
	UnknownWait      string `toml:"unknown_wait"`
	SeedName         string `toml:"seed_name"`
	// TransformParams are the transform's parameters.
	TransformParams map[string]any       `toml:"transform_params"`
	Streams         map[string]rawStream `toml:"streams"`
	// Partitions maps trace partition numbers (names, for a sacct log) to
	// platform partitions.
	Partitions map[string]string `toml:"partitions"`
	// Format, TRES, Constraints and UnknownPartition: a sacct log
	// (sacct.go).
	Format           string `toml:"format"`
	TRES             string `toml:"tres"`
	Constraints      string `toml:"constraints"`
	UnknownPartition string `toml:"unknown_partition"`
	Groups           string `toml:"groups"`
	Priority         string `toml:"priority"`
}

type rawPolicy struct {
	Ref          string         `toml:"ref"`
	Params       map[string]any `toml:"params"`
	FreshProcess bool           `toml:"fresh_process"`
	Cost         any            `toml:"cost"`
}

type parser struct {
	file string
	dir  string
	gens []Generator
	md   toml.MetaData
	loc  *locator
	errs Errors
}

// errAt records an error about key, at the key's line. The message is
// prefixed with the key path.
func (p *parser) errAt(key []string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ks := ""
	if len(key) > 0 {
		ks = keyString(key...)
		msg = ks + ": " + msg
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: p.loc.line(key...), Key: ks, Msg: msg})
}

func (p *parser) parse(data []byte) *Manifest {
	var raw rawFile
	md, err := toml.Decode(string(data), &raw)
	p.md = md
	p.loc = &locator{data: string(data), keys: md.Keys()}
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) && len(md.Keys()) == 0 {
			// A syntax error: nothing was decoded.
			p.errs = append(p.errs, &Error{File: p.file, Line: pe.Position.Line, Key: pe.LastKey, Msg: "TOML syntax: " + pe.Message})
			return nil
		}
		p.decodeError(err)
	}
	p.unknownKeys(err == nil)
	if err != nil || len(p.errs) > 0 {
		return nil
	}
	m := &Manifest{Path: p.file, Dir: p.dir, loc: p.loc}
	if _, err := toml.Decode(string(data), &m.tree); err != nil {
		p.errs = append(p.errs, &Error{File: p.file, Msg: "TOML: " + err.Error()})
		return nil
	}
	m.Campaign = p.campaign(raw.Campaign)
	m.Metrics = p.metrics(raw.Metrics)
	m.Platforms = p.platforms(raw.Platforms)
	m.Workloads = p.workloads(raw.Workloads)
	p.checkStreams(m)
	m.Policies = p.policies(raw.Policies)
	m.Matrix = p.matrix(m, raw.Matrix)
	m.Lock = p.lock(raw.Lock)
	if len(p.errs) > 0 {
		return nil
	}
	runs, err := m.Expand()
	if err != nil {
		var es Errors
		if errors.As(err, &es) {
			p.errs = append(p.errs, es...)
		} else {
			p.errs = append(p.errs, &Error{File: p.file, Msg: err.Error()})
		}
		return nil
	}
	if p.checkTransforms(m, runs); len(p.errs) > 0 {
		return nil
	}
	if p.checkGrids(m, runs); len(p.errs) > 0 {
		return nil
	}
	if p.checkNodes(m, runs); len(p.errs) > 0 {
		return nil
	}
	return m
}

// decodeError turns a BurntSushi/toml decoding error (a value of the
// wrong type) into an Error with the file, line and key.
func (p *parser) decodeError(err error) {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		p.errs = append(p.errs, &Error{File: p.file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.LastKey + ": " + pe.Message})
		return
	}
	if m := typeErr.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		p.errs = append(p.errs, &Error{File: p.file, Line: line, Key: m[2], Msg: m[2] + ": " + plainTypeError(m[3])})
		return
	}
	p.errs = append(p.errs, &Error{File: p.file, Msg: strings.TrimPrefix(err.Error(), "toml: ")})
}

var (
	badTypeRE  = regexp.MustCompile(`^incompatible types: TOML value has type (.*); destination has type (.*)$`)
	notTableRE = regexp.MustCompile(`^type mismatch for .*: expected table but found (.*)$`)
)

// plainTypeError rewrites BurntSushi/toml's type errors, which speak of Go
// types, in TOML's words: "must be an integer, not a string".
func plainTypeError(msg string) string {
	if m := badTypeRE.FindStringSubmatch(msg); m != nil {
		want := map[string]string{"integer": "an integer", "float": "a float", "string": "a string", "boolean": "a boolean",
			"map": "a table", "slice": "an array"}[m[2]]
		if want == "" {
			want = m[2]
		}
		return fmt.Sprintf("must be %s, not %s", want, tomlType(m[1]))
	}
	if m := notTableRE.FindStringSubmatch(msg); m != nil {
		return "must be a table, not " + tomlType(m[1])
	}
	return msg
}

// tomlType names the TOML type of a value from its Go type's name.
func tomlType(goType string) string {
	switch {
	case goType == "int64":
		return "an integer"
	case goType == "float64":
		return "a float"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["):
		return "a table"
	}
	return "a date or time"
}

// schema describes which keys exist at one level of the layout.
type schema struct {
	fields map[string]*schema // a struct: its keys
	elem   *schema            // a map of named tables: the schema of each
	free   bool               // a map of values: any key, checked later
}

func schemaOf(t reflect.Type) *schema {
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem())
	case reflect.Struct:
		s := &schema{fields: map[string]*schema{}}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			s.fields[name] = schemaOf(f.Type)
		}
		return s
	case reflect.Map:
		if e := t.Elem(); e.Kind() == reflect.Struct {
			return &schema{elem: schemaOf(e)}
		}
		return &schema{free: true}
	}
	return nil // a value
}

func (s *schema) names() []string {
	out := make([]string, 0, len(s.fields))
	for n := range s.fields {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

var layout = schemaOf(reflect.TypeFor[rawFile]())

// unknownKeys reports every key the layout does not define (exact case)
// and every table written as a value (BurntSushi/toml silently skips a
// value where a map is expected); then, as a safety net when decoding
// succeeded, any key BurntSushi/toml says was left undecoded.
func (p *parser) unknownKeys(decoded bool) {
	reported := map[string]bool{}
	for _, e := range p.errs {
		reported[e.Key] = true // a decoding error already names it
	}
	report := func(key []string, msg string) {
		ks := keyString(key...)
		if reported[ks] {
			return
		}
		reported[ks] = true
		p.errs = append(p.errs, &Error{File: p.file, Line: p.loc.line(key...), Key: ks, Msg: msg})
	}
	// check walks key down the layout; it reports an unknown part and
	// returns false, or returns true when the key exists or lies inside a
	// free-form table.
	check := func(key toml.Key) bool {
		s := layout
		for i, c := range key {
			switch {
			case s == nil || s.free:
				return true // a value, or inside one: checked when converted
			case s.elem != nil:
				s = s.elem
			default:
				next, ok := s.fields[c]
				if !ok {
					ks := keyString(key[:i+1]...)
					report(key[:i+1], "unknown key "+ks+hint(c, s.names()))
					return false
				}
				s = next
			}
		}
		if t := p.md.Type(key...); s != nil && t != "Hash" {
			report(key, keyString(key...)+": must be a table, not "+tomlTypeName(t))
		}
		return true
	}
	for _, k := range p.md.Keys() {
		check(k)
	}
	if !decoded {
		return // decoding stopped early: the undecoded keys mean nothing
	}
	for _, k := range p.md.Undecoded() {
		if check(k) && !underFree(k) {
			report(k, "unknown key "+keyString(k...))
		}
	}
}

// tomlTypeName names a type as MetaData.Type gives it (Integer, String,
// Array, ArrayHash...) in prose.
func tomlTypeName(t string) string {
	switch t {
	case "Integer":
		return "an integer"
	case "Array", "ArrayHash":
		return "an array"
	case "Bool":
		return "a boolean"
	case "Datetime":
		return "a date or time"
	case "":
		return "a value"
	}
	return "a " + strings.ToLower(t)
}

// underFree reports whether key lies inside a table of free-form values
// (parameters, cleaning settings, the matrix), whose keys the decoder
// leaves undecoded when they hold nested tables or arrays of tables.
func underFree(key toml.Key) bool {
	s := layout
	for _, c := range key {
		switch {
		case s == nil || s.free:
			return true
		case s.elem != nil:
			s = s.elem
		default:
			s = s.fields[c]
		}
	}
	return false
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// validName reports whether s may name a platform, workload, policy,
// generator, campaign or parameter: letters, digits, '_', '.', '-', not
// starting with a punctuation mark.
func validName(s string) bool { return nameRE.MatchString(s) }

const nameRule = "names are letters, digits, '_', '.' and '-', starting with a letter or digit"

func (p *parser) campaign(rc rawCampaign) Campaign {
	c := Campaign{Name: rc.Name, Seed: rc.Seed, Replicates: 1}
	if !p.md.IsDefined("campaign", "name") {
		base := filepath.Base(p.file)
		c.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if !validName(c.Name) {
		key := []string{"campaign", "name"}
		if !p.md.IsDefined(key...) {
			key = []string{"campaign"}
		}
		p.errAt(key, "campaign name %q is not valid (%s)", c.Name, nameRule)
	}
	if !p.md.IsDefined("campaign", "seed") {
		p.errAt([]string{"campaign"}, "seed is required: the master seed every run's seeds derive from (an integer)")
		if !p.md.IsDefined("campaign") {
			p.errs[len(p.errs)-1].Msg = "[campaign] with its seed is required"
		}
	}
	if p.md.IsDefined("campaign", "replicates") {
		if rc.Replicates < 1 || rc.Replicates > math.MaxInt32 {
			p.errAt([]string{"campaign", "replicates"}, "must be at least 1, got %d", rc.Replicates)
		} else {
			c.Replicates = int(rc.Replicates)
		}
	}
	c.Out = filepath.Join(p.dir, "out", c.Name)
	if p.md.IsDefined("campaign", "out") {
		if rc.Out == "" {
			p.errAt([]string{"campaign", "out"}, "must not be empty")
		}
		c.Out = p.path(rc.Out)
	}
	duration := func(key, v string, dst *time.Duration) bool {
		if v == "" {
			return false
		}
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			p.errAt([]string{"campaign", key}, "%q is not a Go duration such as \"90s\" or \"10m\"", v)
		case d < 0:
			p.errAt([]string{"campaign", key}, "must not be negative, got %v", d)
		default:
			*dst = d
		}
		return true
	}
	c.TimeoutSet = duration("timeout", rc.Timeout, &c.Timeout)
	if !duration("stall_timeout", rc.Stall, &c.StallTimeout) {
		c.StallTimeout = DefaultStallTimeout
	}
	if !duration("start_timeout", rc.Start, &c.StartTimeout) {
		c.StartTimeout = DefaultStartTimeout
	}
	if rc.Start != "" && c.StartTimeout == 0 {
		p.errAt([]string{"campaign", "start_timeout"}, "must be positive: a plugin that never answers would hold its worker forever")
	}
	return c
}

// path resolves a path written in the manifest against its directory.
func (p *parser) path(s string) string {
	s = filepath.FromSlash(s)
	if filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return filepath.Join(p.dir, s)
}

func (p *parser) metrics(rm rawMetrics) metrics.Settings {
	s := metrics.DefaultSettings()
	if p.md.IsDefined("metrics", "bsld_tau") {
		if rm.BSLDTau < 1 {
			p.errAt([]string{"metrics", "bsld_tau"}, "the bounded-slowdown floor must be at least 1 s, got %d", rm.BSLDTau)
		}
		s.SlowdownTau = rm.BSLDTau
	}
	for _, f := range []struct {
		key string
		v   int64
		dst *int
	}{{"warmup_jobs", rm.WarmupJobs, &s.WarmupJobs}, {"cooldown_jobs", rm.CooldownJobs, &s.CooldownJobs}} {
		if f.v < 0 || f.v > math.MaxInt32 {
			p.errAt([]string{"metrics", f.key}, "must be between 0 and %d, got %d", math.MaxInt32, f.v)
			continue
		}
		*f.dst = int(f.v)
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (p *parser) checkName(section, name string) bool {
	if validName(name) {
		return true
	}
	p.errAt([]string{section, name}, "%q is not a valid name (%s)", name, nameRule)
	return false
}

func (p *parser) platforms(raw map[string]rawPlatform) map[string]Platform {
	out := map[string]Platform{}
	for _, name := range sortedKeys(raw) {
		if !p.checkName("platforms", name) {
			continue
		}
		rp := raw[name]
		if rp.IO != nil && p.md.IsDefined("platforms", name, "clusters") {
			p.errAt([]string{"platforms", name, "io"}, "an I/O model is of a platform of one cluster with a burst buffer (resources divided into units), not of a grid, for now")
		}
		if p.hasNodes(name) {
			out[name] = p.nodePlatform(name, rp)
			continue
		}
		if p.md.IsDefined("platforms", name, "clusters") {
			pl := Platform{Name: name, Clusters: p.clusters(name, rp)}
			for _, c := range pl.Clusters {
				pl.Procs = max(pl.Procs, c.Procs)
			}
			out[name] = pl
			continue
		}
		if rp.Outages != nil {
			p.errAt([]string{"platforms", name, "outages"}, "outages are of nodes: the platform needs nodes (machine, or nodes tables)")
		}
		if rp.Power != nil {
			p.errAt([]string{"platforms", name, "power"}, "a power model is of nodes: the platform needs nodes (machine, or nodes tables)")
		}
		if rp.Procs < 1 {
			key := []string{"platforms", name, "procs"}
			if !p.md.IsDefined(key...) {
				key = key[:2]
			}
			p.errAt(key, "procs (the number of processors) must be at least 1, got %d", rp.Procs)
		}
		pl := Platform{Name: name, Procs: rp.Procs, Resources: p.resources(name, rp.Resources)}
		pl.IO = p.ioModel(name, rp.IO, pl.SDK())
		out[name] = pl
	}
	return out
}

var resourceRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// resources checks the [platforms.NAME.resources.*] tables and returns them
// sorted by name.
func (p *parser) resources(platform string, raw map[string]rawResource) []Resource {
	var out []Resource
	names := sortedKeys(raw)
	for _, name := range names {
		rr := raw[name]
		key := func(k ...string) []string { return append([]string{"platforms", platform, "resources", name}, k...) }
		def := func(k string) bool { return p.md.IsDefined(key(k)...) }
		if !resourceRE.MatchString(name) || name == sdk.Processors {
			p.errAt(key(), "%q is not a valid resource name (letters, digits and '_', starting with a letter; %q is the processors, always there)", name, sdk.Processors)
			continue
		}
		r := Resource{Name: name}
		divided := def("units") || def("unit_capacity")
		switch {
		case divided && def("capacity"):
			p.errAt(key("capacity"), "give either capacity (a pooled resource) or units and unit_capacity (a divided one, whose capacity is units x unit_capacity), not both")
		case divided && !def("units"):
			p.errAt(key("unit_capacity"), "unit_capacity needs units, the number of units")
		case divided && !def("unit_capacity"):
			p.errAt(key("units"), "units needs unit_capacity, the capacity of each unit")
		case divided:
			switch {
			case rr.Units < 1 || rr.Units > math.MaxInt32:
				p.errAt(key("units"), "must be between 1 and %d, got %d", math.MaxInt32, rr.Units)
			case rr.UnitCapacity < 1:
				p.errAt(key("unit_capacity"), "must be at least 1, got %d", rr.UnitCapacity)
			case rr.UnitCapacity > math.MaxInt64/rr.Units:
				p.errAt(key("unit_capacity"), "%d units of %d overflow a 64-bit capacity", rr.Units, rr.UnitCapacity)
			default:
				r.Units, r.UnitCapacity, r.Capacity = rr.Units, rr.UnitCapacity, rr.Units*rr.UnitCapacity
			}
			r.PiecesBy = sdk.Processors
			if def("pieces_by") {
				valid := []string{sdk.Processors}
				for _, n := range names {
					if n != name {
						valid = append(valid, n)
					}
				}
				if !slices.Contains(valid, rr.PiecesBy) {
					p.errAt(key("pieces_by"), "%q is not another resource of platform %s%s", rr.PiecesBy, platform, hint(rr.PiecesBy, valid))
				}
				r.PiecesBy = rr.PiecesBy
			}
		case !def("capacity"):
			p.errAt(key(), "set capacity (a pooled resource), or units and unit_capacity (a resource divided into units)")
		case rr.Capacity < 1:
			p.errAt(key("capacity"), "must be at least 1, got %d", rr.Capacity)
		default:
			r.Capacity = rr.Capacity
		}
		if !divided && def("pieces_by") {
			p.errAt(key("pieces_by"), "pieces_by applies to a resource divided into units (give units and unit_capacity)")
		}
		out = append(out, r)
	}
	return out
}

func (p *parser) workloads(raw map[string]rawWorkload) map[string]Workload {
	out := map[string]Workload{}
	for _, name := range sortedKeys(raw) {
		if !p.checkName("workloads", name) {
			continue
		}
		out[name] = p.workload(name, raw[name])
	}
	return out
}

func (p *parser) workload(name string, rw rawWorkload) Workload {
	key := func(k ...string) []string { return append([]string{"workloads", name}, k...) }
	w := Workload{Name: name, Procs: rw.Procs}
	if p.md.IsDefined(key("streams")...) {
		for _, k := range []string{"trace", "sha256", "generator", "params", "procs", "clean", "transform", "transform_params", "feedback", "session_threshold", "unknown_wait",
			"format", "tres", "constraints", "unknown_partition", "groups", "priority"} {
			if p.md.IsDefined(key(k)...) {
				p.errAt(key(k), "a workload of streams has no %s of its own: its streams' workloads have theirs", k)
			}
		}
		if w.Streams = p.streams(name, rw.Streams); len(w.Streams) == 0 {
			p.errAt(key("streams"), "a workload of streams needs at least one stream")
		}
		if p.md.IsDefined(key("seed_name")...) {
			if validName(rw.SeedName) {
				w.SeedName = rw.SeedName
			} else {
				p.errAt(key("seed_name"), "%q is not a valid name (%s)", rw.SeedName, nameRule)
			}
		}
		w.Clean, _ = workload.Clean{}.Resolved()
		w.Feedback, _ = workload.Feedback{}.Resolved()
		return w
	}
	hasTrace, hasGen := p.md.IsDefined(key("trace")...), p.md.IsDefined(key("generator")...)
	switch {
	case hasTrace && hasGen:
		p.errAt(key("generator"), "a workload has either a trace or a generator, not both")
	case !hasTrace && !hasGen:
		p.errAt(key(), "set trace (an SWF file) or generator")
	}
	if rw.Procs < 0 {
		p.errAt(key("procs"), "must be 0 (from the trace header) or a positive number of processors, got %d", rw.Procs)
	}
	if hasTrace {
		if rw.Trace == "" {
			p.errAt(key("trace"), "must not be empty")
		}
		w.Trace = p.path(rw.Trace)
		if strings.HasPrefix(rw.Trace, pwa.Scheme) {
			// A log of the archive by name: its sha256 is the table's.
			w.Trace = rw.Trace
			l, err := pwa.Cache{}.Lookup(rw.Trace)
			switch {
			case err != nil:
				p.errAt(key("trace"), "%v", err)
			case !p.md.IsDefined(key("sha256")...):
				w.SHA256 = l.SHA256
			case strings.ToLower(rw.SHA256) != l.SHA256:
				p.errAt(key("sha256"), "%s has sha256 %s in schedlab's table of the archive's logs, not %s", rw.Trace, l.SHA256, rw.SHA256)
			default:
				w.SHA256 = l.SHA256
			}
			if p.md.IsDefined(key("params")...) {
				p.errAt(key("params"), "parameters belong to generators; a trace has none")
			}
			return p.finishWorkload(w, key, rw, hasTrace, hasGen)
		}
		switch {
		case !p.md.IsDefined(key("sha256")...):
			// The digest of the file, when it can be read, is the line to
			// paste: a trace of one's own has no SOURCES.md to copy it from.
			if sum, err := workload.SHA256(w.Trace); err == nil {
				p.errAt(key(), "a trace needs its sha256, of its uncompressed bytes: add the line sha256 = %q (schedlab workload hash %s prints it)", sum, rw.Trace)
			} else {
				p.errAt(key(), "a trace needs its sha256, of its uncompressed bytes (schedlab workload hash FILE prints it)")
			}
		case !isSHA256(rw.SHA256):
			p.errAt(key("sha256"), "%q is not a sha256: 64 hexadecimal digits", rw.SHA256)
		default:
			w.SHA256 = strings.ToLower(rw.SHA256)
		}
		if p.md.IsDefined(key("params")...) {
			p.errAt(key("params"), "parameters belong to generators; a trace has none")
		}
	}
	return p.finishWorkload(w, key, rw, hasTrace, hasGen)
}

// finishWorkload reads what a workload has beside its trace.
func (p *parser) finishWorkload(w Workload, key func(k ...string) []string, rw rawWorkload, hasTrace, hasGen bool) Workload {
	if hasGen && !hasTrace {
		if p.md.IsDefined(key("sha256")...) {
			p.errAt(key("sha256"), "only a trace has a sha256; a generated workload is identified by its generator and parameters")
		}
		if rw.Procs < 1 {
			p.errAt(key(), "a generated workload needs procs, its platform size (at least 1)")
		}
		w.Generator = rw.Generator
		i := slices.IndexFunc(p.gens, func(g Generator) bool { return g.Name == rw.Generator })
		if i < 0 {
			names := generatorNames(p.gens)
			known := "none yet"
			if len(names) > 0 {
				known = strings.Join(names, ", ")
			}
			p.errAt(key("generator"), "unknown generator %q (known: %s)", rw.Generator, known)
		} else {
			g := p.gens[i]
			given := p.values(key("params"), rw.Params)
			resolved, err := sdk.ResolveParams(g.Params, given)
			if err != nil {
				p.errAt(key("params"), "generator %s: %v", g.Name, err)
			}
			w.Params = resolved.Values()
			for _, par := range g.Params {
				if slices.Contains(g.Optional, par.Name) && w.Params[par.Name] == par.Default {
					delete(w.Params, par.Name)
				}
			}
		}
	}
	w.Clean = p.clean(key("clean"), rw.Clean)
	w.Feedback = p.feedback(key, rw)
	if p.logFormat(&w, key, rw, hasTrace) {
		w.Log.Partitions = p.logPartitions(w.Name, rw.Partitions)
	} else {
		w.Partitions = p.workloadPartitions(w.Name, rw.Partitions)
	}
	p.transform(&w, key(), rw)
	if p.md.IsDefined(key("seed_name")...) {
		if validName(rw.SeedName) {
			w.SeedName = rw.SeedName
		} else {
			p.errAt(key("seed_name"), "%q is not a valid name (%s)", rw.SeedName, nameRule)
		}
	}
	return w
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// feedback reads the workload's feedback settings, naming the key at fault.
func (p *parser) feedback(key func(k ...string) []string, rw rawWorkload) workload.Feedback {
	f := workload.Feedback{Mode: rw.Feedback, Threshold: rw.SessionThreshold, UnknownWait: rw.UnknownWait}
	if p.md.IsDefined(key("feedback")...) && rw.Feedback == "" {
		p.errAt(key("feedback"), "must not be empty: %s, %s or %s", workload.FeedbackNone, workload.FeedbackSWF, workload.FeedbackSessions)
	}
	if p.md.IsDefined(key("session_threshold")...) && rw.SessionThreshold == 0 {
		p.errAt(key("session_threshold"), "must be a positive number of seconds (leave it out for the default, %d)", workload.DefaultSessionThreshold)
	}
	r, err := f.Resolved()
	if err != nil {
		k := key("feedback")
		switch {
		case strings.HasPrefix(err.Error(), workload.SettingSessionThreshold):
			k = key("session_threshold")
		case strings.HasPrefix(err.Error(), workload.SettingUnknownWait):
			k = key("unknown_wait")
		}
		p.errAt(k, "%v", err)
	}
	return r
}

// clean applies the cleaning settings; '_' in a setting name is read as
// '-', so that nonpositive_runtime matches the manifest's other keys.
func (p *parser) clean(key []string, raw map[string]string) workload.Clean {
	var c workload.Clean
	seen := map[string]string{}
	for _, k := range sortedKeys(raw) {
		name := strings.ReplaceAll(k, "_", "-")
		kk := append(slices.Clone(key), k)
		if prev, dup := seen[name]; dup {
			p.errAt(kk, "sets cleaning setting %s again (already set as %s)", name, prev)
			continue
		}
		seen[name] = k
		if workload.Allowed(name) == nil {
			p.errAt(kk, "unknown cleaning setting%s", hint(name, workload.SettingNames()))
			continue
		}
		if err := c.Set(name, raw[k]); err != nil {
			p.errAt(kk, "%v", err)
		}
	}
	c, err := c.Resolved()
	if err != nil { // cannot happen: every value went through Set
		p.errAt(key, "%v", err)
	}
	return c
}

// values converts a table of parameter values to strings.
func (p *parser) values(key []string, raw map[string]any) map[string]string {
	out := make(map[string]string, len(raw))
	for _, k := range sortedKeys(raw) {
		kk := append(slices.Clone(key), k)
		if !validName(k) {
			p.errAt(kk, "%q is not a valid parameter name (%s)", k, nameRule)
			continue
		}
		s, err := scalar(raw[k])
		if err != nil {
			p.errAt(kk, "%v", err)
			continue
		}
		out[k] = s
	}
	return out
}

// scalar returns the canonical string of a TOML value: strings as they
// are, integers in decimal, floats in the shortest form that reads back
// to the same float64 (strconv 'g': 0.5, 2, 1e+06), booleans as true or
// false. Arrays, tables and dates are errors.
func scalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case map[string]any:
		return "", errors.New("a table is not a value: write a string, integer, float or boolean")
	case []any, []map[string]any:
		return "", errors.New("an array is not a value here: write a string, integer, float or boolean")
	}
	// The TOML date and time types.
	return "", errors.New("a date or time is not a value: write a string, integer, float or boolean")
}

func (p *parser) policies(raw map[string]rawPolicy) map[string]Policy {
	out := map[string]Policy{}
	for _, name := range sortedKeys(raw) {
		if !p.checkName("policies", name) {
			continue
		}
		rp := raw[name]
		key := []string{"policies", name}
		pol := Policy{Name: name, Ref: rp.Ref, Params: p.values(append(slices.Clone(key), "params"), rp.Params),
			FreshProcess: rp.FreshProcess, Cost: 1}
		if rp.Cost != nil {
			var c float64
			switch x := rp.Cost.(type) {
			case int64:
				c = float64(x)
			case float64:
				c = x
			}
			if c > 0 && !math.IsInf(c, 1) {
				pol.Cost = c
			} else {
				p.errAt(append(slices.Clone(key), "cost"), "must be a positive number (the policy's cost per job relative to the others, which balances shards), not %v", rp.Cost)
			}
		}
		switch ref := rp.Ref; {
		case !p.md.IsDefined("policies", name, "ref"):
			p.errAt(key, "ref is required: a reference policy (%s), a plugin binary or a Go package path", strings.Join(reference.Names(), ", "))
		case ref == "":
			p.errAt(append(key, "ref"), "must not be empty")
		case isReference(ref):
			pol.Kind, pol.Target = RefReference, ref
		case isPath(ref):
			pol.Kind, pol.Target = RefPath, p.path(ref)
		case strings.Contains(ref, "/"):
			pol.Kind, pol.Target = RefImport, ref
		default:
			p.errAt(append(key, "ref"), "%q is not a reference policy (%s)%s; write ./%s for a plugin binary or Go package next to the manifest",
				ref, strings.Join(reference.Names(), ", "), DidYouMean(ref, reference.Names()), ref)
		}
		out[name] = pol
	}
	return out
}

// DidYouMean returns " (did you mean X?)" when got is a likely misspelling
// of the known name X, else "".
func DidYouMean(got string, known []string) string {
	if s := suggest(got, known); s != "" {
		return fmt.Sprintf(" (did you mean %s?)", s)
	}
	return ""
}

func isReference(ref string) bool {
	_, ok := reference.Lookup(ref)
	return ok
}

func isPath(ref string) bool {
	return ref == "." || ref == ".." || strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "../") ||
		filepath.IsAbs(filepath.FromSlash(ref))
}

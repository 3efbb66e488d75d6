package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// bbBase has a burst-buffer platform (line 3 on), a trace workload with the
// burst-buffer transform and a policy; tests append or replace lines.
const bbBase = `[campaign]
seed = 7
[platforms.kth-bb]
procs = 96
[platforms.kth-bb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[platforms.kth-bb.resources.lic]
capacity = 5
[workloads.w]
trace = "a.swf"
sha256 = "` + sha + `"
procs = 96
transform = "burst-buffer-lognormal"
[policies.p]
ref = "fcfs"
[policies.q]
ref = "easy"
[matrix]
workload = ["w"]
platform = ["kth-bb"]
policy = ["p", "q"]
`

func TestResources(t *testing.T) {
	m := mustParse(t, bbBase)
	pl := m.Platforms["kth-bb"]
	want := []Resource{
		{Name: "bb", Capacity: 480_000_000_000, Units: 12, UnitCapacity: 40_000_000_000, PiecesBy: "procs"},
		{Name: "lic", Capacity: 5},
	}
	if !reflect.DeepEqual(pl.Resources, want) {
		t.Errorf("resources %+v, want %+v", pl.Resources, want)
	}
	sp := pl.SDK()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	units := make([]int64, 12)
	for i := range units {
		units[i] = 40_000_000_000
	}
	wantSDK := &sdk.Platform{Name: "kth-bb", Resources: []string{"procs", "bb", "lic"}, Clusters: []sdk.Cluster{{
		Name: "kth-bb", Capacity: sdk.Vector{96, 480_000_000_000, 5},
		Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: units}}}}}
	if !reflect.DeepEqual(sp, wantSDK) {
		t.Errorf("SDK platform %+v, want %+v", sp, wantSDK)
	}
	// Resource order is by name whatever the order written, and pieces may
	// be counted by another resource.
	m = mustParse(t, strings.Replace(bbBase, "[platforms.kth-bb.resources.lic]\ncapacity = 5\n",
		"[platforms.kth-bb.resources.a_nodes]\ncapacity = 24\n", 1)+"")
	m2 := mustParse(t, strings.Replace(strings.Replace(bbBase, "[platforms.kth-bb.resources.lic]\ncapacity = 5\n", "", 1),
		"procs = 96\n[platforms.kth-bb.resources.bb]\n", "procs = 96\n[platforms.kth-bb.resources.z]\ncapacity = 1\n[platforms.kth-bb.resources.bb]\npieces_by = \"z\"\n", 1))
	if got := m.Platforms["kth-bb"].SDK().Resources; !reflect.DeepEqual(got, []string{"procs", "a_nodes", "bb"}) {
		t.Errorf("order %v", got)
	}
	sp2 := m2.Platforms["kth-bb"].SDK()
	if got := sp2.Resources; !reflect.DeepEqual(got, []string{"procs", "bb", "z"}) || sp2.Clusters[0].Units[0].PiecesBy != 2 {
		t.Errorf("pieces by z: %v %+v", got, sp2.Clusters[0].Units)
	}
	if w := m.Workloads["w"]; w.Transform != TransformBurstBuffer || w.TransformParams["resource"] != "bb" ||
		w.TransformParams["s"] != "1.0972516604048774" || w.TransformParams["max_bytes"] != "0" {
		t.Errorf("transform %s %v", w.Transform, w.TransformParams)
	}
}

// TestResourceErrors: every bad combination is an error naming the file,
// the line and the key.
func TestResourceErrors(t *testing.T) {
	platform := func(res string) string {
		return "[campaign]\nseed = 7\n[platforms.x]\nprocs = 4\n" + res +
			"[workloads.w]\ntrace = \"a.swf\"\nsha256 = \"" + sha + "\"\n[policies.p]\nref = \"fcfs\"\n[matrix]\nworkload = [\"w\"]\nplatform = [\"x\"]\npolicy = [\"p\"]\n"
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown key", platform("[platforms.x.resources.bb]\nunits = 2\nunit_capacty = 5\n"),
			"m.toml:7: unknown key platforms.x.resources.bb.unit_capacty (did you mean unit_capacity?)"},
		{"unknown platform key", platform("resource = 1\n"),
			"m.toml:5: unknown key platforms.x.resource (did you mean resources?)"},
		{"not a table", platform("[platforms.x.resources]\nbb = 5\n"),
			"m.toml:6: platforms.x.resources.bb: must be a table, not an integer"},
		{"both capacity and units", platform("[platforms.x.resources.bb]\ncapacity = 10\nunits = 2\nunit_capacity = 5\n"),
			"m.toml:6: platforms.x.resources.bb.capacity: give either capacity (a pooled resource) or units and unit_capacity"},
		{"units without capacity", platform("[platforms.x.resources.bb]\nunits = 2\n"),
			"m.toml:6: platforms.x.resources.bb.units: units needs unit_capacity"},
		{"unit capacity without units", platform("[platforms.x.resources.bb]\nunit_capacity = 2\n"),
			"m.toml:6: platforms.x.resources.bb.unit_capacity: unit_capacity needs units"},
		{"nothing", platform("[platforms.x.resources.bb]\n"),
			"m.toml:5: platforms.x.resources.bb: set capacity (a pooled resource), or units and unit_capacity"},
		{"zero units", platform("[platforms.x.resources.bb]\nunits = 0\nunit_capacity = 5\n"),
			"m.toml:6: platforms.x.resources.bb.units: must be between 1 and 2147483647, got 0"},
		{"negative unit capacity", platform("[platforms.x.resources.bb]\nunits = 2\nunit_capacity = -5\n"),
			"m.toml:7: platforms.x.resources.bb.unit_capacity: must be at least 1, got -5"},
		{"overflow", platform("[platforms.x.resources.bb]\nunits = 4\nunit_capacity = 4_000_000_000_000_000_000\n"),
			"m.toml:7: platforms.x.resources.bb.unit_capacity: 4 units of 4000000000000000000 overflow a 64-bit capacity"},
		{"zero capacity", platform("[platforms.x.resources.bb]\ncapacity = 0\n"),
			"m.toml:6: platforms.x.resources.bb.capacity: must be at least 1, got 0"},
		{"pieces_by on a pooled resource", platform("[platforms.x.resources.bb]\ncapacity = 3\npieces_by = \"procs\"\n"),
			"m.toml:7: platforms.x.resources.bb.pieces_by: pieces_by applies to a resource divided into units"},
		{"pieces_by unknown", platform("[platforms.x.resources.bb]\nunits = 2\nunit_capacity = 5\npieces_by = \"proc\"\n"),
			"m.toml:8: platforms.x.resources.bb.pieces_by: \"proc\" is not another resource of platform x (did you mean procs?)"},
		{"pieces_by itself", platform("[platforms.x.resources.bb]\nunits = 2\nunit_capacity = 5\npieces_by = \"bb\"\n"),
			"m.toml:8: platforms.x.resources.bb.pieces_by: \"bb\" is not another resource of platform x (known: procs)"},
		{"pieces_by a string", platform("[platforms.x.resources.bb]\nunits = 2\nunit_capacity = 5\npieces_by = 1\n"),
			"m.toml:8: platforms.x.resources.bb.pieces_by: must be a string, not an integer"},
		{"procs is not a resource", platform("[platforms.x.resources.procs]\ncapacity = 3\n"),
			"m.toml:5: platforms.x.resources.procs: \"procs\" is not a valid resource name"},
		{"resource name", platform("[platforms.x.resources.\"b-b\"]\ncapacity = 3\n"),
			"m.toml:5: platforms.x.resources.b-b: \"b-b\" is not a valid resource name"},
		{"capacity a string", platform("[platforms.x.resources.bb]\ncapacity = \"40GB\"\n"),
			"m.toml:6: platforms.x.resources.bb.capacity: must be an integer, not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant a line starting\n%s", err, tc.want)
			}
			var es Errors
			if !asErrors(err, &es) || es[0].Line == 0 {
				t.Errorf("error has no line: %#v", err)
			}
		})
	}
}

func asErrors(err error, es *Errors) bool {
	e, ok := err.(Errors)
	*es = e
	return ok && len(e) > 0
}

func TestTransformErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"unknown transform", `transform = "burst-buffer-lognormal"`, `transform = "burst-buffer-lognormale"`,
			"m.toml:14: workloads.w.transform: unknown transform \"burst-buffer-lognormale\" (did you mean burst-buffer-lognormal?)"},
		{"params without transform", `transform = "burst-buffer-lognormal"`, `transform_params = { s = 1 }`,
			"m.toml:14: workloads.w.transform_params: transform parameters without a transform (known: burst-buffer-io, burst-buffer-lognormal, estimates-f, estimates-tsafrir)"},
		{"unknown parameter", `transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\ntransform_params = { shape = 1 }",
			"m.toml:15: workloads.w.transform_params.shape: transform burst-buffer-lognormal: unknown parameter \"shape\""},
		{"ill-typed parameter", `transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\n[workloads.w.transform_params]\nmin_bytes = 1.5",
			"m.toml:16: workloads.w.transform_params.min_bytes: transform burst-buffer-lognormal: parameter \"min_bytes\": \"1.5\" is not a valid int"},
		{"table value", `transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\n[workloads.w.transform_params]\ns = { a = 1 }",
			"m.toml:16: workloads.w.transform_params.s: a table is not a value"},
		{"resource not on the platform", `transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\ntransform_params = { resource = \"disk\" }",
			"m.toml:14: workloads.w.transform: burst-buffer-lognormal on platform kth-bb: platform kth-bb has no resource \"disk\""},
		{"bad model", `transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\ntransform_params = { s = -1 }",
			"m.toml:14: workloads.w.transform: burst-buffer-lognormal on platform kth-bb: shape s must be positive"},
		{"no platform axis", "platform = [\"kth-bb\"]\n", "",
			"m.toml:14: workloads.w.transform: burst-buffer-lognormal without a platform axis (processors only): platform w has no resource \"bb\""},
		{"the processors", `transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\ntransform_params = { resource = \"procs\" }",
			"resource \"procs\" is the processors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(bbBase, tc.old, tc.new, 1)
			_, err := parse(t, src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant\n%s\nin\n%s", err, tc.want, src)
			}
		})
	}
}

// quickstartSpecs are the sha256 of the quickstart runs' specs before
// platforms had resources and workloads transforms: they must not change.
var quickstartSpecs = map[string]string{
	"workload=kth policy=fcfs estimates=requested param.order=submit replicate=0":            "03eead46763d142939c0acebb44c2cfc586d94b80e7d03bdfbaf5fdfb8957fe0",
	"workload=kth policy=fcfs estimates=requested param.order=shortest replicate=0":          "9fc1abd6f628a274773c8a4b689488c804ced22dfe79754a4fb811ceccfcb731",
	"workload=kth policy=easy estimates=requested param.order=submit replicate=0":            "ad561e18d267fa6aa9967a31fe793a659af00c356e69675918d091cd9c6bec7b",
	"workload=kth policy=easy estimates=requested param.order=shortest replicate=0":          "82514e8dc60abbcee6954340ce2a19bde7fc208a4c66419b4a3503acb0fbc924",
	"workload=kth policy=conservative estimates=requested param.order=submit replicate=0":    "580c0b13ecf53c5628c7adae79203b9c4721f26abbedaaeffbaf15135ac26ff3",
	"workload=kth policy=conservative estimates=requested param.order=shortest replicate=0":  "d5adcb06ba181395f9f21aed8bed5ecc1785333d94c286cb73606683bf0e9c2f",
	"workload=nasa policy=fcfs estimates=requested param.order=submit replicate=0":           "8450688a270d232f1202b7e58f6287b4cf3225466528962adad5f7f5da0da4a1",
	"workload=nasa policy=fcfs estimates=requested param.order=shortest replicate=0":         "4300fcb079a9cd1aafba250d08aec725e6efbead760b14f49a97b2ee972aefb2",
	"workload=nasa policy=easy estimates=requested param.order=submit replicate=0":           "b858254da13449dc3413af5a355150dce745cdc29ec898fab82e26ea54d33b1c",
	"workload=nasa policy=easy estimates=requested param.order=shortest replicate=0":         "d45397e3338b6353a3fef8168e43cb71f17844171602c1ffb4c99dff0894676e",
	"workload=nasa policy=conservative estimates=requested param.order=submit replicate=0":   "2a4ee479771dc1022eccc2aa89507ea32d0cf00102bb93f4dbe702a5f6796a5e",
	"workload=nasa policy=conservative estimates=requested param.order=shortest replicate=0": "5020064dada3f8de7849ab202343a86661d5ac850bf15d8a91d95b380f4a6f08",
}

// TestSpecsStable: the quickstart's specs, and the spec of a run on a
// platform of processors only, are what they were before resources and
// transforms existed, so their run keys and results stay valid.
func TestSpecsStable(t *testing.T) {
	m, err := Load(filepath.Join("..", "..", "experiments", "quickstart.toml"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		sum := sha256.Sum256(r.Spec(m))
		if got, want := hex.EncodeToString(sum[:]), quickstartSpecs[r.Label()]; got != want {
			t.Errorf("%s: spec sha256 %s, was %s", r.Label(), got, want)
		}
	}
	_, runs = mustExpand(t, base+"[platforms.small]\nprocs = 64\n[matrix]\nworkload = [\"a\"]\nplatform = [\"small\"]\npolicy = [\"p\"]\n")
	m = mustParse(t, base+"[platforms.small]\nprocs = 64\n[matrix]\nworkload = [\"a\"]\nplatform = [\"small\"]\npolicy = [\"p\"]\n")
	const was = `{"estimates":"requested","master_seed":7,"metrics":{"bsld_tau":10,"cooldown_jobs":0,"warmup_jobs":0},"platform":{"name":"small","procs":64},"policy":{"kind":"reference","name":"p","params":{},"ref":"fcfs"},"replicate":0,"schema":"schedlab.run/1","workload":{"clean":{"missing-walltime":"runtime","nonpositive-runtime":"drop","oversize":"drop","procs":"requested-else-allocated"},"name":"a","procs":0,"sha256":"` + sha + `"}}`
	if got := string(runs[0].Spec(m)); got != was {
		t.Errorf("spec of a platform of processors only changed:\n%s\nwas\n%s", got, was)
	}
}

// TestSpecResources: a run's spec, hence its key, changes with its
// platform's resources and its workload's transform, and does not change
// when a default is spelled out.
func TestSpecResources(t *testing.T) {
	specs := func(src string) []string {
		m, runs := mustExpand(t, src)
		var out []string
		for _, r := range runs {
			out = append(out, string(r.Spec(m)))
		}
		return out
	}
	orig := specs(bbBase)
	if !strings.Contains(orig[0], `"resources":[{"capacity":480000000000,"name":"bb","pieces_by":"procs","unit_capacity":40000000000,"units":12},{"capacity":5,"name":"lic"}]`) ||
		!strings.Contains(orig[0], `"transform":{"name":"burst-buffer-lognormal","params":{"loc":"-150361.59523836235","max_bytes":"0","min_bytes":"100000000","resource":"bb","s":"1.0972516604048774","scale":"2.7141155724594607e+06","short_bytes":"10000000","short_walltime":"120","x_bytes":"1024"}}`) {
		t.Errorf("spec %s", orig[0])
	}
	same := map[string][2]string{
		"pieces_by spelled out":  {"units = 12\n", "units = 12\npieces_by = \"procs\"\n"},
		"default parameter":      {`transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\ntransform_params = { resource = \"bb\", s = 1.0972516604048774, min_bytes = 100_000_000 }"},
		"a number as a string":   {`transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\ntransform_params = { short_walltime = \"0120\" }"},
		"resources in any order": {"[platforms.kth-bb.resources.bb]\nunits = 12\nunit_capacity = 40_000_000_000\n[platforms.kth-bb.resources.lic]\ncapacity = 5\n", "[platforms.kth-bb.resources.lic]\ncapacity = 5\n[platforms.kth-bb.resources.bb]\nunits = 12\nunit_capacity = 40_000_000_000\n"},
	}
	differ := map[string][2]string{
		"unit capacity":     {"unit_capacity = 40_000_000_000", "unit_capacity = 40_000_000_001"},
		"units":             {"units = 12\nunit_capacity = 40_000_000_000", "units = 24\nunit_capacity = 20_000_000_000"},
		"pooled":            {"units = 12\nunit_capacity = 40_000_000_000", "capacity = 480_000_000_000"},
		"pooled capacity":   {"capacity = 5", "capacity = 6"},
		"pieces_by":         {"units = 12\n", "units = 12\npieces_by = \"lic\"\n"},
		"transform param":   {`transform = "burst-buffer-lognormal"`, "transform = \"burst-buffer-lognormal\"\ntransform_params = { s = 1.1 }"},
		"no transform":      {"transform = \"burst-buffer-lognormal\"\n", ""},
		"another resource":  {"[platforms.kth-bb.resources.lic]\n", "[platforms.kth-bb.resources.disk]\ncapacity = 1\n[platforms.kth-bb.resources.lic]\n"},
		"resource renamed":  {"[platforms.kth-bb.resources.lic]", "[platforms.kth-bb.resources.lic2]"},
		"no bb (no units)":  {"transform = \"burst-buffer-lognormal\"\n", "transform = \"burst-buffer-lognormal\"\ntransform_params = { resource = \"lic\" }\n"},
		"platform procs":    {"procs = 96\n[platforms", "procs = 97\n[platforms"},
		"unit count halved": {"units = 12\nunit_capacity = 40_000_000_000", "units = 6\nunit_capacity = 80_000_000_000"},
	}
	for name, e := range same {
		if got := specs(strings.Replace(bbBase, e[0], e[1], 1)); !reflect.DeepEqual(got, orig) {
			t.Errorf("%s changes the spec:\n%s\n%s", name, got[0], orig[0])
		}
	}
	for name, e := range differ {
		src := strings.Replace(bbBase, e[0], e[1], 1)
		if src == bbBase {
			t.Fatalf("%s: edit did not apply", name)
		}
		if got := specs(src); got[0] == orig[0] || got[1] == orig[1] {
			t.Errorf("%s leaves the spec unchanged", name)
		}
	}
}

// TestTransformSeeds: the transform's seed is shared by every policy of a
// replicate and differs between replicates and from the workload seed.
func TestTransformSeeds(t *testing.T) {
	m, runs := mustExpand(t, strings.Replace(bbBase, "seed = 7", "seed = 7\nreplicates = 3", 1))
	byRep := map[int]uint64{}
	for _, r := range runs {
		s := r.Seeds(m)
		if prev, ok := byRep[r.Replicate]; ok && prev != s.Transform {
			t.Errorf("%s: transform seed %d, another policy of the replicate has %d", r.Label(), s.Transform, prev)
		}
		byRep[r.Replicate] = s.Transform
		if s.Transform == s.Workload || s.Transform != DeriveSeed(7, StreamWorkload, "w", strconv.Itoa(r.Replicate), "transform") {
			t.Errorf("%s: transform seed %d", r.Label(), s.Transform)
		}
	}
	if len(byRep) != 3 || byRep[0] == byRep[1] || byRep[1] == byRep[2] || byRep[0] == byRep[2] {
		t.Errorf("transform seeds by replicate %v", byRep)
	}
}

// TestLockRoundTripResources: the lock file spells out resources and the
// transform; read back, the runs have the same specs and seeds.
func TestLockRoundTripResources(t *testing.T) {
	m := mustParse(t, strings.Replace(bbBase, `transform = "burst-buffer-lognormal"`,
		"transform = \"burst-buffer-lognormal\"\ntransform_params = { s = 1.5, short_walltime = -1 }", 1))
	runs, _ := m.Expand()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := m.WriteLock(&b, dir, Lock{Schedlab: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[platforms.kth-bb.resources.bb]\nunits = 12\nunit_capacity = 40000000000\npieces_by = \"procs\"\n",
		"[platforms.kth-bb.resources.lic]\ncapacity = 5\n", "transform = \"burst-buffer-lognormal\"\ntransform_params = { loc = "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lock lacks %q:\n%s", want, b.String())
		}
	}
	path := filepath.Join(dir, "manifest.lock.toml")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	runs2, _ := m2.Expand()
	for i := range runs {
		if string(runs[i].Spec(m)) != string(runs2[i].Spec(m2)) || runs[i].Seeds(m) != runs2[i].Seeds(m2) {
			t.Errorf("run %d changed:\n%s\n%s", i, runs[i].Spec(m), runs2[i].Spec(m2))
		}
	}
	if !reflect.DeepEqual(m.Platforms, m2.Platforms) || !reflect.DeepEqual(m.Workloads["w"].TransformParams, m2.Workloads["w"].TransformParams) {
		t.Errorf("platforms or transform differ after the round trip")
	}
}

// TestDocBurstBufferExample parses the burst-buffer example of
// docs/manifest.md (with a [campaign] table added) as if it were in
// experiments/.
func TestDocBurstBufferExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "manifest.md"))
	if err != nil {
		t.Fatal(err)
	}
	var block string
	for _, b := range strings.Split(string(doc), "```toml\n")[1:] {
		if b, _, _ = strings.Cut(b, "```"); strings.Contains(b, "burst-buffer-lognormal") {
			block = b
		}
	}
	if block == "" {
		t.Fatal("no burst-buffer toml block in docs/manifest.md")
	}
	m, err := Parse("experiments/bb.toml", []byte("[campaign]\nseed = 1\n"+block), filepath.Join("..", "..", "experiments"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Workloads["kth-bb"].Trace); err != nil {
		t.Error(err)
	}
	if r := m.Platforms["kth-bb"].Resources; len(r) != 1 || r[0].Capacity != 480_000_000_000 || r[0].PiecesBy != "procs" {
		t.Errorf("resources %+v", r)
	}
}

// TestNodesWithResources: a platform of nodes takes resources beside its
// nodes, after the nodes' own in the SDK platform (procs, then mem where
// the nodes have memory, then the resources by name), with the units of a
// divided one; memory and GPUs are the nodes' and are refused by key.
func TestNodesWithResources(t *testing.T) {
	src := strings.Replace(bbBase, "[platforms.kth-bb]\nprocs = 96\n",
		"[platforms.kth-bb]\n[platforms.kth-bb.nodes.a]\ncount = 48\ncores = 2\nmemory = \"4GiB\"\n", 1)
	m := mustParse(t, src)
	sp := m.Platforms["kth-bb"].SDK()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	c := sp.Clusters[0]
	if !reflect.DeepEqual(sp.Resources, []string{"procs", sdk.Memory, "bb", "lic"}) || c.Capacity[0] != 96 ||
		c.Capacity[2] != 480_000_000_000 || c.Capacity[3] != 5 || len(c.Units) != 1 || c.Units[0].Resource != 2 ||
		c.Units[0].PiecesBy != 0 || len(c.Units[0].Capacity) != 12 || !c.HasNodes() {
		t.Fatalf("SDK platform %+v %+v", sp.Resources, c)
	}
	// The I/O model beside nodes and a power model, but not with outages.
	withIO := src + "[platforms.kth-bb.io]\nfs_bandwidth = \"5000 MB/s\"\nunit_bandwidth = \"1250 MB/s\"\n"
	if io := mustParse(t, withIO).Platforms["kth-bb"].IO; io == nil || io.FSBandwidth != 5e9 || io.Resource != 2 {
		t.Errorf("I/O model beside nodes: %+v", io)
	}
	withPower := mustParse(t, withIO+"[platforms.kth-bb.power]\nidle = 95\nfull = 190\n").Platforms["kth-bb"]
	if withPower.IO == nil || withPower.Power == nil || withPower.Power.Groups[0][0].Full != 190 {
		t.Errorf("I/O model beside a power model: %+v %+v", withPower.IO, withPower.Power)
	}
	_, err := parse(t, withIO+"[platforms.kth-bb.outages]\nfailure_model = \"exponential\"\nmtbf = \"100h\"\n")
	if want := "platforms.kth-bb.io: an I/O model with outages of nodes is not supported yet"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("I/O model with outages: %v, want %s", err, want)
	}
	for _, name := range []string{sdk.Memory, sdk.GPUs} {
		bad := strings.Replace(src, "[platforms.kth-bb.resources.lic]", "[platforms.kth-bb.resources."+name+"]", 1)
		_, err := parse(t, bad)
		want := "m.toml:11: platforms.kth-bb.resources." + name + ": " + name + " is what nodes hold"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("resource %s beside nodes: %v, want %s", name, err, want)
		}
	}
}

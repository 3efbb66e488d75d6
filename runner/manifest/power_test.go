package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// powerBase is base with a platform of two node groups whose power table
// the tests write, and a matrix.
func powerBase(power string) string {
	return base + "[platforms.m]\n[platforms.m.nodes.a]\ncount = 4\ncores = 2\n[platforms.m.nodes.b]\ncount = 2\ncores = 8\n[platforms.m.power]\n" + power +
		"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\nplatform = [\"m\"]\n"
}

// TestPowerSettings reads a power table with a group's overrides and a
// cap schedule, and checks the model and that it is in the run's spec.
func TestPowerSettings(t *testing.T) {
	m, runs := mustExpand(t, powerBase(`off = 5
idle = 90.5
full = 180
switch_on = "2m"
switch_on_energy = 12000
switch_off = 30
switch_off_energy = 1500
[[platforms.m.power.caps]]
from = 0
watts = 5000
[[platforms.m.power.caps]]
from = "1d"
watts = 0
[platforms.m.power.groups.b]
idle = 200
full = 600
`))
	got := m.Platforms["m"].Power
	a := sdk.NodePower{Off: 5, Idle: 90.5, Full: 180, OnSeconds: 120, OnJoules: 12000, OffSeconds: 30, OffJoules: 1500}
	b := a
	b.Idle, b.Full = 200, 600
	if got == nil || len(got.Groups) != 1 || !reflect.DeepEqual(got.Groups[0][0], a) || !reflect.DeepEqual(got.Groups[0][1], b) {
		t.Fatalf("model %+v", got)
	}
	if len(got.Caps) != 2 || got.Caps[1] != (sdk.CapStep{From: 86400, Watts: 0}) {
		t.Errorf("caps %+v", got.Caps)
	}
	spec := string(runs[0].Spec(m))
	for _, want := range []string{`"power":{"caps":[{"from":0,"watts":5000},{"from":86400,"watts":0}]`, `"idle":200,"name":"b"`, `"on_seconds":120`} {
		if !strings.Contains(spec, want) {
			t.Errorf("spec %s lacks %s", spec, want)
		}
	}
	if strings.Contains(spec, `"busy"`) {
		t.Errorf("a linear model's spec names a busy table: %s", spec)
	}
	// A busy power table: the platform's for group a (2 cores), group b's
	// own (8 cores); full is the table's last entry, and the spec has it.
	m, runs = mustExpand(t, powerBase(`idle = 100
busy_watts = [150, 170]
[platforms.m.power.groups.b]
busy_watts = [110, 120, 130, 140, 150, 160, 170, 400.5]
`))
	got = m.Platforms["m"].Power
	if g := got.Groups[0]; !reflect.DeepEqual(g[0].Busy, []float64{150, 170}) || g[0].Full != 170 || len(g[1].Busy) != 8 || g[1].Full != 400.5 {
		t.Errorf("busy tables %+v", g)
	}
	if spec := string(runs[0].Spec(m)); !strings.Contains(spec, `{"busy":[150,170],"full":170,"idle":100,"name":"a"`) {
		t.Errorf("spec %s lacks the busy table", spec)
	}
	// What a node out of service draws: off for group b alone; idle,
	// the default, leaves the spec as it was.
	m, runs = mustExpand(t, powerBase("idle = 1\nfull = 2\ndown = \"idle\"\n[platforms.m.power.groups.b]\ndown = \"off\"\n"))
	if g := m.Platforms["m"].Power.Groups[0]; g[0].Down != sdk.DownIdle || g[1].Down != sdk.DownOff {
		t.Errorf("down rules %q and %q", g[0].Down, g[1].Down)
	}
	if spec := string(runs[0].Spec(m)); strings.Count(spec, `"down"`) != 1 || !strings.Contains(spec, `"down":"off","full":2,"idle":1,"name":"b"`) {
		t.Errorf("spec %s: want the off rule for b alone", spec)
	}
	// A constant cap holds from before any job.
	m, _ = mustExpand(t, powerBase("idle = 1\nfull = 2\ncap = 1e4\n"))
	if c := m.Platforms["m"].Power.Caps; len(c) != 1 || c[0].From != -sim.MaxTime || c[0].Watts != 1e4 {
		t.Errorf("cap %+v", c)
	}
}

// TestPowerErrors checks that each bad power setting is refused, naming
// the file, line and key.
func TestPowerErrors(t *testing.T) {
	line := strings.Count(base, "\n") + 9 // the first line of the power table's settings
	at := func(k int) string { return "m.toml:" + strconv.Itoa(line+k) + ": platforms.m.power" }
	for _, tc := range []struct{ name, src, want string }{
		{"no idle", "full = 2\n", "platforms.m.power.idle: required: the idle power of node group \"a\""},
		{"negative", "idle = 100\nfull = 200\noff = -1\n", "off power or energy of -1"},
		{"full below idle", "idle = 100\nfull = 50\n", "full power 50 W below idle power 100 W"},
		{"negative switch", "idle = 100\nfull = 200\nswitch_on = -5\n", at(2) + ".switch_on: -5 seconds is negative"},
		{"energy without time", "idle = 100\nfull = 200\nswitch_off_energy = 10\n", "a switch of 0 s with an energy"},
		{"cap below idle", "idle = 100\nfull = 200\ncap = 500\n", "below the machine's idle draw of 600 W"},
		{"cap and caps", "idle = 1\nfull = 2\ncap = 100\n[[platforms.m.power.caps]]\nfrom = 0\nwatts = 100\n", "not both"},
		{"not a number", "idle = \"lots\"\nfull = 2\n", at(0) + ".idle: lots is not a finite number"},
		{"unknown group", "idle = 1\nfull = 2\n[platforms.m.power.groups.c]\nidle = 3\n", "\"c\" is not a node group"},
		{"group below idle", "idle = 1\nfull = 2\n[platforms.m.power.groups.b]\nfull = 0.5\n", "node group \"b\": full power 0.5 W below idle power 1 W"},
		{"unknown key", "idle = 1\nfull = 2\nstandby = 3\n", "standby"},
		{"down rule", "idle = 1\nfull = 2\ndown = \"dark\"\n", at(2) + `.down: dark: want "idle"`},
		{"busy table too short", "idle = 1\nbusy_watts = [2, 3]\n[platforms.m.power.groups.b]\nbusy_watts = [2, 3]\n",
			at(3) + ".groups.b.busy_watts: 2 powers for node group \"b\", whose nodes have 8 cores"},
		{"busy table for every group", "idle = 1\nbusy_watts = [2, 3]\n", at(1) + ".busy_watts: 2 powers for node group \"b\""},
		{"busy table negative", "idle = 0\nbusy_watts = [-2, 3]\n[platforms.m.power.groups.b]\nbusy_watts = [1, 1, 1, 1, 1, 1, 1, 1]\n",
			at(1) + ".busy_watts: entry 1 (1 cores in use) of -2 W for node group \"a\": want a power >= 0"},
		{"busy table below idle", "idle = 10\nbusy_watts = [20, 5]\n[platforms.m.power.groups.b]\nbusy_watts = [10, 10, 10, 10, 10, 10, 10, 10]\n",
			at(1) + ".busy_watts: entry 2 (2 cores in use) of 5 W"},
		{"busy table not a list", "idle = 1\nbusy_watts = 3\n", at(1) + ".busy_watts: want a list of powers"},
		{"busy table and full", "idle = 1\nfull = 4\nbusy_watts = [2, 3]\n[platforms.m.power.groups.b]\nbusy_watts = [1, 1, 1, 1, 1, 1, 1, 1]\n",
			at(1) + ".full: node group \"a\" has a busy power table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, powerBase(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	pool := base + "[platforms.m]\nprocs = 4\n[platforms.m.power]\nidle = 1\nfull = 2\n[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\nplatform = [\"m\"]\n"
	if _, err := parse(t, pool); err == nil || !strings.Contains(err.Error(), "a power model is of nodes") {
		t.Errorf("a pool with a power model: %v", err)
	}
}

// TestDocBusyTableExample parses the busy power table example of
// docs/manifest.md, with a workload, a policy and a matrix added.
func TestDocBusyTableExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "manifest.md"))
	if err != nil {
		t.Fatal(err)
	}
	var block string
	for _, b := range strings.Split(string(doc), "```toml\n")[1:] {
		if b, _, _ = strings.Cut(b, "```"); strings.Contains(b, "busy_watts") {
			block = b
		}
	}
	if block == "" {
		t.Fatal("no busy_watts toml block in docs/manifest.md")
	}
	m, _ := mustExpand(t, base+block+"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\nplatform = [\"quad\"]\n")
	if g := m.Platforms["quad"].Power.Groups[0][0]; !reflect.DeepEqual(g.Busy, []float64{130, 150, 180, 220}) || g.Full != 220 || g.Idle != 100 {
		t.Errorf("model %+v", g)
	}
}

package manifest

import (
	"strings"
	"testing"
)

// TestSacctSpec: a sacct log's format, settings (defaults filled in) and
// partitions table by name are in its runs' specs, so that the settings
// tell runs apart; and the run's node mapping carries them.
func TestSacctSpec(t *testing.T) {
	src := func(extra string) string {
		return `[campaign]
seed = 7
[platforms.n.nodes.a]
count = 2
cores = 4
[platforms.n.partitions.batch]
groups = ["a"]
[workloads.log]
trace = "c.sacct"
sha256 = "` + sha + `"
format = "sacct"
partitions = { general-compute = "batch" }
` + extra + `
[policies.p]
ref = "fcfs"
[matrix]
workload = ["log"]
platform = ["n"]
policy = ["p"]
`
	}
	cases := []struct {
		extra, want string
	}{
		{"", `"format":"sacct","log":{"constraints":"required","tres":"requested","unknown-partition":"default"}`},
		{`tres = "requested"`, `"format":"sacct","log":{"constraints":"required","tres":"requested","unknown-partition":"default"}`},
		{`tres = "allocated"` + "\n" + `constraints = "ignore"` + "\n" + `unknown_partition = "drop"`,
			`"format":"sacct","log":{"constraints":"ignore","tres":"allocated","unknown-partition":"drop"}`},
		// The default groups leave the spec as it was; accounts are in it.
		{`groups = "group"`, `"format":"sacct","log":{"constraints":"required","tres":"requested","unknown-partition":"default"}`},
		{`groups = "account"`, `"format":"sacct","log":{"constraints":"required","groups":"account","tres":"requested","unknown-partition":"default"}`},
		{`priority = "none"`, `"format":"sacct","log":{"constraints":"required","tres":"requested","unknown-partition":"default"}`},
		{`priority = "log"`, `"format":"sacct","log":{"constraints":"required","priority":"log","tres":"requested","unknown-partition":"default"}`},
	}
	for _, c := range cases {
		m, runs := mustExpand(t, src(c.extra))
		spec := string(runs[0].Spec(m))
		if !strings.Contains(spec, c.want) || !strings.Contains(spec, `"partitions":"general-compute=batch"`) {
			t.Errorf("%q: spec %s, want %s and the partitions table", c.extra, spec, c.want)
		}
		if g := m.Workloads["log"].Groups; (g == "account") != strings.Contains(c.extra, "account") {
			t.Errorf("%q: groups %q", c.extra, g)
		}
		s := runs[0].NodeMapping(m)
		if s == nil || s.Log == nil || s.Log.Partitions["general-compute"] != "batch" || !strings.Contains(c.want, `"tres":"`+s.Log.TRES+`"`) {
			t.Errorf("%q: node mapping %+v", c.extra, s)
		}
	}
	// A bad value, and the key on an SWF workload, are errors naming it.
	if _, err := parse(t, src(`groups = "qos"`)); err == nil || !strings.Contains(err.Error(), `workloads.log.groups: "qos": want "group"`) {
		t.Errorf("groups = qos: %v", err)
	}
	if _, err := parse(t, src(`priority = "sprio"`)); err == nil || !strings.Contains(err.Error(), `workloads.log.priority: "sprio": want "none"`) {
		t.Errorf("priority = sprio: %v", err)
	}
	swf := strings.Replace(src(`groups = "account"`), `format = "sacct"`+"\n"+`partitions = { general-compute = "batch" }`, "", 1)
	if _, err := parse(t, swf); err == nil || !strings.Contains(err.Error(), "workloads.log.groups: applies to a sacct log only") {
		t.Errorf("groups on an SWF workload: %v", err)
	}
	// An SWF workload's spec has neither.
	m, runs := mustExpand(t, strings.Replace(src(""), `format = "sacct"`+"\n"+`partitions = { general-compute = "batch" }`, "", 1))
	if spec := string(runs[0].Spec(m)); strings.Contains(spec, `"format"`) || strings.Contains(spec, `"log":{`) {
		t.Errorf("SWF spec %s", spec)
	}
}

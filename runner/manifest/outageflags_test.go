package manifest

import (
	"encoding/json"
	"testing"
)

// TestOutageFlagsAsTable reads outage flags and the manifest table with the
// same settings, and checks that both give the same spec.
func TestOutageFlagsAsTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags OutageFlags
		table string
	}{
		{"weibull and requeue last",
			OutageFlags{OnFailure: "requeue", Requeue: "last", FailureModel: "weibull", MTBF: "30d", WeibullShape: "0.7", Repair: "lognormal", MTTR: "4h", RepairSigma: "1", FailureHorizon: "400d"},
			"on_failure = \"requeue\"\nrequeue = \"last\"\nfailure_model = \"weibull\"\nmtbf = \"30d\"\nweibull_shape = 0.7\nrepair = \"lognormal\"\nmttr = \"4h\"\nrepair_sigma = 1.0\nfailure_horizon = \"400d\"\n"},
		{"daly checkpoints and windows",
			OutageFlags{OnFailure: "checkpoint", CheckpointInterval: "daly", CheckpointCost: "5m", RestartCost: "300", FailureModel: "exponential", MTBF: "10d", MTTR: "3600",
				Maintenance: "soft", Windows: []string{"1d,4h,7d", "3600, 60"}},
			"on_failure = \"checkpoint\"\ncheckpoint_interval = \"daly\"\ncheckpoint_cost = \"5m\"\nrestart_cost = 300\nfailure_model = \"exponential\"\nmtbf = \"10d\"\nmttr = 3600\nmaintenance = \"soft\"\n" +
				"[[platforms.m.outages.windows]]\nstart = \"1d\"\nduration = \"4h\"\nevery = \"7d\"\n[[platforms.m.outages.windows]]\nstart = 3600\nduration = 60\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.flags.Settings(4)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := mustExpand(t, outagesBase(tc.table))
			got, _ := json.Marshal(OutagesSpec(s))
			want, _ := json.Marshal(OutagesSpec(m.Platforms["m"].Outages))
			if string(got) != string(want) {
				t.Errorf("flags give %s\nthe table %s", got, want)
			}
			if !tc.flags.Set() {
				t.Error("Set is false")
			}
		})
	}
	if (&OutageFlags{}).Set() {
		t.Error("no flag, yet Set")
	}
}

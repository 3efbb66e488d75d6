package results

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPowerSeriesFile writes a power file and reads it back, refuses a jobs
// file as one, and names the power file of a jobs file of a campaign and
// of schedlab sim.
func TestPowerSeriesFile(t *testing.T) {
	dir := t.TempDir()
	cp := 400.0
	rows := []PowerStepRow{
		{Start: 0, End: 5, Watts: 300, StaticWatts: 200, DynamicWatts: 100, CapWatts: &cp, NodesOn: 2, CoresInUse: 4},
		{Start: 5, End: 60, Watts: 210, StaticWatts: 100, DynamicWatts: 100, OffWatts: 10, NodesOn: 1, NodesOff: 1, CoresInUse: 4},
	}
	path := filepath.Join(dir, "run.power.parquet")
	if err := WritePowerSeries(path, rows, Metadata{"run.key": "k"}); err != nil {
		t.Fatal(err)
	}
	got, meta, err := ReadPowerSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) || meta["run.key"] != "k" {
		t.Errorf("read back %+v %v", got, meta)
	}
	jobs := filepath.Join(dir, "run.parquet")
	if err := WriteJobs(jobs, []JobRow{{JobID: 1}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadPowerSeries(jobs); err == nil || !strings.Contains(err.Error(), "not a power file") {
		t.Errorf("a jobs file read as a power file: %v", err)
	}
	if got := PowerSeriesPath(jobs); got != path {
		t.Errorf("the power file of %s is %s, want %s", jobs, got, path)
	}
	// A campaign's: power/KEY.parquet beside jobs/KEY.parquet, once the
	// folder has its lock file.
	camp := filepath.Join(dir, "camp")
	key := CampaignJobsPath(camp, "abc")
	if got := PowerSeriesPath(key); got != filepath.Join(camp, JobsDir, "abc.power.parquet") {
		t.Errorf("without a lock file: %s", got)
	}
	if err := os.MkdirAll(camp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(camp, LockFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := PowerSeriesPath(key); got != CampaignPowerPath(camp, "abc") {
		t.Errorf("in a campaign: %s, want %s", got, CampaignPowerPath(camp, "abc"))
	}
}

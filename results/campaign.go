package results

import "path/filepath"

// The layout of a campaign folder (docs/results.md), shared by the code
// that writes campaigns (runner/campaign) and the code that analyses them.
const (
	// RunsFile has one row per run.
	RunsFile = "runs.parquet"
	// LockFile is the manifest fully resolved.
	LockFile = "manifest.lock.toml"
	// JobsDir holds one jobs file per completed run, named by run key.
	JobsDir = "jobs"
	// AxesKey is the footer key of RunsFile listing, as a JSON array, the
	// columns that are matrix axes, in matrix order.
	AxesKey = "campaign.axes"
)

// CampaignJobsPath is the jobs file of the run with the given key in the
// campaign folder dir.
func CampaignJobsPath(dir, key string) string {
	return filepath.Join(dir, JobsDir, key+".parquet")
}

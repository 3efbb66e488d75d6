package campaign

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
)

func writeStatus(dir string, r RunResult) error {
	return results.WriteFileAtomic(statusPath(dir, r.Key), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
}

// completed returns the recorded result of a run whose status file says it
// completed and whose jobs file is the one written then: its sha256 is the
// one the status records, and so is its power file's when it has one (for a status without it, from before SDK 0.4.0,
// the file must at least read as Parquet). When the status says completed
// but the jobs file is missing or damaged, damage says how.
func completed(dir, key string) (r RunResult, ok bool, damage string) {
	r, ok = readStatus(dir, key)
	if !ok || r.Status != StatusOK {
		return r, false, ""
	}
	path := JobsPath(dir, key)
	if r.JobsSHA256 == "" {
		if _, err := results.ReadMetadata(path); err != nil {
			return r, false, err.Error()
		}
		return r, true, ""
	}
	if damage := changed(path, r.JobsSHA256); damage != "" {
		return r, false, damage
	}
	if r.PowerSHA256 != "" {
		if damage := changed(PowerPath(dir, key), r.PowerSHA256); damage != "" {
			return r, false, damage
		}
	}
	return r, true, ""
}

// changed says how the file at path differs from the one of sha256 want;
// empty when it does not.
func changed(path, want string) string {
	sum, err := runner.FileSHA256(path)
	switch {
	case err != nil:
		return err.Error()
	case sum != want:
		return fmt.Sprintf("%s has sha256 %.12s..., its status records %.12s... (truncated or changed after it was written)", path, sum, want)
	}
	return ""
}

// readStatus reads the status file of the run with the given key.
func readStatus(dir, key string) (r RunResult, ok bool) {
	b, err := os.ReadFile(statusPath(dir, key))
	if err != nil || json.Unmarshal(b, &r) != nil || r.Key != key {
		return r, false
	}
	return r, true
}

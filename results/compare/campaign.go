// Package compare answers the question a campaign ends with: which value of
// one matrix axis (usually the policy) is better than a baseline, on which
// group of runs, by how much, and how sure we are. It reads a campaign
// folder's runs.parquet and jobs files only, pairs runs that differ only in
// the compared axis (same workload, other parameters and replicate, hence
// same seeds), and computes with package stats: means with confidence
// intervals, paired differences and ratios, Wilcoxon signed-rank tests with
// Holm's correction, effect sizes, and job-level distributions.
package compare

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/results"
)

// Campaign is a campaign folder's runs table.
type Campaign struct {
	Dir string
	// Axes are the matrix-axis columns, in matrix order (param axes as
	// param_NAME); "replicate" is not among them.
	Axes []string
	// Numeric lists the numeric columns a comparison can use as metric.
	Numeric []string
	Runs    []Run
	Meta    results.Metadata
}

// Run is one row of runs.parquet.
type Run struct {
	Key       string
	Label     string
	Status    string
	Replicate int
	// Axes holds the run's value on each axis, as text.
	Axes map[string]string
	// Values holds the numeric columns; a NULL is absent.
	Values map[string]float64
	// BSLDTau is the run's bounded-slowdown floor, for job-level views.
	BSLDTau int64
}

// Load reads dir/runs.parquet.
func Load(dir string) (*Campaign, error) {
	path := filepath.Join(dir, results.RunsFile)
	cols, rows, meta, err := results.ReadTable(path)
	if err != nil {
		return nil, err
	}
	c := &Campaign{Dir: dir, Meta: meta}
	if err := json.Unmarshal([]byte(meta[results.AxesKey]), &c.Axes); err != nil {
		return nil, fmt.Errorf("%s: footer key %s: %w (written by an older schedlab? rerun the campaign)", path, results.AxesKey, err)
	}
	idx := map[string]int{}
	for i, col := range cols {
		idx[col.Name] = i
	}
	for _, a := range append(slices.Clone(c.Axes), "run_key", "status", "replicate") {
		if _, ok := idx[a]; !ok {
			return nil, fmt.Errorf("%s: no column %s", path, a)
		}
	}
	for _, col := range cols {
		if (col.Kind == results.Int64 || col.Kind == results.Float64) && !slices.Contains(c.Axes, col.Name) {
			c.Numeric = append(c.Numeric, col.Name)
		}
	}
	for _, row := range rows {
		r := Run{Axes: map[string]string{}, Values: map[string]float64{}}
		r.Key, _ = row[idx["run_key"]].(string)
		r.Label, _ = row[idx["label"]].(string)
		r.Status, _ = row[idx["status"]].(string)
		if v, ok := row[idx["replicate"]].(int64); ok {
			r.Replicate = int(v)
		}
		for _, a := range c.Axes {
			r.Axes[a] = text(row[idx[a]])
		}
		for _, n := range c.Numeric {
			switch v := row[idx[n]].(type) {
			case int64:
				r.Values[n] = float64(v)
			case float64:
				r.Values[n] = v
			}
		}
		if i, ok := idx["bsld_tau"]; ok {
			r.BSLDTau, _ = row[i].(int64)
		}
		c.Runs = append(c.Runs, r)
	}
	return c, nil
}

// text renders an axis value as the manifest wrote it.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// JobsPath is the jobs file of a run.
func (c *Campaign) JobsPath(r Run) string { return results.CampaignJobsPath(c.Dir, r.Key) }

// Values lists the distinct values of an axis, in order of first
// appearance (the matrix order).
func (c *Campaign) Values(axis string) []string {
	var out []string
	for _, r := range c.Runs {
		if v := r.Axes[axis]; !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/results"
)

// runCampaign prints the tables of one grid campaign folder of any name
// (its runs.parquet and jobs files): the per-run metrics and what the jobs
// files say, local and global jobs apart, and the idle capacity while work
// waits, with its runs grouped by the matrix axes whose values differ
// between them (the policy when none does).
func runCampaign(w io.Writer, dir string, transfer int64) error {
	path := filepath.Join(dir, results.RunsFile)
	cols, rows, meta, err := results.ReadTable(path)
	if err != nil {
		return err
	}
	group, err := varyingAxes(cols, rows, meta)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	runs, err := readRuns(dir, group, transfer)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("%s: no completed run", path)
	}
	header := strings.Join(group, ", ")
	fmt.Fprintf(w, "### %s\n\n", cmp.Or(meta["campaign.name"], dir))
	table(w, header, runs)
	fmt.Fprintf(w, "Idle capacity while work waits that could use it (shares of the grid's capacity), and the waits of the jobs each group accepted:\n\n")
	wasteTable(w, header, runs)
	return nil
}

// varyingAxes returns the matrix axes (the footer's campaign.axes) whose
// values differ between the completed runs, or the policy when none does.
func varyingAxes(cols []results.Column, rows [][]any, meta results.Metadata) ([]string, error) {
	var axes []string
	if err := json.Unmarshal([]byte(meta[results.AxesKey]), &axes); err != nil {
		return nil, fmt.Errorf("footer key %s: %w", results.AxesKey, err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	status, ok := idx["status"]
	if !ok {
		return nil, fmt.Errorf("no column status")
	}
	var out []string
	for _, a := range axes {
		i, ok := idx[a]
		if !ok {
			return nil, fmt.Errorf("no column %s, an axis", a)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if r[status] == "ok" {
				seen[fmt.Sprint(r[i])] = true
			}
		}
		if len(seen) > 1 {
			out = append(out, a)
		}
	}
	if len(out) == 0 && slices.Contains(axes, "policy") {
		out = []string{"policy"}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no axis to group by")
	}
	return out, nil
}

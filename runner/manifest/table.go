package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteRuns prints runs as an aligned table, one line per run: the index,
// the value of every axis, the replicate, the first 12 hex digits of the
// sha256 of the run's canonical spec (the key needs the plugin and workload
// hashes, which only resolving them gives), and the workload and policy
// seeds. It is what `schedlab expand` prints.
func (m *Manifest) WriteRuns(w io.Writer, runs []Run) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"#"}
	for _, a := range m.Matrix.Axes {
		head = append(head, a.Name)
	}
	head = append(head, "replicate", "spec", "workload_seed", "policy_seed")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range runs {
		row := []string{fmt.Sprint(r.Index)}
		for _, a := range r.Axes {
			row = append(row, a.Value)
		}
		sum := sha256.Sum256(r.Spec(m))
		s := r.Seeds(m)
		row = append(row, fmt.Sprint(r.Replicate), hex.EncodeToString(sum[:6]), fmt.Sprint(s.Workload), fmt.Sprint(s.Policy))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

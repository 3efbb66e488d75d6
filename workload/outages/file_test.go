package outages

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/pyenv"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
)

// failureCols are the columns of a good failure file, as our writer
// writes them.
var failureCols = []results.Column{{Name: "node", Kind: results.Int64}, {Name: "down", Kind: results.Int64}, {Name: "up", Kind: results.Int64}}

// TestParquetFailureFiles writes failure files in Parquet with our writer
// and checks that ReadFile reads the good ones as the CSV of the same
// failures, and refuses each kind of bad one naming the file and row.
func TestParquetFailureFiles(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "f.csv")
	if err := os.WriteFile(csvPath, []byte("node,down,up\n2,100,160\n0,5,6\n2,160,170\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFile(csvPath, 4)
	if err != nil {
		t.Fatal(err)
	}
	good := [][]any{{2, 100, 160}, {0, 5, 6}, {2, 160, 170}}
	for _, tc := range []struct {
		name string
		cols []results.Column
		rows [][]any
		want string // "" for a good file
	}{
		{"good", failureCols, good, ""},
		{"columns in another order", []results.Column{failureCols[2], failureCols[0], failureCols[1]},
			[][]any{{160, 2, 100}, {6, 0, 5}, {170, 2, 160}}, ""},
		{"missing column", failureCols[:2], [][]any{{1, 5}}, `no column "up"`},
		{"other column", append(failureCols[:3:3], results.Column{Name: "cause", Kind: results.String}), [][]any{{1, 5, 6, "disk"}}, `column "cause": want only`},
		{"floats", []results.Column{failureCols[0], {Name: "down", Kind: results.Float64}, failureCols[2]}, [][]any{{1, 5.5, 6}}, `column "down" is float64, want integers`},
		{"strings", []results.Column{{Name: "node", Kind: results.String}, failureCols[1], failureCols[2]}, [][]any{{"n1", 5, 6}}, `column "node" is string`},
		{"NULL", failureCols, [][]any{{1, 5, 6}, {1, nil, 9}}, "row 2: down is NULL"},
		{"node out of range", failureCols, [][]any{{1, 5, 6}, {4, 5, 6}}, "row 2: node 4: the platform has nodes 0 to 3"},
		{"negative node", failureCols, [][]any{{-1, 5, 6}}, "row 1: node -1"},
		{"up before down", failureCols, [][]any{{1, 50, 6}}, "row 1: up 6 is not after down 50"},
		{"overlap", failureCols, [][]any{{3, 10, 20}, {1, 0, 100}, {3, 15, 30}}, "row 3: node 3 fails at 15 while down since row 1 (until 20)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".parquet")
			if err := results.WriteTable(path, tc.cols, tc.rows, nil); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(path, 4)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
					t.Errorf("error %v, want %q with the path", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sameOutages(t, got, want)
		})
	}
	// A file that is not Parquet, named .parquet, and one named .PARQUET.
	notPQ := filepath.Join(dir, "text.parquet")
	if err := os.WriteFile(notPQ, []byte("node,down,up\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(notPQ, 4); err == nil || !strings.Contains(err.Error(), notPQ) {
		t.Errorf("a CSV named .parquet: %v", err)
	}
	upper := filepath.Join(dir, "F.PARQUET")
	if err := results.WriteTable(upper, failureCols, good, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(upper, 4); err != nil {
		t.Errorf(".PARQUET: %v", err)
	} else {
		sameOutages(t, got, want)
	}
}

func sameOutages(t *testing.T, got, want []sdk.Outage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d failures, want %d: %+v", len(got), len(want), got)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Start != w.Start || g.End != w.End || g.Kind != w.Kind || len(g.Nodes) != 1 || g.Nodes[0] != w.Nodes[0] {
			t.Errorf("failure %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestPyarrowFailureFiles reads failure files that pyarrow wrote: node as
// int32 and times as int64 (as pandas would write them), several row
// groups, and bad ones (a float column, a NULL, an overlap).
func TestPyarrowFailureFiles(t *testing.T) {
	py := pyenv.ForTest(t, "pyarrow")
	dir := t.TempDir()
	script := `
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
def write(name, node, down, up, ntype=pa.int32(), ttype=pa.int64(), **kw):
    pq.write_table(pa.table({"node": pa.array(node, ntype), "down": pa.array(down, ttype), "up": pa.array(up, ttype)}), d + "/" + name, **kw)
write("good.parquet", [2, 0, 2], [100, 5, 160], [160, 6, 170], row_group_size=2)
write("float.parquet", [1], [5.0], [6.0], ttype=pa.float64())
write("null.parquet", [1, None], [5, 7], [6, 8])
write("overlap.parquet", [0, 1, 0], [0, 0, 10], [20, 5, 30])
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	got, err := ReadFile(filepath.Join(dir, "good.parquet"), 4)
	if err != nil {
		t.Fatal(err)
	}
	sameOutages(t, got, []sdk.Outage{
		{Nodes: []int32{2}, Start: 100, End: 160, Kind: sdk.Failure},
		{Nodes: []int32{0}, Start: 5, End: 6, Kind: sdk.Failure},
		{Nodes: []int32{2}, Start: 160, End: 170, Kind: sdk.Failure},
	})
	for _, tc := range []struct{ file, want string }{
		{"float.parquet", `column "down" is float64`},
		{"null.parquet", "row 2: node is NULL"},
		{"overlap.parquet", "row 3: node 0 fails at 10 while down since row 1"},
	} {
		path := filepath.Join(dir, tc.file)
		if _, err := ReadFile(path, 4); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want %q with the path", tc.file, err, tc.want)
		}
	}
}

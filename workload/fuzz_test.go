package workload_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/swf"
)

// FuzzSWF reads any text as an SWF trace and cleans it with the default
// rules: the reader and the cleaning must not panic, their errors must name
// the file, and a trace they accept must be one the engine accepts and
// simulates, whatever its times (issue 22: times near the int64 limit).
// CI runs it briefly (.ci/run); `go test -fuzz FuzzSWF ./workload` runs it
// for as long as one likes.
func FuzzSWF(f *testing.F) {
	f.Add([]byte("; MaxProcs: 8\n1 0 1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n2 5 1 50 8 -1 -1 8 60 -1 1 2 1 -1 1 1 -1 -1\n"))
	f.Add([]byte("; MaxProcs: 8\n1 100 1 9223372036854775707 4 -1 -1 4 9223372036854775707 -1 1 1 1 -1 1 1 -1 -1\n"))
	f.Add([]byte("; MaxProcs: 8\n7 9223372036854775807 1 10 4 -1 -1 4 20 -1 1 1 1 -1 1 1 -1 -1\n3 34359738368 0 34359738368 2 -1 -1 2 34359738368 -1 1 1 1 1 1 1 -1 -1\n"))
	f.Add([]byte("; MaxProcs: 4\n1 -5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := swf.NewReader(bytes.NewReader(data), "f.swf")
		var recs []swf.Record
		for len(recs) < 300 {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "f.swf") {
					t.Fatalf("error does not name the file: %v", err)
				}
				return
			}
			recs = append(recs, rec)
		}
		w, err := workload.FromRecords("f.swf", recs, 16, workload.Clean{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.swf") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if _, err := sim.Run(context.Background(), backfill.EASY(), sim.Config{Platform: sdk.SingleCluster("f", 16), Jobs: w.Jobs}); err != nil {
			t.Fatalf("the engine refuses a cleaned workload: %v", err)
		}
	})
}

package sacct_test

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/sacct"
)

// FuzzRead reads any text as a sacct log: no panic, errors name the file,
// and the report counts what it read (issue 22 kept its 3 minutes of
// fuzzing as this target; CI runs it briefly).
func FuzzRead(f *testing.F) {
	f.Add(fullHeader + "\n" + "4744528_255|4745200|ub-hpc|user003|89200431|grp|1000|account003|general-compute|normal|JobName001|cpn-u22-13|" +
		"CANCELLED by 89200431|0:15|2020-12-18T22:12:16|2020-12-18T22:14:17|2020-12-18T23:00:00|2020-12-19T01:00:00|02:00:00|2-00:00:00|12|12|8|" +
		"1|1|1|2800Mc|||1-02:10:51|1-00:00:00.500|02:10:50.5|1-00:00:00|86400|" +
		"billing=12,cpu=12,mem=33600M,node=1|billing=8,cpu=8,mem=22400M,node=1|whatever\n")
	f.Add(foldHeader + "\n1|1|COMPLETED|2020-01-01T00:00:00|2020-01-01T01:00:00|01:00:00|00:10:00|00:09:00|00:01:00|1K|2K|4|4|1|14400|cpu=4\n" +
		"1.batch|1.batch|COMPLETED|2020-01-01T00:00:00|2020-01-01T01:00:00|01:00:00|00:10:00|00:09:00|00:01:00|1K|2K|4|4|1|14400|cpu=4\n")
	f.Add("JobID|Start\n1|9999-99-99T99:99:99\n")
	f.Fuzz(func(t *testing.T, text string) {
		jobs, rep, err := sacct.Read(strings.NewReader(text), "f.sacct")
		if err != nil {
			if !strings.Contains(err.Error(), "f.sacct") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if rep.Jobs != len(jobs) {
			t.Fatalf("report says %d jobs, %d read", rep.Jobs, len(jobs))
		}
	})
}

package sacct_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/sacct"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// checkSource fails the test unless SOURCES.md lists the file with the
// file's sha256, so that the counts below are about the files described.
func checkSource(t *testing.T, dir, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	src, err := os.ReadFile(filepath.Join(dir, tracedata.SourcesFile))
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(string(src), "\n") {
		if strings.HasPrefix(l, "| "+file+" |") {
			if !strings.Contains(l, hexSum) {
				t.Fatalf("%s: sha256 %s is not the one in %s: %s", file, hexSum, tracedata.SourcesFile, l)
			}
			return
		}
	}
	t.Fatalf("%s is not listed in %s", file, tracedata.SourcesFile)
}

// TestRealFixtures reads the two sacct --format=ALL dumps of the UB CCR
// Slurm simulator toolkit (see SOURCES.md beside them).
//
// The counts were obtained independently of this package, with awk
// (mawk): a record is a line with at least as many '|'-separated fields as
// the header; its JobID is the first field from the 30th on that is a job
// id (5+ digits, optional _task, optional .step) followed by a JobIDRaw
// (5+ digits, optional .step); it is a step if the JobID has a '.':
//
//	awk -F'|' 'NR==1{h=NF;next} NF<h{short++;next}
//	  {for(i=30;i<NF;i++) if($i~/^[0-9][0-9][0-9][0-9][0-9]+(_[0-9]+)?(\.[a-z0-9]+)?$/ &&
//	     $(i+1)~/^[0-9][0-9][0-9][0-9][0-9]+(\.[a-z0-9]+)?$/){id=$i;break}
//	   if(id~/\./)steps++; else jobs++}
//	  END{print FILENAME, jobs+0, steps+0, short+0}' sacct_dump2101.log
//
// It gives 12 jobs, 2 steps and 1 short line (line 16: 74 of 107 fields)
// for sacct_dump2101.log, and 5 jobs, 2 steps, no short line for
// sacct_dump2110.log. In the latter, all 5 job records have JobID 7957382
// (copies of one job with '|' added), and the one of line 8 is ambiguous
// for the reader (see below), so it reads 4 jobs, 3 of them duplicates of
// the first.
func TestRealFixtures(t *testing.T) {
	dir := tracedata.SacctDirForTest(t)
	type repair struct {
		line   int
		fields []string
	}
	cases := []struct {
		file              string
		strictLine        int   // where strict reading stops
		strictErr         error // and why
		lines, records    int
		jobs, steps, dups int
		skipped           []int
		repairs           []repair
		check             func(t *testing.T, jobs []sacct.Job)
	}{
		{
			file: "sacct_dump2101.log", strictLine: 16, strictErr: sacct.ErrShortRecord,
			lines: 16, records: 14, jobs: 12, steps: 2, dups: 0, skipped: []int{16},
			repairs: []repair{
				{12, []string{"Constraints"}},            // cpu-a|cpu-b
				{13, []string{"JobName"}},                // Job| Name003
				{14, []string{"Constraints", "JobName"}}, // cpu-a|cpu-b|gpu, Job| Name |003
				{15, []string{"JobName"}},                // Jo| bNa| me003
			},
			check: func(t *testing.T, jobs []sacct.Job) {
				a := jobs[0]
				if a.ID != "4744528_255" || a.JobID != 4744528 || a.ArrayTask != 255 || a.RawID != 4745200 ||
					a.State != sacct.StateCancelled || a.CancelledBy != 89200431 || a.ReqMem != 2800<<20 || a.ReqMemPer != sacct.MemPerCPU ||
					a.Timelimit != 2*86400 || a.AllocCPUS != 12 || a.Partition != "general-compute" || a.User != "user003" {
					t.Errorf("first job: %+v", a)
				}
				// 4822203: the only job with steps; MaxRSS comes from its batch step.
				j := jobs[6]
				if j.ID != "4822203" || j.Line != 8 || !reflect.DeepEqual(j.Steps, []string{"batch", "extern"}) ||
					j.State != sacct.StateCompleted || j.MaxRSS != 141309400<<10 || j.MaxVMSize != 178808<<10 ||
					j.TotalCPU != 7*86400+17*3600+56*60+25 || j.UserCPU != 5*86400+19*3600+35*60+29 || j.SystemCPU != 86400+22*3600+20*60+56 ||
					j.CPUTime != 3223250 || j.Elapsed != 128930 || j.Timelimit != 144000 ||
					j.ReqMem != 550000<<20 || j.ReqMemPer != sacct.MemPerNode || j.AllocTRES["mem"] != 550000<<20 {
					t.Errorf("job 4822203: %+v", j)
				}
				if k := j.KEf1(); k < 0.249 || k > 0.25 { // 166856 / 669385
					t.Errorf("KEf1 = %v", k)
				}
				if got := jobs[11].JobName; got != "Jo| bNa| me003" {
					t.Errorf("line 15 JobName %q", got)
				}
				if c, _ := jobs[10].Field("Constraints"); c != "cpu-a|cpu-b|gpu" || jobs[10].JobName != "Job| Name |003" {
					t.Errorf("line 14: Constraints %q, JobName %q", c, jobs[10].JobName)
				}
			},
		},
		{
			file: "sacct_dump2110.log", strictLine: 8, strictErr: sacct.ErrAmbiguous,
			lines: 8, records: 6, jobs: 4, steps: 2, dups: 3, skipped: []int{8},
			repairs: []repair{
				{2, []string{"SubmitLine"}},
				{5, []string{"Constraints", "SubmitLine"}},
				{6, []string{"Constraints", "JobName", "SubmitLine"}},
				{7, []string{"Constraints", "JobName", "SubmitLine"}},
			},
			check: func(t *testing.T, jobs []sacct.Job) {
				j := jobs[0]
				sub, _ := j.Field("SubmitLine")
				if sub != "sbatch -M cluster001 -p partition001 --qos=qos001 --time=24:00:00 --nodes=1 --ntasks=1 --mem=4000 -J qlogin --wrap=env | grep SLURM | sed 's/^/export /g'; sleep 24h" {
					t.Errorf("SubmitLine %q", sub)
				}
				if j.ID != "7957382" || !reflect.DeepEqual(j.Steps, []string{"batch", "extern"}) || j.MaxRSS != 320<<10 ||
					j.TotalCPU != 0.010 || j.UserCPU != 0.003 || j.SystemCPU != 0.006 || j.ReqMemPer != sacct.MemPerJob ||
					j.ReqMem != 4000<<20 || j.Group != "group-001" || j.Submit != 1633433172 || j.Elapsed != 56 {
					t.Errorf("first job: %+v", j)
				}
				if jobs[2].JobName != "qlo|gin" || jobs[3].JobName != "qlogin|" {
					t.Errorf("job names %q %q", jobs[2].JobName, jobs[3].JobName)
				}
				for _, d := range jobs[1:] {
					if len(d.Steps) != 0 {
						t.Errorf("duplicate at line %d took steps %v", d.Line, d.Steps)
					}
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			checkSource(t, dir, c.file)
			p := filepath.Join(dir, c.file)

			_, _, err := sacct.ReadFile(p)
			if !errors.Is(err, c.strictErr) || !strings.Contains(err.Error(), p+" line "+strconv.Itoa(c.strictLine)+":") {
				t.Errorf("strict reading: %v; want %v at line %d", err, c.strictErr, c.strictLine)
			}

			jobs, rep, err := sacct.Options{SkipMalformed: true}.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(rep)
			if rep.Lines != c.lines || rep.Records != c.records || rep.Jobs != c.jobs || len(jobs) != c.jobs ||
				rep.Steps != c.steps || rep.DuplicateIDs != c.dups || rep.Orphans != 0 || rep.HetComponents != 0 {
				t.Errorf("report %+v", rep)
			}
			var skipped []int
			for _, s := range rep.Skipped {
				skipped = append(skipped, s.Line)
			}
			if !reflect.DeepEqual(skipped, c.skipped) {
				t.Errorf("skipped lines %v, want %v", skipped, c.skipped)
			}
			var repairs []repair
			for _, r := range rep.Repairs {
				repairs = append(repairs, repair{r.Line, r.Fields})
			}
			if !reflect.DeepEqual(repairs, c.repairs) {
				t.Errorf("repairs %v, want %v", repairs, c.repairs)
			}
			c.check(t, jobs)

			// The jobs feed the simulator through SWF.
			recs, m := sacct.ToSWF(jobs)
			if len(recs) != len(jobs) || m.Origin < 0 {
				t.Fatalf("ToSWF: %d records, origin %d", len(recs), m.Origin)
			}
			if _, err := workload.FromRecords(p, recs, 1<<20, workload.DefaultClean()); err != nil {
				t.Errorf("FromRecords: %v", err)
			}
		})
	}
}

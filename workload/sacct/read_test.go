package sacct_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/workload/sacct"
)

// lines joins a header and records into a log.
func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

// read reads text as "test.log", failing the test on error.
func read(t *testing.T, text string) ([]sacct.Job, sacct.Report) {
	t.Helper()
	jobs, rep, err := sacct.Read(strings.NewReader(text), "test.log")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return jobs, rep
}

// fullHeader has every field the Job converts, plus one this package does
// not know.
const fullHeader = "JobID|JobIDRaw|Cluster|User|UID|Group|GID|Account|Partition|QOS|JobName|NodeList|" +
	"State|ExitCode|Submit|Eligible|Start|End|Elapsed|Timelimit|AllocCPUS|NCPUS|ReqCPUS|" +
	"AllocNodes|NNodes|ReqNodes|ReqMem|MaxRSS|MaxVMSize|TotalCPU|UserCPU|SystemCPU|CPUTime|CPUTimeRAW|" +
	"AllocTRES|ReqTRES|FutureField"

func TestJobFields(t *testing.T) {
	text := lines(fullHeader,
		"4744528_255|4745200|ub-hpc|user003|89200431|grp|1000|account003|general-compute|normal|JobName001|cpn-u22-13|"+
			"CANCELLED by 89200431|0:15|2020-12-18T22:12:16|2020-12-18T22:14:17|2020-12-18T23:00:00|2020-12-19T01:00:00|02:00:00|2-00:00:00|12|12|8|"+
			"1|1|1|2800Mc|||1-02:10:51|1-00:00:00.500|02:10:50.5|1-00:00:00|86400|"+
			"billing=12,cpu=12,mem=33600M,node=1|billing=8,cpu=8,mem=22400M,node=1|whatever")
	jobs, rep := read(t, text)
	if len(jobs) != 1 || rep.Jobs != 1 || rep.Records != 1 || rep.Lines != 2 || rep.Fields != 37 {
		t.Fatalf("jobs %d, report %+v", len(jobs), rep)
	}
	j := jobs[0]
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("Line", j.Line, 2)
	check("ID", j.ID, "4744528_255")
	check("JobID", j.JobID, int64(4744528))
	check("ArrayTask", j.ArrayTask, int64(255))
	check("RawID", j.RawID, int64(4745200))
	check("names", []string{j.Cluster, j.User, j.Group, j.Account, j.Partition, j.QOS, j.JobName, j.NodeList},
		[]string{"ub-hpc", "user003", "grp", "account003", "general-compute", "normal", "JobName001", "cpn-u22-13"})
	check("UID, GID", []int64{j.UID, j.GID}, []int64{89200431, 1000})
	check("State", j.State, sacct.StateCancelled)
	check("CancelledBy", j.CancelledBy, int64(89200431))
	check("exit", []int64{j.ExitStatus, j.ExitSignal}, []int64{0, 15})
	check("Submit", j.Submit, int64(1608329536))
	check("Eligible", j.Eligible, int64(1608329536+121))
	check("Start", j.Start, int64(1608332400))
	check("End", j.End, int64(1608339600))
	check("Wait", j.Wait(), int64(1608332400-1608329536))
	check("Elapsed", j.Elapsed, int64(7200))
	check("Timelimit", j.Timelimit, int64(172800))
	check("counts", []int64{j.AllocCPUS, j.NCPUS, j.ReqCPUS, j.AllocNodes, j.NNodes, j.ReqNodes}, []int64{12, 12, 8, 1, 1, 1})
	check("ReqMem", j.ReqMem, int64(2800<<20))
	check("ReqMemPer", j.ReqMemPer, sacct.MemPerCPU)
	check("MaxRSS", j.MaxRSS, int64(sacct.Missing))
	check("CPU", []float64{j.TotalCPU, j.UserCPU, j.SystemCPU}, []float64{94251, 86400.5, 7850.5})
	check("CPUTime", j.CPUTime, int64(86400))
	check("AllocTRES", j.AllocTRES, sacct.TRES{"billing": 12, "cpu": 12, "mem": 33600 << 20, "node": 1})
	check("ReqTRES", j.ReqTRES["mem"], float64(22400<<20))
	check("KWall", j.KWall(), 7200.0/172800)
	check("KEf1", j.KEf1(), 7850.5/94251)
	check("KEf2", j.KEf2(), (86400-94251.0)/86400)
	if v, ok := j.Field("FutureField"); !ok || v != "whatever" {
		t.Errorf("Field(FutureField) = %q, %v", v, ok)
	}
	if v, ok := j.Field("reqmem"); !ok || v != "2800Mc" {
		t.Errorf("Field(reqmem) = %q, %v (names are case-insensitive)", v, ok)
	}
	if _, ok := j.Field("Comment"); ok {
		t.Error("Field(Comment) found in a log without it")
	}
	if n := j.Header.Names(); len(n) != 37 || n[36] != "FutureField" {
		t.Errorf("Header.Names = %v", n)
	}
}

// TestFieldOrder reads a header in an unusual order with few fields: the
// header decides, and what it lacks is missing.
func TestFieldOrder(t *testing.T) {
	jobs, _ := read(t, lines("State|Elapsed|Custom|JobID|Timelimit",
		"COMPLETED|00:05:00|x|42|UNLIMITED",
		"TIMEOUT|01:00:00|y|43|Partition_Limit",
		"FAILED|00:00:10|z|44|"))
	if len(jobs) != 3 {
		t.Fatalf("%d jobs", len(jobs))
	}
	j := jobs[0]
	if j.ID != "42" || j.State != sacct.StateCompleted || j.Elapsed != 300 {
		t.Errorf("job = %+v", j)
	}
	if !j.TimelimitUnlimited || j.TimelimitPartition || j.Timelimit != sacct.Missing || !math.IsNaN(j.KWall()) {
		t.Errorf("UNLIMITED: Timelimit %d, flags %v %v", j.Timelimit, j.TimelimitUnlimited, j.TimelimitPartition)
	}
	if !jobs[1].TimelimitPartition || jobs[1].TimelimitUnlimited || jobs[1].Timelimit != sacct.Missing {
		t.Errorf("Partition_Limit: %+v", jobs[1])
	}
	if jobs[2].TimelimitPartition || jobs[2].TimelimitUnlimited || jobs[2].Timelimit != sacct.Missing {
		t.Errorf("empty limit: %+v", jobs[2])
	}
	missing := []int64{j.Submit, j.Start, j.End, j.AllocCPUS, j.ReqCPUS, j.ReqMem, j.MaxRSS, j.CPUTime, j.UID, j.RawID, j.ArrayTask, j.ExitStatus, j.Wait()}
	for i, v := range missing {
		if v != sacct.Missing {
			t.Errorf("absent field %d = %d, want Missing", i, v)
		}
	}
	if !math.IsNaN(j.TotalCPU) || !math.IsNaN(j.UserCPU) || !math.IsNaN(j.SystemCPU) || !math.IsNaN(j.KEf1()) || !math.IsNaN(j.KEf2()) {
		t.Error("absent CPU times are not NaN")
	}
	if j.AllocTRES != nil || j.User != "" || j.ReqMemPer != sacct.MemPerUnknown {
		t.Errorf("absent fields: %+v", j)
	}
	if v, _ := j.Field("Custom"); v != "x" {
		t.Errorf("Custom = %q", v)
	}
}

func TestTimelimitRaw(t *testing.T) {
	jobs, _ := read(t, lines("JobID|TimelimitRaw", "1|90", "2|UNLIMITED", "3|Partition_Limit", "4|"))
	if jobs[0].Timelimit != 5400 || !jobs[1].TimelimitUnlimited || !jobs[2].TimelimitPartition || jobs[3].Timelimit != sacct.Missing {
		t.Errorf("jobs %+v", jobs)
	}
}

func TestJobIDRawOnly(t *testing.T) {
	jobs, rep := read(t, lines("JobIDRaw|State", "4745200|COMPLETED", "4745200.batch|COMPLETED"))
	if len(jobs) != 1 || jobs[0].ID != "4745200" || jobs[0].RawID != 4745200 || rep.Steps != 1 {
		t.Errorf("jobs %+v, report %+v", jobs, rep)
	}
}

// TestSeparators covers '|' inside fields: repaired when exactly one
// reading is left, an error naming file, line and fields otherwise.
func TestSeparators(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		want   map[string]string // field -> value of the first job
		repair sacct.Repair
		err    error
		msg    []string // the error names these
	}{
		{
			name:   "one free-text field",
			text:   lines("JobID|JobName|Partition|State|Elapsed", "1|a|b|general|COMPLETED|00:01:00"),
			want:   map[string]string{"JobName": "a|b", "Partition": "general", "State": "COMPLETED"},
			repair: sacct.Repair{Line: 2, Lines: 1, Fields: []string{"JobName"}, Extra: 1},
		},
		{
			name:   "one free-text field, several '|', leading one",
			text:   lines("JobID|JobName|State", "1||x|y|COMPLETED"),
			want:   map[string]string{"JobName": "|x|y", "State": "COMPLETED"},
			repair: sacct.Repair{Line: 2, Lines: 1, Fields: []string{"JobName"}, Extra: 2},
		},
		{
			name: "formats of the neighbours decide",
			text: lines("JobID|JobName|Elapsed|Comment|Submit|State",
				"1|a|b|00:01:00|c|d|2021-01-01T00:00:00|COMPLETED"),
			want:   map[string]string{"JobName": "a|b", "Elapsed": "00:01:00", "Comment": "c|d"},
			repair: sacct.Repair{Line: 2, Lines: 1, Fields: []string{"JobName", "Comment"}, Extra: 2},
		},
		{
			name:   "edge rule: adjacent free-text fields, one empty",
			text:   lines("JobID|Comment|Constraints|NNodes", "1||cpu-a|cpu-b|1"),
			want:   map[string]string{"Comment": "", "Constraints": "cpu-a|cpu-b", "NNodes": "1"},
			repair: sacct.Repair{Line: 2, Lines: 1, Fields: []string{"Constraints"}, Extra: 1, SetAside: 1},
		},
		{
			name: "extra '|' and no free-text field in the header",
			text: lines("JobID|State", "1|COMPLETED", "", "2|a|b|c|COMPLETED"),
			err:  sacct.ErrSeparators,
			msg:  []string{"sacct test.log line 4", "5 fields, header has 2, and no free-text field"},
		},
		{
			name: "ambiguous",
			text: lines("JobID|JobName|Comment|State", "2|ok|ok|COMPLETED", "1|a|b|c|COMPLETED"),
			err:  sacct.ErrAmbiguous,
			msg:  []string{"sacct test.log line 3", "JobName, Comment", `JobName="a" Comment="b|c"`, `JobName="a|b" Comment="c"`},
		},
		{
			name: "no well-formed reading",
			text: lines("JobID|JobName|Elapsed|State", "1|a|00:01:00|x|COMPLETED"),
			err:  sacct.ErrSeparators,
			msg:  []string{"sacct test.log line 2", "free-text fields (JobName)"},
		},
		{
			name: "short line",
			text: lines("JobID|JobName|Elapsed|State", "1|a|00:01:00|COMPLETED", "2|b|00:01:00"),
			err:  sacct.ErrShortRecord,
			msg:  []string{"sacct test.log line 3", "3 fields, header has 4"},
		},
		{
			name: "short line, then a full record that does not complete it",
			text: lines("JobID|JobName|Elapsed|State", "2|b|00:01:00", "3|c|00:02:00|COMPLETED"),
			err:  sacct.ErrShortRecord,
			msg:  []string{"sacct test.log line 2", "3 fields, header has 4"},
		},
		{
			name: "newline in a non-free field",
			text: lines("JobID|State|Elapsed", "1|COMP", "LETED|00:00:01"),
			err:  sacct.ErrShortRecord,
			msg:  []string{"sacct test.log line 2"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs, rep, err := sacct.Read(strings.NewReader(c.text), "test.log")
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("error %v, want %v", err, c.err)
				}
				for _, m := range c.msg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not contain %q", err, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for f, v := range c.want {
				if got, _ := jobs[0].Field(f); got != v {
					t.Errorf("%s = %q, want %q", f, got, v)
				}
			}
			if len(rep.Repairs) != 1 || !reflect.DeepEqual(rep.Repairs[0], c.repair) {
				t.Errorf("repairs %+v, want %+v", rep.Repairs, c.repair)
			}
		})
	}
}

// TestMultiline reads records whose free-text fields hold newlines, as
// sacct prints a multi-line --wrap script in SubmitLine.
func TestMultiline(t *testing.T) {
	text := lines("JobID|SubmitLine|State|Elapsed",
		"1|srun bash -c if [ ! -d x ]",
		"   then",
		"",
		"     mkdir x | tee log",
		"   fi|COMPLETED|00:00:05",
		"2|sbatch a.sh|FAILED|00:00:01")
	jobs, rep := read(t, text)
	if len(jobs) != 2 {
		t.Fatalf("%d jobs", len(jobs))
	}
	want := "srun bash -c if [ ! -d x ]\n   then\n\n     mkdir x | tee log\n   fi"
	if v, _ := jobs[0].Field("SubmitLine"); v != want || jobs[0].State != sacct.StateCompleted || jobs[0].Elapsed != 5 {
		t.Errorf("job 1: SubmitLine %q, %+v", v, jobs[0])
	}
	if jobs[1].Line != 7 || jobs[1].ID != "2" {
		t.Errorf("job 2 line %d id %s", jobs[1].Line, jobs[1].ID)
	}
	wantRep := []sacct.Repair{{Line: 2, Lines: 5, Fields: []string{"SubmitLine"}, Extra: 1}}
	if !reflect.DeepEqual(rep.Repairs, wantRep) || rep.Lines != 7 || rep.Records != 2 || rep.Blank != 0 {
		t.Errorf("report %+v", rep)
	}
}

// TestSkipMalformed checks that under SkipMalformed every malformed record
// is listed and the records after it are still read, including those read
// ahead to complete a short one.
func TestSkipMalformed(t *testing.T) {
	text := lines("JobID|JobName|Comment|Elapsed|State",
		"1|a|x|00:01:00|COMPLETED",
		"2|b|x|00:01:00",           // short, and line 4 does not complete it
		"3|c|x|00:01:00|COMPLETED", // read again on its own
		"4|a|b|c|00:01:00|COMPLETED",
		"5|e|x|bad|COMPLETED",
		"6|f|x|00:01:00|COMPLETED")
	jobs, rep, err := sacct.Options{SkipMalformed: true}.Read(strings.NewReader(text), "test.log")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	if !reflect.DeepEqual(ids, []string{"1", "3", "6"}) {
		t.Errorf("ids %v", ids)
	}
	wantSkip := []struct {
		line int
		id   string
		err  error
	}{
		{3, "2", sacct.ErrShortRecord},
		{5, "4", sacct.ErrAmbiguous},
		{6, "5", sacct.ErrValue},
	}
	if len(rep.Skipped) != len(wantSkip) {
		t.Fatalf("skipped %+v", rep.Skipped)
	}
	for i, w := range wantSkip {
		s := rep.Skipped[i]
		if s.Line != w.line || s.ID != w.id || !strings.Contains(s.Reason, "test.log line") {
			t.Errorf("skip %d = %+v, want line %d id %s", i, s, w.line, w.id)
		}
	}
	if !strings.Contains(rep.Skipped[2].Reason, "field Elapsed") {
		t.Errorf("bad value reason %q does not name the field", rep.Skipped[2].Reason)
	}
	if rep.Lines != 7 || rep.Records != 3 || rep.Jobs != 3 {
		t.Errorf("report %+v", rep)
	}

	// Without SkipMalformed the first one stops the reading.
	_, _, err = sacct.Read(strings.NewReader(text), "test.log")
	if !errors.Is(err, sacct.ErrShortRecord) || !strings.Contains(err.Error(), "sacct test.log line 3:") {
		t.Errorf("strict: %v", err)
	}
}

func TestBadValues(t *testing.T) {
	cases := []struct{ field, value string }{
		{"Elapsed", "abc"},
		{"Submit", "yesterday"},
		{"ReqMem", "lots"},
		{"MaxRSS", "12X"},
		{"AllocCPUS", "two"},
		{"AllocTRES", "cpu"},
		{"ExitCode", "1"},
		{"TotalCPU", "1:2:3:4"},
		{"JobID", "abc"},
	}
	for _, c := range cases {
		hdr := "JobID|" + c.field
		val := "1|" + c.value
		if c.field == "JobID" {
			hdr, val = "JobID", c.value
		}
		_, _, err := sacct.Read(strings.NewReader(lines(hdr, val)), "test.log")
		if !errors.Is(err, sacct.ErrValue) || !strings.Contains(err.Error(), "sacct test.log line 2: field "+c.field) {
			t.Errorf("%s=%q: %v", c.field, c.value, err)
		}
	}
}

func TestHeaderErrors(t *testing.T) {
	cases := []struct{ name, text, msg string }{
		{"empty", "", "no header line"},
		{"blank only", "\n\n", "no header line"},
		{"no JobID", lines("State|Elapsed", "COMPLETED|00:00:01"), "line 1: bad header: no JobID or JobIDRaw"},
		{"no header (-n)", lines("123|COMPLETED"), "noheader"},
		{"empty name", lines("JobID||State", "1|x|y"), "field 2 has no name"},
	}
	for _, c := range cases {
		_, _, err := sacct.Read(strings.NewReader(c.text), "test.log")
		if !errors.Is(err, sacct.ErrHeader) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestParsableTrailing reads `sacct -p`, whose lines end with '|'.
func TestParsableTrailing(t *testing.T) {
	jobs, rep := read(t, lines("JobID|JobName|State|", "1|a|b|COMPLETED|", "2|c|FAILED|", "3|multi", "line|COMPLETED|"))
	if len(jobs) != 3 || jobs[0].JobName != "a|b" || jobs[1].State != sacct.StateFailed || jobs[2].JobName != "multi\nline" ||
		jobs[2].State != sacct.StateCompleted || len(rep.Repairs) != 2 {
		t.Errorf("jobs %+v, report %+v", jobs, rep)
	}
}

// TestBlankLinesAndCRLF: blank lines are skipped and counted, CRLF ends
// are removed.
func TestBlankLinesAndCRLF(t *testing.T) {
	jobs, rep := read(t, "\r\nJobID|State\r\n1|COMPLETED\r\n\r\n2|FAILED")
	if len(jobs) != 2 || jobs[0].State != sacct.StateCompleted || jobs[1].Line != 5 || rep.Blank != 2 || rep.Lines != 5 {
		t.Errorf("jobs %+v, report %+v", jobs, rep)
	}
}

// summary prints jobs without their header pointers, comparably (NaN
// fields defeat reflect.DeepEqual).
func summary(jobs []sacct.Job) string {
	var b strings.Builder
	for _, j := range jobs {
		j.Header = nil
		fmt.Fprintf(&b, "%+v\n", j)
	}
	return b.String()
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGzip(t *testing.T) {
	plain := []byte(lines("JobID|JobName|State|Elapsed", "1|a|b|COMPLETED|00:00:01", "1.batch|batch|COMPLETED|00:00:01"))
	want, wantRep := read(t, string(plain))
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		data []byte
	}{
		{"plain.log", plain},
		{"compressed.log.gz", gz(t, plain)},
		{"compressed-named.log", gz(t, plain)}, // content decides, not the name
	} {
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs, rep, err := sacct.ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got, w := summary(jobs), summary(want); got != w {
			t.Errorf("%s: jobs %s, want %s", c.file, got, w)
		}
		rep.Name = wantRep.Name
		if !reflect.DeepEqual(rep, wantRep) {
			t.Errorf("%s: report %+v, want %+v", c.file, rep, wantRep)
		}
	}
	if _, _, err := sacct.ReadFile(filepath.Join(dir, "absent.log")); err == nil || !strings.Contains(err.Error(), "absent.log") {
		t.Errorf("absent file: %v", err)
	}
	corrupt := gz(t, plain)[:20]
	if _, _, err := sacct.Read(bytes.NewReader(corrupt), "cut.gz"); err == nil || !strings.Contains(err.Error(), "cut.gz") {
		t.Errorf("truncated gzip: %v", err)
	}
}

// TestReaderStreams checks the row-level Reader: steps come unfolded, and
// Next fails after the end and after Close.
func TestReaderStreams(t *testing.T) {
	r := sacct.NewReader(strings.NewReader(lines("JobID|State", "1|COMPLETED", "1+0.batch|COMPLETED")), "test.log", sacct.Options{})
	if r.Header() != nil {
		t.Error("header before the first Next")
	}
	row, err := r.Next()
	if err != nil || row.ID != "1" || row.Step != "" || row.Het != sacct.Missing || r.Header().Len() != 2 {
		t.Fatalf("row 1: %+v, %v", row, err)
	}
	row, err = r.Next()
	if err != nil || row.ID != "1" || row.Step != "batch" || row.Het != 0 || row.Lines != 1 {
		t.Fatalf("row 2: %+v, %v", row, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after end: %v", err)
	}
	r.Close()
	r2 := sacct.NewReader(strings.NewReader(lines("JobID", "1")), "test.log", sacct.Options{})
	r2.Close()
	if _, err := r2.Next(); err == nil {
		t.Error("Next after Close succeeded")
	}
}

// TestLocation reads timestamps in the zone the caller says sacct ran in.
func TestLocation(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	text := lines("JobID|Submit", "1|2021-01-01T00:00:00")
	jobs, _, err := sacct.Options{Location: ny}.Read(strings.NewReader(text), "test.log")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1609459200 + 5*3600); jobs[0].Submit != want { // EST is UTC-5
		t.Errorf("Submit = %d, want %d", jobs[0].Submit, want)
	}
}

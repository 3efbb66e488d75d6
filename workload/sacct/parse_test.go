package sacct

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		secs float64
		kind DurationKind
		bad  bool
	}{
		{"00:00:00", 0, DurationValue, false},
		{"01:02:03", 3723, DurationValue, false},
		{"100:00:00", 360000, DurationValue, false}, // hours beyond a day, no day count
		{"1-02:10:51", 94251, DurationValue, false},
		{"119-19:49:22", 119*86400 + 19*3600 + 49*60 + 22, DurationValue, false},
		{"2-00:00:00", 172800, DurationValue, false},
		{"13:08", 788, DurationValue, false},          // MM:SS, never HH:MM
		{"00:01.277", 1.277, DurationValue, false},    // MM:SS.mmm (TotalCPU)
		{"00:00.006", 0.006, DurationValue, false},    // milliseconds
		{"12:34:56.5", 45296.5, DurationValue, false}, // HH:MM:SS.mmm
		{"1-00:00:00.250", 86400.25, DurationValue, false},
		{"1-12", 129600, DurationValue, false},    // D-HH
		{"1-12:30", 131400, DurationValue, false}, // D-HH:MM
		{"", 0, DurationEmpty, false},
		{"Unknown", 0, DurationEmpty, false},
		{"None", 0, DurationEmpty, false},
		{"UNLIMITED", 0, DurationUnlimited, false},
		{"INFINITE", 0, DurationUnlimited, false},
		{"Partition_Limit", 0, DurationPartitionLimit, false},
		{"INVALID", 0, DurationInvalid, false},
		{"42", 0, 0, true}, // minutes or seconds? sacct never prints it
		{"1:60", 0, 0, true},
		{"1:00:60", 0, 0, true},
		{"1:2:3:4", 0, 0, true},
		{"a-01:00:00", 0, 0, true},
		{"01:00:0x", 0, 0, true},
		{"01:00.", 0, 0, true},
		{"-01:00:00", 0, 0, true},
		{"unlimited", 0, 0, true}, // Slurm's words are case-sensitive
	}
	for _, c := range cases {
		s, k, err := ParseDuration(c.in)
		if c.bad {
			if !errors.Is(err, ErrValue) {
				t.Errorf("ParseDuration(%q) = %v, %v, %v; want ErrValue", c.in, s, k, err)
			}
			continue
		}
		if err != nil || k != c.kind || math.Abs(s-c.secs) > 1e-9 {
			t.Errorf("ParseDuration(%q) = %v, %v, %v; want %v, %v", c.in, s, k, err, c.secs, c.kind)
		}
	}
}

func TestParseTime(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	cases := []struct {
		in   string
		loc  *time.Location
		want int64
		ok   bool
		bad  bool
	}{
		{"2021-10-05T11:26:12", nil, 1633433172, true, false},
		{"2021-10-05T11:26:12", time.UTC, 1633433172, true, false},
		{"2021-10-05T11:26:12", paris, 1633433172 - 2*3600, true, false}, // CEST is UTC+2
		{"Unknown", nil, Missing, false, false},
		{"None", nil, Missing, false, false},
		{"", nil, Missing, false, false},
		{"2021-10-05 11:26:12", nil, 0, false, true},
		{"2021-13-05T11:26:12", nil, 0, false, true},
		{"10/05-11:26:12", nil, 0, false, true},
	}
	for _, c := range cases {
		got, ok, err := ParseTime(c.in, c.loc)
		if c.bad {
			if !errors.Is(err, ErrValue) {
				t.Errorf("ParseTime(%q) = %d, %v, %v; want ErrValue", c.in, got, ok, err)
			}
			continue
		}
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("ParseTime(%q) = %d, %v, %v; want %d, %v", c.in, got, ok, err, c.want, c.ok)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in    string
		plain int64
		want  int64
		ok    bool
		bad   bool
	}{
		{"1234K", 1, 1234 << 10, true, false},
		{"320K", 1, 327680, true, false},
		{"141309400K", 1, 141309400 << 10, true, false},
		{"0.04M", 1, int64(math.Round(0.04 * (1 << 20))), true, false},
		{"3.70G", 1, int64(math.Round(3.70 * (1 << 30))), true, false},
		{"2T", 1, 2 << 40, true, false},
		{"1P", 1, 1 << 50, true, false},
		{"1E", 1, 1 << 60, true, false},
		{"0", 1, 0, true, false},
		{"512", 1, 512, true, false},         // bytes for usage fields
		{"512", MiB, 512 << 20, true, false}, // MiB for requests
		{"", 1, Missing, false, false},
		{"12X", 1, 0, false, true},
		{"K", 1, 0, false, true},
		{"1e5", 1, 0, false, true},
		{"-1K", 1, 0, false, true},
		{"1.2.3M", 1, 0, false, true},
		{"16E", 1, 0, false, true}, // overflows int64
	}
	for _, c := range cases {
		got, ok, err := ParseSize(c.in, c.plain)
		if c.bad {
			if !errors.Is(err, ErrValue) {
				t.Errorf("ParseSize(%q) = %d, %v, %v; want ErrValue", c.in, got, ok, err)
			}
			continue
		}
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("ParseSize(%q, %d) = %d, %v, %v; want %d, %v", c.in, c.plain, got, ok, err, c.want, c.ok)
		}
	}
}

func TestParseReqMem(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		per  MemPer
		ok   bool
		bad  bool
	}{
		{"4000Mc", 4000 << 20, MemPerCPU, true, false},
		{"2800Mc", 2800 << 20, MemPerCPU, true, false},
		{"4000Mn", 4000 << 20, MemPerNode, true, false},
		{"180000Mn", 180000 << 20, MemPerNode, true, false},
		{"16G", 16 << 30, MemPerJob, true, false},
		{"16Gn", 16 << 30, MemPerNode, true, false},
		{"4000M", 4000 << 20, MemPerJob, true, false},
		{"0n", 0, MemPerNode, true, false},
		{"100", 100 << 20, MemPerJob, true, false}, // Slurm's unit is the megabyte
		{"", Missing, MemPerUnknown, false, false},
		{"lots", 0, 0, false, true},
		{"c", 0, 0, false, true},
	}
	for _, c := range cases {
		got, per, ok, err := ParseReqMem(c.in)
		if c.bad {
			if !errors.Is(err, ErrValue) {
				t.Errorf("ParseReqMem(%q) = %d, %v, %v, %v; want ErrValue", c.in, got, per, ok, err)
			}
			continue
		}
		if err != nil || got != c.want || per != c.per || ok != c.ok {
			t.Errorf("ParseReqMem(%q) = %d, %v, %v, %v; want %d, %v, %v", c.in, got, per, ok, err, c.want, c.per, c.ok)
		}
	}
	if MemPerCPU.String() != "cpu" || MemPerNode.String() != "node" || MemPerJob.String() != "job" || MemPerUnknown.String() != "unknown" {
		t.Error("MemPer.String")
	}
}

func TestParseCount(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"12", 12, false},
		{"", Missing, false},
		{"1K", 1024, false}, // NNodes of 1024 nodes through convert_num_unit
		{"1.5K", 1536, false},
		{"1.3K", 0, true}, // not a whole count
		{"x", 0, true},
	}
	for _, c := range cases {
		got, err := parseCount(c.in)
		if c.bad != (err != nil) || !c.bad && got != c.want {
			t.Errorf("parseCount(%q) = %d, %v; want %d (bad %v)", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestParseTRES(t *testing.T) {
	cases := []struct {
		in   string
		want TRES
		bad  bool
	}{
		{"cpu=4,mem=16G,node=1,billing=4", TRES{"cpu": 4, "mem": 16 << 30, "node": 1, "billing": 4}, false},
		{"billing=12,cpu=12,mem=33600M,node=1", TRES{"billing": 12, "cpu": 12, "mem": 33600 << 20, "node": 1}, false},
		{"cpu=2,gres/gpu=2,gres/gpu:v100=2,mem=4000M", TRES{"cpu": 2, "gres/gpu": 2, "gres/gpu:v100": 2, "mem": 4000 << 20}, false},
		{"cpu=00:00:06,energy=0,fs/disk=27917899,mem=20012K,pages=0,vmem=253636K",
			TRES{"cpu": 6, "energy": 0, "fs/disk": 27917899, "mem": 20012 << 10, "pages": 0, "vmem": 253636 << 10}, false},
		{"mem=0", TRES{"mem": 0}, false},
		{"", nil, false},
		{"cpu", nil, true},
		{"=4", nil, true},
		{"cpu=4,", nil, true},
		{"cpu=cpn-v09-10", nil, true}, // a *Node usage field
	}
	for _, c := range cases {
		got, err := ParseTRES(c.in)
		if c.bad {
			if !errors.Is(err, ErrValue) {
				t.Errorf("ParseTRES(%q) = %v, %v; want ErrValue", c.in, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseTRES(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestNormalizeState(t *testing.T) {
	cases := []struct {
		in, want string
		by       int64
	}{
		{"COMPLETED", StateCompleted, Missing},
		{"CANCELLED by 89200431", StateCancelled, 89200431},
		{"CANCELLED by 0", StateCancelled, 0},
		{"CANCELLED", StateCancelled, Missing},
		{"CANCELLED+", StateCancelled, Missing}, // truncated in fixed-width output
		{"TIMEOUT", StateTimeout, Missing},
		{"OUT_OF_MEMORY", StateOutOfMemory, Missing},
		{"FAILED", StateFailed, Missing},
		{"NODE_FAIL", StateNodeFail, Missing},
		{"PREEMPTED", StatePreempted, Missing},
		{"failed", StateFailed, Missing},
		{" RUNNING ", StateRunning, Missing},
		{"CD", StateCompleted, Missing},
		{"CA", StateCancelled, Missing},
		{"TO", StateTimeout, Missing},
		{"OOM", StateOutOfMemory, Missing},
		{"F", StateFailed, Missing},
		{"PD", StatePending, Missing},
		{"NEW_STATE", "NEW_STATE", Missing}, // kept, not rejected
		{"", "", Missing},
	}
	for _, c := range cases {
		if got := NormalizeState(c.in); got != c.want {
			t.Errorf("NormalizeState(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := cancelledBy(c.in); got != c.by {
			t.Errorf("cancelledBy(%q) = %d, want %d", c.in, got, c.by)
		}
	}
}

func TestParseExitCode(t *testing.T) {
	cases := []struct {
		in      string
		st, sg  int64
		ok, bad bool
	}{
		{"0:0", 0, 0, true, false},
		{"0:15", 0, 15, true, false},
		{"1:0", 1, 0, true, false},
		{"0:125", 0, 125, true, false},
		{"", Missing, Missing, false, false},
		{"1", 0, 0, false, true},
		{"a:b", 0, 0, false, true},
	}
	for _, c := range cases {
		st, sg, ok, err := ParseExitCode(c.in)
		if c.bad {
			if !errors.Is(err, ErrValue) {
				t.Errorf("ParseExitCode(%q): %v, want ErrValue", c.in, err)
			}
			continue
		}
		if err != nil || st != c.st || sg != c.sg || ok != c.ok {
			t.Errorf("ParseExitCode(%q) = %d, %d, %v, %v", c.in, st, sg, ok, err)
		}
	}
}

func TestParseJobID(t *testing.T) {
	cases := []struct {
		in   string
		want jobRef
		bad  bool
	}{
		{"123", jobRef{key: "123", base: 123, array: Missing, het: Missing}, false},
		{"123.batch", jobRef{key: "123", base: 123, array: Missing, het: Missing, step: "batch"}, false},
		{"123.extern", jobRef{key: "123", base: 123, array: Missing, het: Missing, step: "extern"}, false},
		{"123.0", jobRef{key: "123", base: 123, array: Missing, het: Missing, step: "0"}, false},
		{"123_4", jobRef{key: "123_4", base: 123, array: 4, het: Missing}, false},
		{"123_4.0", jobRef{key: "123_4", base: 123, array: 4, het: Missing, step: "0"}, false},
		{"123_[1-5%2]", jobRef{key: "123_[1-5%2]", base: 123, array: Missing, het: Missing}, false},
		{"123+0", jobRef{key: "123", base: 123, array: Missing, het: 0}, false},
		{"123+1.batch", jobRef{key: "123", base: 123, array: Missing, het: 1, step: "batch"}, false},
		{"", jobRef{}, true},
		{"abc", jobRef{}, true},
		{"123.", jobRef{}, true},
		{"123_x", jobRef{}, true},
		{"123+", jobRef{}, true},
		{"123-4", jobRef{}, true},
	}
	for _, c := range cases {
		got, err := parseJobID(c.in)
		if c.bad {
			if !errors.Is(err, ErrValue) {
				t.Errorf("parseJobID(%q) = %+v, %v; want ErrValue", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseJobID(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

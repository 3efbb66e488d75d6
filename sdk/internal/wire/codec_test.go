package wire_test

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/wire"
	"github.com/schedlab/schedlab/sdk/sim"
)

// Sizes worked out from the format: a job is 4 int64 (ID, Submit, Walltime,
// Runtime) + 5 int32 attributes + a float64 priority = 32+20+8 = 60 bytes,
// + an int32 home and an int64 transfer (protocol 5) = 72, + its tasks
// (protocol 6: 5 int32, 2 int64 and a flag byte, 37) = 109, + its
// dependency (protocol 7: an int32 After and an int64 Think) = 121, + the
// features it requires (protocol 11: a uint64 mask) = 129 bytes, plus 8
// per resource; the tasks' flag byte is the job's 109th (flagAt); a record is 2 int32 + 3 int64 + 1 flag byte = 33, + 3
// int64, 2 int32 and a float64 (protocol 5) = 65, + an int32 attempt count
// and a byte for the outage that ended it (protocol 8) = 70.
const (
	jobBytes    = 129
	flagAt      = 108
	recordBytes = 70
)

func sampleJobs(dims int) []sim.Input {
	req := func(base int64) sdk.Vector {
		v := make(sdk.Vector, dims)
		for k := range v {
			v[k] = base + int64(k)*1_000_000_007
		}
		return v
	}
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 1, Request: req(0),
			User: -1, Group: -1, App: -1, Queue: -1, Partition: -1}, Runtime: 1},
		{Job: sdk.Job{ID: math.MaxInt64, Submit: math.MaxInt64 - 1, Walltime: math.MaxInt64, Request: req(math.MaxInt64 - 3_000_000_021),
			User: math.MaxInt32, Group: math.MinInt32, App: 0, Queue: 7, Partition: -2, Priority: 1e300}, Runtime: math.MaxInt64},
		{Job: sdk.Job{ID: math.MinInt64, Submit: -5, Walltime: -1, Request: req(math.MinInt64),
			User: -123456, Group: 42, App: math.MinInt32, Queue: math.MaxInt32, Partition: 0, Priority: -0.125}, Runtime: math.MinInt64},
		{Job: sdk.Job{ID: 1 << 40, Submit: 1 << 50, Walltime: 86400, Request: req(-1),
			Priority: math.Inf(-1)}, Runtime: 3600},
		{Job: sdk.Job{ID: 9, Submit: 9, Walltime: 9, Request: req(9), Priority: math.SmallestNonzeroFloat64}, Runtime: 9},
		{Job: sdk.Job{ID: 10, Submit: 10, Walltime: 10, Request: req(10), Tasks: &sdk.Tasks{Count: math.MaxInt32, Cores: -1,
			Memory: math.MinInt64, GPUs: 7, Nodes: math.MinInt32, Exclusive: true, Partition: 3, Features: math.MaxUint64}}, Runtime: 10},
		{Job: sdk.Job{ID: 11, Submit: 11, Walltime: 11, Request: req(11)}, Runtime: 11, After: math.MaxInt32, Think: math.MinInt64},
		{Job: sdk.Job{ID: 12, Submit: 12, Walltime: 12, Request: req(12)}, Runtime: 12, After: -1, Think: 1200},
	}
	for i := range jobs {
		jobs[i].Job.Index = i
	}
	return jobs
}

func TestJobsRoundTrip(t *testing.T) {
	for _, dims := range []int{1, 3} {
		jobs := sampleJobs(dims)
		frame := wire.AppendJobs(nil, jobs)
		if want := 1 + len(jobs)*(jobBytes+8*dims); len(frame) != want {
			t.Errorf("dims %d: frame of %d bytes, want %d", dims, len(frame), want)
		}
		if frame[0] != wire.FrameJobs {
			t.Errorf("dims %d: frame kind %q", dims, frame[0])
		}
		got, err := wire.DecodeJobs(nil, frame, dims)
		if err != nil {
			t.Fatalf("dims %d: %v", dims, err)
		}
		if !reflect.DeepEqual(got, jobs) {
			t.Errorf("dims %d: round trip\n got %+v\nwant %+v", dims, got, jobs)
		}
		// The request vectors share one backing array: appending to one
		// must not overwrite the next.
		_ = append(got[0].Job.Request, 777)
		if !slices.Equal(got[1].Job.Request, jobs[1].Job.Request) {
			t.Errorf("dims %d: appending to job 0's request changed job 1's: %v", dims, got[1].Job.Request)
		}
	}
}

// TestJobsAppendAndContinue: AppendJobs appends to dst, DecodeJobs numbers
// jobs from len(dst), and two frames decode into one workload.
func TestJobsAppendAndContinue(t *testing.T) {
	jobs := sampleJobs(2)
	prefix := []byte("keep")
	frame := wire.AppendJobs(slices.Clone(prefix), jobs[:2])
	if !bytes.HasPrefix(frame, prefix) {
		t.Fatalf("AppendJobs lost its prefix: %q", frame[:4])
	}
	got, err := wire.DecodeJobs(nil, frame[len(prefix):], 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err = wire.DecodeJobs(got, wire.AppendJobs(nil, jobs[2:]), 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, jobs) {
		t.Errorf("two frames\n got %+v\nwant %+v", got, jobs)
	}
	// An empty frame is valid and adds nothing.
	if got2, err := wire.DecodeJobs(got, wire.AppendJobs(nil, nil), 2); err != nil || len(got2) != len(jobs) {
		t.Errorf("empty frame: %d jobs, %v", len(got2), err)
	}
}

func allFlagRecords() []sim.Record {
	var recs []sim.Record
	for f := range 8 {
		recs = append(recs, sim.Record{
			Index:      int32(f),
			Cluster:    int32(f % 3),
			Start:      int64(f) * 1000,
			End:        int64(f)*1000 + 17,
			Promised:   int64(f) * 999,
			HasPromise: f&1 != 0,
			Killed:     f&2 != 0,
			Backfilled: f&4 != 0,
		})
	}
	recs = append(recs,
		sim.Record{Index: math.MaxInt32, Cluster: math.MinInt32, Start: math.MinInt64, End: math.MaxInt64, Promised: -1, HasPromise: true},
		sim.Record{Index: -1, Cluster: -1, Start: -1, End: 0, Promised: math.MinInt64, Killed: true, Backfilled: true},
	)
	return recs
}

func TestRecordsRoundTrip(t *testing.T) {
	recs := allFlagRecords()
	frame := wire.AppendRecords(nil, recs)
	if want := 1 + len(recs)*recordBytes; len(frame) != want {
		t.Errorf("frame of %d bytes, want %d", len(frame), want)
	}
	// The flag byte is the last of each record: bit 0 promise, 1 killed,
	// 2 backfilled, so record f (f < 8) carries f.
	for f := range 8 {
		if b := frame[1+f*recordBytes+recordBytes-1]; b != byte(f) {
			t.Errorf("record %d: flag byte %#x, want %#x", f, b, f)
		}
	}
	got, err := wire.DecodeRecords(nil, frame)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, recs) {
		t.Errorf("round trip\n got %+v\nwant %+v", got, recs)
	}
	// Appending to existing records.
	got, err = wire.DecodeRecords(got, frame)
	if err != nil || !slices.Equal(got[len(recs):], recs) || len(got) != 2*len(recs) {
		t.Errorf("second decode: %d records, %v", len(got), err)
	}
}

func TestTruncatedAndWrongFrames(t *testing.T) {
	jobs3 := wire.AppendJobs(nil, sampleJobs(3))
	recs := wire.AppendRecords(nil, allFlagRecords())
	const jobSize3 = jobBytes + 8*3
	decJobs := func(f []byte) error { _, err := wire.DecodeJobs(nil, f, 3); return err }
	decRecs := func(f []byte) error { _, err := wire.DecodeRecords(nil, f); return err }
	for _, tc := range []struct {
		name   string
		decode func([]byte) error
		frame  []byte
		want   string
	}{
		{"jobs: nil", decJobs, nil, "not a jobs frame"},
		{"jobs: empty", decJobs, []byte{}, "not a jobs frame"},
		{"jobs: records frame", decJobs, recs, "not a jobs frame"},
		{"jobs: header kind", decJobs, append([]byte{wire.FrameHeader}, jobs3[1:]...), "not a jobs frame"},
		{"jobs: one byte short", decJobs, jobs3[:len(jobs3)-1], "not a multiple of 153"},
		{"jobs: one byte long", decJobs, append(slices.Clone(jobs3), 0), "not a multiple of 153"},
		{"jobs: half a job", decJobs, jobs3[:1+jobSize3/2], "jobs frame of 76 bytes"},
		// 8 jobs of 3 resources (1224 bytes) read as 2 resources (145 bytes
		// each): 1224 is not a multiple of 145.
		{"jobs: wrong dims", func(f []byte) error { _, err := wire.DecodeJobs(nil, f, 2); return err }, jobs3, "not a multiple of 145"},
		{"jobs: a flag byte of 2", decJobs, func() []byte { b := slices.Clone(jobs3); b[1+flagAt] = 2; return b }(), "tasks flag 2"},
		{"records: nil", decRecs, nil, "not a records frame"},
		{"records: jobs frame", decRecs, jobs3, "not a records frame"},
		{"records: stats kind", decRecs, []byte{wire.FrameStats, '{', '}'}, "not a records frame"},
		{"records: one byte short", decRecs, recs[:len(recs)-1], "not a multiple of 70"},
		{"records: kind byte only plus one", decRecs, []byte{wire.FrameRecords, 1}, "records frame of 1 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.decode(tc.frame)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Every cut of a frame that does not fall on a job boundary is an
	// error, and leaves dst as it was.
	dst := sampleJobs(3)[:1]
	for cut := 1; cut < len(jobs3); cut++ {
		out, err := wire.DecodeJobs(dst, jobs3[:cut], 3)
		if onBoundary := (cut-1)%jobSize3 == 0; onBoundary != (err == nil) {
			t.Errorf("jobs cut at %d: error %v", cut, err)
		}
		if err != nil && len(out) != 1 {
			t.Errorf("jobs cut at %d: dst grew to %d on error", cut, len(out))
		}
	}
	for cut := 1; cut < len(recs); cut++ {
		out, err := wire.DecodeRecords(nil, recs[:cut])
		if onBoundary := (cut-1)%recordBytes == 0; onBoundary != (err == nil) {
			t.Errorf("records cut at %d: error %v", cut, err)
		}
		if err == nil && len(out) != (cut-1)/recordBytes {
			t.Errorf("records cut at %d: %d records", cut, len(out))
		}
	}
}

// TestFrameSizeLimit: a full frame stays within FrameBytes (1 MiB), far
// below gRPC's default 4 MiB message limit, for any number of resources. By
// hand: a job is 129 bytes plus 8 per resource and a record 70 bytes, so
// with 4 resources a full frame has 1048576/161 = 6512 jobs (1 + 6512*161
// = 1,048,433 bytes) and 1048576/70 = 14979 records (1 + 14979*70 =
// 1,048,531 bytes).
func TestFrameSizeLimit(t *testing.T) {
	const grpcDefault = 4 << 20
	if n := wire.JobsPerFrame(4); n != 6512 {
		t.Errorf("JobsPerFrame(4) = %d, want 6512", n)
	}
	if wire.RecordsPerFrame != 14979 {
		t.Errorf("RecordsPerFrame = %d, want 14979", wire.RecordsPerFrame)
	}
	for _, dims := range []int{1, 4, 25, 1000, 200000} {
		n := wire.JobsPerFrame(dims)
		jobs := make([]sim.Input, min(n, 2))
		for i := range jobs {
			jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i), Request: make(sdk.Vector, dims)}, Runtime: 1}
		}
		one := len(wire.AppendJobs(nil, jobs[:1])) - 1
		if full := 1 + n*one; n > 1 && full > wire.FrameBytes+1 {
			t.Errorf("dims %d: a full jobs frame is %d bytes", dims, full)
		}
		if n < 1 {
			t.Errorf("dims %d: %d jobs per frame", dims, n)
		}
	}
	jobs := make([]sim.Input, wire.JobsPerFrame(4))
	for i := range jobs {
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i), Request: sdk.Vector{1, 2, 3, 4}}, Runtime: 1}
	}
	jf := wire.AppendJobs(nil, jobs)
	if len(jf) != 1_048_433 {
		t.Errorf("jobs frame of %d bytes, want 1048433", len(jf))
	}
	if n := proto.Size(wrapperspb.Bytes(jf)); n >= grpcDefault || n != len(jf)+4 {
		t.Errorf("wrapped jobs frame of %d bytes (limit %d)", n, grpcDefault)
	}
	rf := wire.AppendRecords(nil, make([]sim.Record, wire.RecordsPerFrame))
	if len(rf) != 1_048_531 {
		t.Errorf("records frame of %d bytes, want 1048531", len(rf))
	}
	if n := proto.Size(wrapperspb.Bytes(rf)); n >= grpcDefault {
		t.Errorf("wrapped records frame of %d bytes (limit %d)", n, grpcDefault)
	}
}

// checkRecords is the property both the fuzzer and its seeds check: decoding
// never panics; it succeeds exactly on a FrameRecords byte followed by whole
// records; and re-encoding what it decoded gives the input back, with the
// unused flag bits cleared.
func checkRecords(t *testing.T, data []byte) {
	recs, err := wire.DecodeRecords(nil, data)
	valid := len(data) > 0 && data[0] == wire.FrameRecords && (len(data)-1)%recordBytes == 0
	if valid != (err == nil) {
		t.Fatalf("%d bytes (kind %q): error %v", len(data), data[:min(len(data), 1)], err)
	}
	if err != nil {
		return
	}
	if len(recs) != (len(data)-1)/recordBytes {
		t.Fatalf("%d records from %d bytes", len(recs), len(data))
	}
	want := slices.Clone(data)
	for i := 1 + recordBytes - 1; i < len(want); i += recordBytes {
		want[i] &= 0x7f
	}
	if got := wire.AppendRecords(nil, recs); !bytes.Equal(got, want) {
		t.Fatalf("re-encoding differs:\n got %x\nwant %x", got, want)
	}
}

// checkJobs is checkRecords for jobs frames; every bit of a job frame is
// meaningful but the tasks' flag byte, 0 or 1, so re-encoding gives a
// valid input back exactly.
func checkJobs(t *testing.T, data []byte, dimsByte uint8) {
	dims := int(dimsByte % 8)
	size := jobBytes + 8*dims
	jobs, err := wire.DecodeJobs(nil, data, dims)
	valid := len(data) > 0 && data[0] == wire.FrameJobs && (len(data)-1)%size == 0
	for i := 1 + flagAt; valid && i < len(data); i += size {
		valid = data[i] <= 1
	}
	if valid != (err == nil) {
		t.Fatalf("%d bytes (kind %q), dims %d: error %v", len(data), data[:min(len(data), 1)], dims, err)
	}
	if err != nil {
		return
	}
	if len(jobs) != (len(data)-1)/size {
		t.Fatalf("%d jobs from %d bytes", len(jobs), len(data))
	}
	for i := range jobs {
		if jobs[i].Job.Index != i || len(jobs[i].Job.Request) != dims {
			t.Fatalf("job %d: index %d, %d resources", i, jobs[i].Job.Index, len(jobs[i].Job.Request))
		}
	}
	if got := wire.AppendJobs(nil, jobs); !bytes.Equal(got, data) {
		t.Fatalf("re-encoding differs:\n got %x\nwant %x", got, data)
	}
}

func FuzzDecodeRecords(f *testing.F) {
	full := wire.AppendRecords(nil, allFlagRecords())
	for _, seed := range [][]byte{
		nil,
		{},
		{wire.FrameRecords},
		{wire.FrameJobs},
		full,
		full[:len(full)-1],
		full[:1+recordBytes],
		// One byte too many.
		append(slices.Clone(full[:1+recordBytes]), 0xff),
		// Unused flag bits set.
		func() []byte { b := slices.Clone(full[:1+recordBytes]); b[recordBytes] = 0xff; return b }(),
	} {
		f.Add(seed)
	}
	f.Fuzz(checkRecords)
}

func FuzzDecodeJobs(f *testing.F) {
	for _, dims := range []uint8{0, 1, 3} {
		full := wire.AppendJobs(nil, sampleJobs(int(dims)))
		f.Add(full, dims)
		f.Add(full[:len(full)-1], dims)
		f.Add(full, dims+1)
	}
	f.Add([]byte(nil), uint8(1))
	f.Add([]byte{wire.FrameJobs}, uint8(1))
	f.Add([]byte{wire.FrameRecords}, uint8(1))
	// A NaN priority with payload bits must survive the round trip.
	nan := wire.AppendJobs(nil, sampleJobs(1)[:1])
	copy(nan[1+52:], []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f})
	f.Add(nan, uint8(1))
	f.Fuzz(checkJobs)
}

// TestSeedProperties runs the fuzz properties on the seeds and a few
// hand-picked inputs even when the fuzzers are not run with -fuzz.
func TestSeedProperties(t *testing.T) {
	checkRecords(t, []byte{wire.FrameRecords, 0})
	checkJobs(t, []byte{wire.FrameJobs}, 200) // 200 % 8 = 0 resources
	checkJobs(t, append([]byte{wire.FrameJobs}, make([]byte, jobBytes)...), 0)
}

func TestUnitsRoundTrip(t *testing.T) {
	units := []int32{0, 1, -1, 12, math.MaxInt32, math.MinInt32}
	frame := wire.AppendUnits(nil, units)
	if want := 1 + 4*len(units); len(frame) != want {
		t.Errorf("frame of %d bytes, want %d", len(frame), want)
	}
	got, err := wire.DecodeUnits([]int32{7}, frame)
	if err != nil || !slices.Equal(got, append([]int32{7}, units...)) {
		t.Errorf("round trip %v, %v", got, err)
	}
	for _, bad := range [][]byte{nil, {wire.FrameRecords}, frame[:len(frame)-1]} {
		if _, err := wire.DecodeUnits(nil, bad); err == nil {
			t.Errorf("frame %v decoded without error", bad)
		}
	}
}

func TestAllocsRoundTrip(t *testing.T) {
	a := &sim.Allocs{Start: []int32{0, 2, 2, 5}, Nodes: []int32{0, 7, 1, 2, 3}, Tasks: []int32{4, 1, 2, 2, 2}}
	vals := wire.AllocsStream(a)
	if want := []uint32{2, 0, 4, 7, 1, 0, 3, 1, 2, 2, 2, 3, 2}; !slices.Equal(vals, want) {
		t.Fatalf("stream %v, want %v", vals, want)
	}
	// Cut into frames anywhere between two values.
	var got []uint32
	var err error
	for _, part := range [][]uint32{vals[:3], vals[3:4], vals[4:]} {
		if got, err = wire.DecodeAllocs(got, wire.AppendAllocs(nil, part)); err != nil {
			t.Fatal(err)
		}
	}
	back, err := wire.ParseAllocs(got, 3)
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("parsed %+v, %v; want %+v", back, err, a)
	}
	for _, tc := range []struct {
		vals []uint32
		jobs int
		want string
	}{
		{vals, 4, "allocations of 3 jobs for 4"},
		{vals, 2, "values after the allocations of 2 jobs"},
		{[]uint32{3, 0, 1}, 1, "more than the stream holds"},
		{[]uint32{1 << 31, 0, 1}, 1, "more than the stream holds"},
	} {
		if _, err := wire.ParseAllocs(tc.vals, tc.jobs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseAllocs(%v, %d) = %v, want %q", tc.vals, tc.jobs, err, tc.want)
		}
	}
	if _, err := wire.DecodeAllocs(nil, []byte{wire.FrameAllocs, 1, 2}); err == nil {
		t.Error("a frame of half a value decoded")
	}
}

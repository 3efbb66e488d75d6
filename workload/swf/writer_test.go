package swf_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/swf"
)

// stripLines zeroes Record.Line, which a writer does not keep: a record's
// line number depends on where it lands in the output.
func stripLines(recs []swf.Record) []swf.Record {
	out := make([]swf.Record, len(recs))
	for i, r := range recs {
		r.Line = 0
		out[i] = r
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	in := headerSnippet +
		line("1", "0", "5", "100", "4", "552.21", "0.1", "4", "200", "1e6", "1", "1", "1", "-1", "1", "1", "-1", "-1") + "\n" +
		line("2", "3", "0", "7", "8", "-1", "-1", "8", "60", "-1", "0", "2", "1", "-1", "1", "2", "1", "30") + "\n"
	r := swf.NewReader(strings.NewReader(in), "in.swf")
	recs := readAll(t, r)
	h := r.Header()

	var out bytes.Buffer
	if err := swf.Write(&out, h, recs); err != nil {
		t.Fatal(err)
	}
	r2 := swf.NewReader(bytes.NewReader(out.Bytes()), "out.swf")
	recs2 := readAll(t, r2)
	if !reflect.DeepEqual(stripLines(recs2), stripLines(recs)) {
		t.Errorf("records changed:\n got %+v\nwant %+v", recs2, recs)
	}
	if !reflect.DeepEqual(r2.Header(), h) {
		t.Errorf("header changed:\n got %+v\nwant %+v", r2.Header(), h)
	}
	if !strings.HasPrefix(out.String(), headerSnippet) {
		t.Errorf("header not written verbatim:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "\n1 0 5 100 4 552.21 0.1 4 200 1000000 1 1 1 -1 1 1 -1 -1\n") {
		t.Errorf("record 1 not written in shortest form:\n%s", out.String())
	}
}

func TestWritePairsOnlyHeader(t *testing.T) {
	h := swf.Header{Pairs: []swf.Pair{
		{Key: "Version", Value: "2.2"},
		{Key: "MaxProcs", Value: "64"},
		{Key: "Note", Value: "generated\nby a test"},
		{Key: "Partition", Value: "1 a"},
		{Key: "Partition", Value: "2 b"},
	}}
	recs := []swf.Record{{JobNumber: 1, Submit: 0, RunTime: 10, AllocProcs: 2, ReqProcs: 2, ReqTime: 20,
		AvgCPUTime: -1, UsedMemory: -1, ReqMemory: -1, Status: 1, User: 1, Group: 1, App: -1, Queue: -1, Partition: 1,
		PrecedingJob: -1, ThinkTime: -1}}
	var out bytes.Buffer
	if err := swf.Write(&out, h, recs); err != nil {
		t.Fatal(err)
	}
	r := swf.NewReader(bytes.NewReader(out.Bytes()), "gen.swf")
	got := readAll(t, r)
	gh := r.Header()
	for i := range gh.Pairs {
		gh.Pairs[i].Line = 0
	}
	if !reflect.DeepEqual(gh.Pairs, h.Pairs) {
		t.Errorf("pairs read back %+v, want %+v", gh.Pairs, h.Pairs)
	}
	if mp, ok := gh.MaxProcs(); !ok || mp != 64 {
		t.Errorf("MaxProcs = %d, %v", mp, ok)
	}
	if !reflect.DeepEqual(stripLines(got), recs) {
		t.Errorf("records read back %+v, want %+v", got, recs)
	}
}

func TestWriterErrors(t *testing.T) {
	cases := []struct {
		name string
		do   func(w *swf.Writer) error
		has  string
	}{
		{"header line without ';'", func(w *swf.Writer) error {
			return w.WriteHeader(swf.Header{Lines: []string{"; ok", "MaxProcs: 3"}})
		}, "header line 2"},
		{"header line with newline", func(w *swf.Writer) error {
			return w.WriteHeader(swf.Header{Lines: []string{"; a\n; b"}})
		}, "line break"},
		{"bad key", func(w *swf.Writer) error {
			return w.WriteHeader(swf.Header{Pairs: []swf.Pair{{Key: "Max Procs", Value: "3"}}})
		}, `header key "Max Procs"`},
		{"header after record", func(w *swf.Writer) error {
			if err := w.Write(swf.Record{JobNumber: 1}); err != nil {
				return err
			}
			return w.WriteHeader(swf.Header{})
		}, "header written twice or after a record"},
		{"comment without ';'", func(w *swf.Writer) error { return w.WriteComment("note") }, "does not start with ';'"},
		{"NaN field", func(w *swf.Writer) error {
			var nan float64
			nan = nan / nan
			return w.Write(swf.Record{JobNumber: 7, UsedMemory: nan})
		}, "job 7: field 7 (used memory) is NaN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := swf.NewWriter(&bytes.Buffer{})
			err := c.do(w)
			if err == nil || !strings.Contains(err.Error(), c.has) {
				t.Fatalf("error %v, want one containing %q", err, c.has)
			}
			if again := w.Flush(); !errors.Is(again, err) {
				t.Errorf("error is not final: Flush = %v", again)
			}
		})
	}
}

func TestWriteBodyComments(t *testing.T) {
	in := "; MaxProcs: 4\n" +
		line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1") + "\n" +
		"; between\n" +
		line("2", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1") + "\n"
	r := swf.NewReader(strings.NewReader(in), "b.swf")
	recs := readAll(t, r)
	var out bytes.Buffer
	w := swf.NewWriter(&out)
	if err := w.WriteHeader(r.Header()); err != nil {
		t.Fatal(err)
	}
	body := r.BodyComments()
	for _, rec := range recs {
		for len(body) > 0 && body[0].Line < rec.Line {
			if err := w.WriteComment(body[0].Text); err != nil {
				t.Fatal(err)
			}
			body = body[1:]
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r2 := swf.NewReader(bytes.NewReader(out.Bytes()), "b2.swf")
	recs2 := readAll(t, r2)
	if !reflect.DeepEqual(recs2, recs) || !reflect.DeepEqual(r2.BodyComments(), r.BodyComments()) {
		t.Errorf("body comments or line numbers changed:\n%s", out.String())
	}
}

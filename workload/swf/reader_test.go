package swf_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/swf"
)

// readAll reads every record of src, failing the test on error.
func readAll(t *testing.T, r *swf.Reader) []swf.Record {
	t.Helper()
	var out []swf.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, rec)
	}
}

// line builds a job line from 18 field texts, so that tests state every
// field without counting columns by eye.
func line(fields ...string) string {
	if len(fields) != swf.NumFields {
		panic("line: need 18 fields")
	}
	return strings.Join(fields, " ")
}

const headerSnippet = `; Version: 2.2
; Computer: Linux cluster (Seth)
;Installation: no space after the semicolon
; Information: http://example.org/one
;              http://example.org/two
; MaxJobs: 527371
; MaxRecords: 3
; UnixStartTime: 1027839845
; MaxNodes: 240
; MaxProcs: 480
; Note: first note
;	see: a wrapped line that looks like a key
;
;   --- free text, not a pair ---
; Queue:  1  [fque:1]    
; Partition:  1  DEFAULT
; Partition:  2  ALL
; Note: second note
;       continued here
;         and here
;
`

func TestHeader(t *testing.T) {
	body := headerSnippet +
		"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n" +
		"; a comment between jobs\n" +
		"\n" +
		"2 10 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 2 -1 -1\n"
	r := swf.NewReader(strings.NewReader(body), "h.swf")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if got, want := len(h.Lines), strings.Count(headerSnippet, "\n"); got != want {
		t.Errorf("header has %d lines, want %d", got, want)
	}
	if h.Lines[len(h.Lines)-1] != ";" || h.Lines[14] != "; Queue:  1  [fque:1]    " {
		t.Errorf("raw lines not kept verbatim: %q, %q", h.Lines[len(h.Lines)-1], h.Lines[14])
	}
	wantPairs := []swf.Pair{
		{Key: "Version", Value: "2.2", Line: 1},
		{Key: "Computer", Value: "Linux cluster (Seth)", Line: 2},
		{Key: "Installation", Value: "no space after the semicolon", Line: 3},
		{Key: "Information", Value: "http://example.org/one\nhttp://example.org/two", Line: 4},
		{Key: "MaxJobs", Value: "527371", Line: 6},
		{Key: "MaxRecords", Value: "3", Line: 7},
		{Key: "UnixStartTime", Value: "1027839845", Line: 8},
		{Key: "MaxNodes", Value: "240", Line: 9},
		{Key: "MaxProcs", Value: "480", Line: 10},
		{Key: "Note", Value: "first note\nsee: a wrapped line that looks like a key", Line: 11},
		{Key: "Queue", Value: "1  [fque:1]", Line: 15},
		{Key: "Partition", Value: "1  DEFAULT", Line: 16},
		{Key: "Partition", Value: "2  ALL", Line: 17},
		{Key: "Note", Value: "second note\ncontinued here\nand here", Line: 18},
	}
	if !reflect.DeepEqual(h.Pairs, wantPairs) {
		t.Errorf("pairs:\n got %+v\nwant %+v", h.Pairs, wantPairs)
	}
	ints := []struct {
		name string
		get  func() (int64, bool)
		want int64
	}{
		{"MaxProcs", h.MaxProcs, 480},
		{"MaxNodes", h.MaxNodes, 240},
		{"UnixStartTime", h.UnixStartTime, 1027839845},
		{"MaxJobs", h.MaxJobs, 527371},
		{"MaxRecords", h.MaxRecords, 3},
	}
	for _, c := range ints {
		if v, ok := c.get(); !ok || v != c.want {
			t.Errorf("%s = %d, %v; want %d, true", c.name, v, ok, c.want)
		}
	}
	if got := h.All("Partition"); !reflect.DeepEqual(got, []string{"1  DEFAULT", "2  ALL"}) {
		t.Errorf("All(Partition) = %q", got)
	}
	if v, ok := h.Get("Note"); !ok || !strings.HasPrefix(v, "first") {
		t.Errorf("Get(Note) = %q, %v; want the first note", v, ok)
	}
	if _, ok := h.Get("MaxQueues"); ok {
		t.Error("Get(MaxQueues) found a key that is not there")
	}
	recs := readAll(t, r)
	if len(recs) != 1 || recs[0].JobNumber != 2 {
		t.Fatalf("second record: %+v", recs)
	}
	if got := r.Header(); len(got.Lines) != len(h.Lines) {
		t.Errorf("a body comment went into the header: %d lines, want %d", len(got.Lines), len(h.Lines))
	}
	wantBody := []swf.Comment{{Line: 23, Text: "; a comment between jobs"}}
	if !reflect.DeepEqual(r.BodyComments(), wantBody) {
		t.Errorf("body comments = %+v, want %+v", r.BodyComments(), wantBody)
	}
	if r.BlankLines() != 1 {
		t.Errorf("blank lines = %d, want 1", r.BlankLines())
	}
}

func TestHeaderAbsentKeys(t *testing.T) {
	r := swf.NewReader(strings.NewReader("; just text\n"), "e.swf")
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
	h := r.Header()
	if _, ok := h.MaxProcs(); ok {
		t.Error("MaxProcs present in a header without it")
	}
	if len(h.Lines) != 1 || len(h.Pairs) != 0 {
		t.Errorf("header = %+v", h)
	}
}

func TestRecordFields(t *testing.T) {
	r := swf.NewReader(strings.NewReader(
		line("12", "342343", "5", "553", "40", "552.21", "1024.5", "48", "43200", "2e3", "5", "4", "7", "9", "2", "3", "11", "60")+"\n"), "f.swf")
	recs := readAll(t, r)
	want := swf.Record{
		Line: 1, JobNumber: 12, Submit: 342343, Wait: 5, RunTime: 553, AllocProcs: 40,
		AvgCPUTime: 552.21, UsedMemory: 1024.5, ReqProcs: 48, ReqTime: 43200, ReqMemory: 2000,
		Status: 5, User: 4, Group: 7, App: 9, Queue: 2, Partition: 3, PrecedingJob: 11, ThinkTime: 60,
	}
	if len(recs) != 1 || recs[0] != want {
		t.Errorf("got %+v\nwant %+v", recs, want)
	}
}

func TestParseLines(t *testing.T) {
	ok := line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1")
	cases := []struct {
		name    string
		text    string
		runtime int64   // expected RunTime of the last record when no error
		cpu     float64 // expected AvgCPUTime of the last record
		errIs   error
		errHas  string
	}{
		{name: "spaces", text: ok + "\n", runtime: 100, cpu: -1},
		{name: "tabs and runs of blanks", text: strings.ReplaceAll(ok, " ", "\t  ") + "\n", runtime: 100, cpu: -1},
		{name: "leading blanks and CRLF", text: "   " + ok + "\r\n", runtime: 100, cpu: -1},
		{name: "no final newline", text: ok, runtime: 100, cpu: -1},
		{name: "whole decimal in integer field", text: strings.Replace(ok, " 100 ", " 100.0 ", 1), runtime: 100, cpu: -1},
		{name: "explicit plus sign", text: strings.Replace(ok, " 100 ", " +100 ", 1), runtime: 100, cpu: -1},
		{name: "fractional float field", text: strings.Replace(ok, " -1 -1 4 ", " 0.25 -1 4 ", 1), runtime: 100, cpu: 0.25},
		{name: "comment after a job", text: ok + "\n; trailing\n", runtime: 100, cpu: -1},
		{name: "fractional integer field", text: "; h\n" + strings.Replace(ok, " 100 ", " 100.5 ", 1),
			errIs: swf.ErrFractional, errHas: `t.swf:2: field 4 (run time): `},
		{name: "not a number", text: "; h\n;h2\n" + strings.Replace(ok, " 4 -1", " x4 -1", 1),
			errIs: swf.ErrNumber, errHas: `t.swf:3: field 5 (allocated processors): not a number: "x4"`},
		{name: "bad float field", text: strings.Replace(ok, " -1 -1 4 ", " 1..2 -1 4 ", 1),
			errIs: swf.ErrNumber, errHas: `t.swf:1: field 6 (average CPU time)`},
		{name: "NaN in float field", text: strings.Replace(ok, " -1 -1 4 ", " NaN -1 4 ", 1),
			errIs: swf.ErrNumber, errHas: `field 6`},
		{name: "integer overflow", text: strings.Replace(ok, " 100 ", " 9223372036854775808 ", 1),
			errIs: swf.ErrNumber, errHas: `t.swf:1: field 4`},
		{name: "too few fields", text: ok + "\n" + strings.TrimSuffix(ok, " -1"),
			errIs: swf.ErrFieldCount, errHas: "t.swf:2: wrong number of fields: found 17, want 18"},
		{name: "too many fields, one bad", text: strings.Replace(ok, "100", "x", 1) + " 7",
			errIs: swf.ErrFieldCount, errHas: "t.swf:1: wrong number of fields: found 19, want 18"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := swf.NewReader(strings.NewReader(c.text), "t.swf")
			var last swf.Record
			var err error
			for {
				var rec swf.Record
				rec, err = r.Next()
				if err != nil {
					break
				}
				last = rec
			}
			if c.errIs == nil {
				if err != io.EOF {
					t.Fatalf("error %v, want io.EOF", err)
				}
				if last.RunTime != c.runtime || last.AvgCPUTime != c.cpu {
					t.Errorf("runtime %d, cpu %v; want %d, %v", last.RunTime, last.AvgCPUTime, c.runtime, c.cpu)
				}
				return
			}
			if !errors.Is(err, c.errIs) || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("error %q, want %v containing %q", err, c.errIs, c.errHas)
			}
			if _, again := r.Next(); again != err {
				t.Errorf("error is not final: then %v", again)
			}
			if r.SHA256() != "" {
				t.Error("SHA256 set after an error")
			}
		})
	}
}

func TestBadHeaderValue(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.swf")
	if err := os.WriteFile(p, []byte("; Version: 2\n; MaxProcs: many\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := swf.Open(p)
	if err == nil || !strings.Contains(err.Error(), p+`:2: header MaxProcs: "many" is not an integer`) {
		t.Fatalf("Open = %v, want a file:line error on MaxProcs", err)
	}
}

// gz compresses b.
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

func TestOpenPlainAndGzip(t *testing.T) {
	plain := []byte(headerSnippet +
		line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1") + "\n" +
		line("2", "3", "0", "7", "8", "6.5", "-1", "8", "60", "-1", "0", "2", "1", "-1", "1", "2", "-1", "-1") + "\n")
	sum := sha256.Sum256(plain)
	want := hex.EncodeToString(sum[:])
	compressed := gz(t, plain)
	dir := t.TempDir()
	cases := []struct {
		file string
		data []byte
	}{
		{"plain.swf", plain},
		{"plain-named.swf.gz", plain},        // the name lies: content decides
		{"compressed.swf.gz", compressed},    // the usual case
		{"compressed-named.swf", compressed}, // gzip without the .gz name
	}
	var first []swf.Record
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p := filepath.Join(dir, c.file)
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := swf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if mp, ok := r.Header().MaxProcs(); !ok || mp != 480 {
				t.Errorf("header not complete after Open: MaxProcs %d, %v", mp, ok)
			}
			if r.SHA256() != "" {
				t.Error("SHA256 set before EOF")
			}
			recs := readAll(t, r)
			if len(recs) != 2 || recs[1].AvgCPUTime != 6.5 || recs[1].Line != 23 {
				t.Fatalf("records = %+v", recs)
			}
			if first == nil {
				first = recs
			} else if !reflect.DeepEqual(recs, first) {
				t.Errorf("records differ from the plain file's")
			}
			if got := r.SHA256(); got != want {
				t.Errorf("SHA256 = %s, want %s (of the uncompressed bytes)", got, want)
			}
			if err := r.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

func TestCorruptInput(t *testing.T) {
	plain := []byte(strings.Repeat(line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1")+"\n", 2000))
	c := gz(t, plain)
	cases := []struct {
		name string
		data []byte
		has  string
	}{
		{"truncated gzip", c[:len(c)/2], "z.swf"},
		{"bad gzip checksum", append(append([]byte{}, c[:len(c)-8]...), 0, 0, 0, 0, 0, 0, 0, 0), "z.swf"},
		{"gzip magic, bad header", []byte{0x1f, 0x8b, 0, 0}, "z.swf: gzip"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := swf.NewReader(bytes.NewReader(tc.data), "z.swf")
			var err error
			for err == nil {
				_, err = r.Next()
			}
			if err == io.EOF || !strings.Contains(err.Error(), tc.has) {
				t.Fatalf("error %v, want a read error naming %q", err, tc.has)
			}
		})
	}
}

func TestLongCommentLine(t *testing.T) {
	long := "; Note: " + strings.Repeat("x", 200_000)
	text := long + "\n" + line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1") + "\n"
	r := swf.NewReader(strings.NewReader(text), "l.swf")
	recs := readAll(t, r)
	h := r.Header()
	if len(recs) != 1 || recs[0].Line != 2 || len(h.Lines) != 1 || h.Lines[0] != long {
		t.Fatalf("long line mangled: %d records, header lines %d", len(recs), len(h.Lines))
	}
}

func TestEmptyInput(t *testing.T) {
	r := swf.NewReader(strings.NewReader(""), "empty.swf")
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
	sum := sha256.Sum256(nil)
	if r.SHA256() != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 of empty input = %s", r.SHA256())
	}
}

func TestNextAfterClose(t *testing.T) {
	r := swf.NewReader(strings.NewReader(headerSnippet), "c.swf")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || err == io.EOF {
		t.Fatalf("Next after Close = %v, want an error", err)
	}
}

// TestTruncatedGzip cuts a compressed trace at many points, through Open
// (which reads the file ahead on another goroutine) and NewReader: every
// cut is reported as a compressed stream that ends early, naming the file,
// never as a malformed last line nor, at a cut that falls between lines,
// as a shorter trace read without error.
func TestTruncatedGzip(t *testing.T) {
	plain := []byte(headerSnippet + strings.Repeat(line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1")+"\n", 50_000))
	c := gz(t, plain)
	dir := t.TempDir()
	for _, cut := range []int{len(c) / 10, len(c) / 3, len(c) / 2, len(c) - 100, len(c) - 9, len(c) - 1} {
		path := filepath.Join(dir, "cut.swf.gz")
		if err := os.WriteFile(path, c[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		open := func() (*swf.Reader, error) { return swf.Open(path) }
		byReader := func() (*swf.Reader, error) { return swf.NewReader(bytes.NewReader(c[:cut]), path), nil }
		for name, mk := range map[string]func() (*swf.Reader, error){"Open": open, "NewReader": byReader} {
			r, err := mk()
			for err == nil {
				_, err = r.Next()
			}
			if r != nil {
				r.Close()
			}
			if !errors.Is(err, swf.ErrTruncated) || !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, swf.ErrFieldCount) ||
				!strings.Contains(err.Error(), path+": reading line ") || !strings.Contains(err.Error(), "gzip: ") {
				t.Errorf("%s, cut at %d of %d bytes: %v, want a truncated gzip stream naming the file", name, cut, len(c), err)
			}
		}
	}
}

// TestLineBound reads lines of exactly MaxLineBytes (a job line padded
// with blanks, a comment) and fails, naming the line, on one byte more,
// with or without a newline at its end.
func TestLineBound(t *testing.T) {
	job := line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1")
	padded := job + strings.Repeat(" ", swf.MaxLineBytes-len(job))
	comment := ";" + strings.Repeat("c", swf.MaxLineBytes-1)
	r := swf.NewReader(strings.NewReader("; MaxProcs: 8\n"+padded+"\n"+comment+"\n"+job), "ok.swf")
	if recs := readAll(t, r); len(recs) != 2 || recs[1].Line != 4 || len(r.BodyComments()) != 1 {
		t.Fatalf("lines of MaxLineBytes: %d records, %d comments", len(recs), len(r.BodyComments()))
	}
	for _, end := range []string{"", "\n", "\r\n"} {
		text := "; MaxProcs: 8\n" + job + "\n" + padded + " " + end + job + "\n"
		r := swf.NewReader(strings.NewReader(text), "long.swf")
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if !errors.Is(err, swf.ErrLineTooLong) || !strings.HasPrefix(err.Error(), "long.swf:3: line too long") {
			t.Errorf("a line of MaxLineBytes+1 ending %q: %v, want an error naming long.swf:3", end, err)
		}
	}
}

// TestHeaderBound: a header of more than MaxHeaderBytes is an error naming
// the line that passes the bound; many continuation lines of one pair are
// all joined to it.
func TestHeaderBound(t *testing.T) {
	note := ";\t" + strings.Repeat("n", 98) // 100 bytes a line
	lines := swf.MaxHeaderBytes / 100
	text := "; Note: start\n" + strings.Repeat(note+"\n", lines-1) + line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1") + "\n"
	r := swf.NewReader(strings.NewReader(text), "h.swf")
	if recs := readAll(t, r); len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	v, _ := r.Header().Get("Note")
	if want := "start" + strings.Repeat("\n"+note[2:], lines-1); v != want {
		t.Errorf("the note's value has %d bytes, want %d", len(v), len(want))
	}
	text = "; Note: start\n" + strings.Repeat(note+"\n", lines+100)
	_, err := swf.NewReader(strings.NewReader(text), "h.swf").Next()
	// The first line's 13 bytes, then 100 a line (newlines not counted).
	if want := fmt.Sprintf("h.swf:%d: header too long", 1+(swf.MaxHeaderBytes-13)/100+1); !errors.Is(err, swf.ErrHeaderTooLong) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a header of more than MaxHeaderBytes: %v, want %q", err, want)
	}
}

// TestBodyCommentBound: the comments after the first job are kept up to
// MaxBodyCommentBytes of text, the first ones, and the records all read.
func TestBodyCommentBound(t *testing.T) {
	job := line("1", "0", "5", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1")
	comment := ";" + strings.Repeat("c", 999)
	n := swf.MaxBodyCommentBytes/1000 + 10
	text := job + "\n" + strings.Repeat(comment+"\n"+job+"\n", n)
	r := swf.NewReader(strings.NewReader(text), "b.swf")
	recs := readAll(t, r)
	kept := r.BodyComments()
	if len(recs) != n+1 || len(kept) != swf.MaxBodyCommentBytes/1000 || kept[0].Line != 2 || kept[len(kept)-1].Line != 2*len(kept) {
		t.Errorf("%d records, %d comments kept (first at line %d), want %d and the first %d", len(recs), len(kept), kept[0].Line, n+1, swf.MaxBodyCommentBytes/1000)
	}
}

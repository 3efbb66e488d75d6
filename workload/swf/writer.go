package swf

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Writer writes an SWF trace: a header, then records and comments in the
// order they are given. Output is buffered; call Flush at the end.
type Writer struct {
	w      *bufio.Writer
	buf    []byte
	header bool // the header was written
	err    error
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, bufSize)}
}

// WriteHeader writes h. It writes h.Lines verbatim when there are any, so
// a header read from a file is written back unchanged; otherwise it writes
// one "; Key: value" line per pair, continuation lines of a multi-line
// value indented by a tab (which the Reader joins back). It must come
// before the first record.
func (w *Writer) WriteHeader(h Header) error {
	if w.err != nil {
		return w.err
	}
	if w.header {
		return w.fail(fmt.Errorf("swf: header written twice or after a record"))
	}
	w.header = true
	if len(h.Lines) > 0 {
		for i, l := range h.Lines {
			if err := checkComment(l); err != nil {
				return w.fail(fmt.Errorf("swf: header line %d: %w", i+1, err))
			}
			w.line(l)
		}
		return w.err
	}
	for _, p := range h.Pairs {
		if !isKey(p.Key) {
			return w.fail(fmt.Errorf("swf: header key %q: want letters, digits and '_', starting with a letter", p.Key))
		}
		for i, part := range strings.Split(p.Value, "\n") {
			if strings.ContainsRune(part, '\r') {
				return w.fail(fmt.Errorf("swf: header %s: value contains a carriage return", p.Key))
			}
			if i == 0 {
				w.line("; " + p.Key + ": " + part)
			} else {
				w.line(";\t" + part)
			}
		}
	}
	return w.err
}

// WriteComment writes one comment line, which must start with ';'. Use it
// to write back the body comments of a Reader.
func (w *Writer) WriteComment(line string) error {
	if w.err != nil {
		return w.err
	}
	if err := checkComment(line); err != nil {
		return w.fail(fmt.Errorf("swf: comment: %w", err))
	}
	w.header = true
	w.line(line)
	return w.err
}

// Write writes one record, integers in decimal and fractional fields in the
// shortest form that reads back to the same float64. Record.Line is not
// written.
func (w *Writer) Write(r Record) error {
	if w.err != nil {
		return w.err
	}
	w.header = true
	b := w.buf[:0]
	for i := 1; i <= NumFields; i++ {
		if i > 1 {
			b = append(b, ' ')
		}
		if isFloatField(i) {
			x := *r.floatField(i)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return w.fail(fmt.Errorf("swf: job %d: field %d (%s) is %v", r.JobNumber, i, FieldName(i), x))
			}
			b = strconv.AppendFloat(b, x, 'f', -1, 64)
			continue
		}
		b = strconv.AppendInt(b, *r.intField(i), 10)
	}
	b = append(b, '\n')
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		return w.fail(fmt.Errorf("swf: %w", err))
	}
	return nil
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		return w.fail(fmt.Errorf("swf: %w", err))
	}
	return nil
}

// Write writes a whole trace: h, then recs, then flushes.
func Write(w io.Writer, h Header, recs []Record) error {
	sw := NewWriter(w)
	if err := sw.WriteHeader(h); err != nil {
		return err
	}
	for _, r := range recs {
		if err := sw.Write(r); err != nil {
			return err
		}
	}
	return sw.Flush()
}

func (w *Writer) line(s string) {
	if w.err != nil {
		return
	}
	if _, err := w.w.WriteString(s); err != nil {
		w.fail(fmt.Errorf("swf: %w", err))
		return
	}
	if err := w.w.WriteByte('\n'); err != nil {
		w.fail(fmt.Errorf("swf: %w", err))
	}
}

// fail makes err final: after a failed write the output is incomplete, and
// carrying on would hide that.
func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// checkComment rejects a line that would not read back as one comment.
func checkComment(l string) error {
	if !strings.HasPrefix(strings.TrimLeft(l, " \t"), ";") {
		return fmt.Errorf("%q does not start with ';'", l)
	}
	if strings.ContainsAny(l, "\n\r") {
		return fmt.Errorf("%q contains a line break", l)
	}
	return nil
}

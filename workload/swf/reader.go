package swf

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"strconv"
)

// ErrFieldCount is wrapped by the error for a job line that does not have
// NumFields fields.
var ErrFieldCount = errors.New("wrong number of fields")

// ErrNumber is wrapped by the error for a field that is not a number.
var ErrNumber = errors.New("not a number")

// ErrFractional is wrapped by the error for a fractional value in an
// integer field (only fields 6, 7 and 10 may be fractional).
var ErrFractional = errors.New("fractional value in an integer field")

// ErrLineTooLong is wrapped by the error for a line of more than
// MaxLineBytes bytes.
var ErrLineTooLong = errors.New("line too long")

// ErrHeaderTooLong is wrapped by the error for a header of more than
// MaxHeaderBytes bytes.
var ErrHeaderTooLong = errors.New("header too long")

// ErrTruncated is wrapped, with io.ErrUnexpectedEOF, by the error for a
// gzip-compressed trace whose compressed stream ends before its end: a file
// cut short by a download, a copy or a full disk.
var ErrTruncated = errors.New("the compressed stream ends early (is the file truncated?)")

// MaxLineBytes bounds a line of a trace, newline excluded. A job line is 18
// numbers, under 200 bytes in every trace of the Parallel Workloads
// Archive; the bound leaves room for long comment lines while keeping a
// file without newlines (a binary file, a corrupted one) from being held
// whole in memory: such a line is an error naming it.
const MaxLineBytes = 1 << 20

// MaxHeaderBytes bounds the header's text, the comment lines before the
// first job (a few kilobytes in every trace of the archive); a longer
// header is an error naming the line that passes the bound.
const MaxHeaderBytes = 1 << 20

// MaxBodyCommentBytes bounds the text of the comment lines after the first
// job that BodyComments keeps; the comment lines past it are skipped.
const MaxBodyCommentBytes = 1 << 20

// Comment is a comment line met after the first job line. It is kept, in
// case a tool wants to write the trace back, but it is not part of the
// header: SWF defines the header as the comments before the first job.
type Comment struct {
	// Line is the 1-based line number.
	Line int
	// Text is the whole line, leading ';' included.
	Text string
}

// Reader reads an SWF trace one record at a time.
type Reader struct {
	name    string
	src     io.Reader
	file    *os.File // set by Open, closed by Close
	gz      *gzip.Reader
	ahead   *readAhead // reads the source ahead, for a file Open opened
	br      *bufio.Reader
	hash    hash.Hash
	started bool

	line       int  // number of the last line read
	headerDone bool // a job line or the end was met
	cont       bool // the previous header line may be continued
	header     Header
	headerLen  int      // bytes of header text so far
	pend       []string // continuation lines of the last header pair (Header.addComment)
	body       []Comment
	bodyLen    int // bytes of body comment text kept so far
	blank      int

	pending    []byte // first job line, read by readHeader and not yet parsed
	hasPending bool
	long       []byte // assembles lines longer than the buffer
	err        error  // sticky: io.EOF at the end, or the first error
	sum        string
}

// bufSize is the read buffer. Job lines are under 200 bytes; 64 KiB keeps
// the number of reads (and sha256 calls) small.
const bufSize = 64 << 10

// Open opens the SWF file at path, plain or gzip-compressed (recognised by
// its magic bytes, whatever its name), and reads its header, so that Header
// is complete when Open returns. Errors name path.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("swf: %w", err)
	}
	r := NewReader(f, path)
	r.file = f
	if err := r.readHeader(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// NewReader returns a Reader of the SWF trace in src, plain or
// gzip-compressed; name is used in error messages. It does no I/O: the
// header is complete once the first call to Next has returned (a record or
// io.EOF). Close does not close src.
func NewReader(src io.Reader, name string) *Reader {
	return &Reader{name: name, src: src, hash: sha256.New()}
}

// start detects compression and sets up the hashed, buffered line source.
func (r *Reader) start() error {
	r.started = true
	raw := bufio.NewReaderSize(r.src, bufSize)
	var in io.Reader = raw
	// Peek fails on inputs shorter than two bytes; those are plain text.
	if magic, _ := raw.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(raw)
		if err != nil {
			return fmt.Errorf("%s: gzip: %w", r.name, err)
		}
		r.gz = gz
		in = gzipErrors{gz}
	}
	// Hash below the line buffer, so every uncompressed byte is hashed
	// exactly once, in order, whatever the line lengths.
	in = io.TeeReader(in, r.hash)
	if r.file != nil {
		// A file Open opened is closed by Close, which stops the read-ahead
		// first: decompression and hashing then run beside the parsing.
		r.ahead = newReadAhead(in)
		in = r.ahead
	}
	r.br = bufio.NewReaderSize(in, bufSize)
	return nil
}

// Header returns the header comments. It is complete once Open has
// returned, or, for a Reader made by NewReader, once Next has returned for
// the first time; before that it may be partial.
func (r *Reader) Header() Header {
	r.header.joinPending(&r.pend)
	return r.header
}

// BodyComments returns the comment lines met after the first job line so
// far, in file order: the first ones, up to MaxBodyCommentBytes of text.
func (r *Reader) BodyComments() []Comment { return r.body }

// BlankLines returns the number of empty or all-blank lines skipped so far.
// SWF does not define them; they are skipped rather than rejected because
// hand-edited files often end with one.
func (r *Reader) BlankLines() int { return r.blank }

// Name returns the name used in error messages.
func (r *Reader) Name() string { return r.name }

// SHA256 returns the hex sha256 of the uncompressed bytes of the trace. It
// is valid only after Next has returned io.EOF, and "" before.
func (r *Reader) SHA256() string { return r.sum }

// Close releases the reader's resources: the gzip stream and, for a Reader
// made by Open, the file. Next fails after Close.
func (r *Reader) Close() error {
	var err error
	if r.ahead != nil {
		r.ahead.stop()
		r.ahead = nil
	}
	if r.gz != nil {
		err = r.gz.Close()
		r.gz = nil
	}
	if r.file != nil {
		if e := r.file.Close(); err == nil && e != nil {
			err = fmt.Errorf("swf: %w", e)
		}
		r.file = nil
	}
	if r.err == nil {
		r.err = fmt.Errorf("%s: reader is closed", r.name)
	}
	return err
}

// readHeader reads up to and including the first job line, which it keeps
// for Next.
func (r *Reader) readHeader() error {
	if r.err != nil {
		return nil
	}
	b, err := r.scan()
	if err != nil {
		r.fail(err)
		if err == io.EOF {
			return nil
		}
		return err
	}
	r.pending = append(r.pending[:0], b...)
	r.hasPending = true
	return nil
}

// Next returns the next record. It returns io.EOF after the last one, and
// an error naming the file and line for a malformed line; both are final.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	var b []byte
	if r.hasPending {
		b, r.hasPending = r.pending, false
	} else {
		var err error
		if b, err = r.scan(); err != nil {
			r.fail(err)
			return Record{}, err
		}
	}
	var rec Record
	if err := r.parse(b, &rec); err != nil {
		r.fail(err)
		return Record{}, err
	}
	return rec, nil
}

// fail makes err final; at the end of input it also fixes the hash.
func (r *Reader) fail(err error) {
	r.err = err
	r.headerDone = true
	if err == io.EOF {
		r.sum = hex.EncodeToString(r.hash.Sum(nil))
	}
}

// scan returns the next job line, filing comment lines in the header
// (before the first job line) or in the body comments (after it).
func (r *Reader) scan() ([]byte, error) {
	if !r.started {
		if err := r.start(); err != nil {
			return nil, err
		}
	}
	for {
		b, err := r.readLine()
		if err != nil {
			return nil, err
		}
		i := skipBlank(b, 0)
		if i == len(b) {
			r.blank++
			r.cont = false
			continue
		}
		if b[i] != ';' {
			r.headerDone = true
			return b, nil
		}
		if r.headerDone {
			// Once past the bound, no comment is kept: those kept are the
			// first ones, with no gap.
			text := trimEOL(b)
			if r.bodyLen += len(text); r.bodyLen <= MaxBodyCommentBytes {
				r.body = append(r.body, Comment{Line: r.line, Text: string(text)})
			}
			continue
		}
		raw := string(trimEOL(b))
		if r.headerLen += len(raw); r.headerLen > MaxHeaderBytes {
			return nil, fmt.Errorf("%s:%d: %w: the comment lines before the first job pass %d bytes here",
				r.name, r.line, ErrHeaderTooLong, MaxHeaderBytes)
		}
		cont, err := r.header.addComment(raw, r.line, r.cont, &r.pend)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", r.name, r.line, err)
		}
		r.cont = cont
	}
}

// readLine returns the next line, without copying it when it fits the
// buffer; the slice is valid until the next call. A line longer than
// MaxLineBytes is an error: the reader holds at most that much of it.
func (r *Reader) readLine() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > MaxLineBytes {
				return nil, fmt.Errorf("%s:%d: %w: more than %d bytes without a newline (a job line is 18 numbers: is this an SWF file?)",
					r.name, r.line+1, ErrLineTooLong, MaxLineBytes)
			}
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
		}
		b = r.long
		if len(trimEOL(b)) > MaxLineBytes {
			return nil, fmt.Errorf("%s:%d: %w: more than %d bytes without a newline (a job line is 18 numbers: is this an SWF file?)",
				r.name, r.line+1, ErrLineTooLong, MaxLineBytes)
		}
	}
	if err == io.EOF && len(b) > 0 {
		err = nil // a last line without newline; the next call gets io.EOF
	}
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("%s: reading line %d: %w", r.name, r.line+1, err)
	}
	r.line++
	return b, nil
}

// gzipErrors names the gzip layer in its errors, and says what an
// unexpected end of the compressed stream means, so that a truncated file
// is reported as such rather than as a malformed last line.
type gzipErrors struct{ gz *gzip.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.gz.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("gzip: %w: %w", ErrTruncated, err)
	default:
		err = fmt.Errorf("gzip: %w", err)
	}
	return n, err
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// isBlank reports whether c is ASCII white space: ' ' or one of \t \n \v
// \f \r, which are contiguous.
func isBlank(c byte) bool {
	return c == ' ' || c >= '\t' && c <= '\r'
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && isBlank(b[i]) {
		i++
	}
	return i
}

// parse splits a job line into fields and converts them, without
// allocating for ordinary integer and decimal values. It counts every field
// before reporting a bad value, so that a line with the wrong number of
// fields is reported as such.
func (r *Reader) parse(b []byte, rec *Record) error {
	rec.Line = r.line
	n := 0
	var firstErr error
	for i := skipBlank(b, 0); i < len(b); i = skipBlank(b, i) {
		start := i
		for i < len(b) && !isBlank(b[i]) {
			i++
		}
		n++
		if n > NumFields || firstErr != nil {
			continue
		}
		if err := setField(rec, n, b[start:i]); err != nil {
			firstErr = fmt.Errorf("%s:%d: field %d (%s): %w", r.name, r.line, n, FieldName(n), err)
		}
	}
	if n != NumFields {
		return fmt.Errorf("%s:%d: %w: found %d, want %d", r.name, r.line, ErrFieldCount, n, NumFields)
	}
	return firstErr
}

// setField converts the text of the 1-based field i into rec.
func setField(rec *Record, i int, f []byte) error {
	if isFloatField(i) {
		v, err := parseFloat(f)
		if err != nil {
			return err
		}
		*rec.floatField(i) = v
		return nil
	}
	v, err := parseInt(f)
	if err != nil {
		return err
	}
	*rec.intField(i) = v
	return nil
}

// fastInt parses an optionally signed run of at most 18 decimal digits,
// which cannot overflow; ok is false for anything else.
func fastInt(f []byte) (v int64, ok bool) {
	neg := false
	if len(f) > 0 && (f[0] == '-' || f[0] == '+') {
		neg = f[0] == '-'
		f = f[1:]
	}
	if len(f) == 0 || len(f) > 18 {
		return 0, false
	}
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseInt parses an integer field. A decimal with a zero fractional part
// ("123.0") is accepted, because some converters write every field as a
// float; a genuinely fractional value is an error, not rounded.
func parseInt(f []byte) (int64, error) {
	if v, ok := fastInt(f); ok {
		return v, nil
	}
	s := string(f)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%w: %q", ErrNumber, s)
	}
	if x != math.Trunc(x) {
		return 0, fmt.Errorf("%w: %q", ErrFractional, s)
	}
	// float64(MaxInt64) rounds up to 2^63, which does not fit.
	if x >= math.MaxInt64 || x < math.MinInt64 {
		return 0, fmt.Errorf("%w: %q is out of the int64 range", ErrNumber, s)
	}
	return int64(x), nil
}

// parseFloat parses a fractional field; infinities and NaN are rejected
// because no SWF quantity can take them.
func parseFloat(f []byte) (float64, error) {
	if v, ok := fastInt(f); ok {
		return float64(v), nil
	}
	x, err := strconv.ParseFloat(string(f), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%w: %q", ErrNumber, f)
	}
	return x, nil
}

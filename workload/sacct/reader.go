package sacct

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// ErrHeader is wrapped by the error for a missing or unusable header line.
var ErrHeader = errors.New("bad header")

// Header is the field names of a log, from its first line. It is shared by
// every Job read from the log and must not be changed.
type Header struct {
	names []string
	index map[string]int // lower-case name -> first position
	// trailing is set for `sacct -p` output, whose lines end with '|'.
	trailing bool
}

// newHeader parses the header line.
func newHeader(line string) (*Header, error) {
	h := &Header{index: map[string]int{}}
	if strings.HasSuffix(line, "|") {
		// `sacct -p` (--parsable) ends every line with a separator;
		// -P (--parsable2) does not.
		h.trailing, line = true, line[:len(line)-1]
	}
	for i, n := range strings.Split(line, "|") {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, fmt.Errorf("%w: field %d has no name", ErrHeader, i+1)
		}
		h.names = append(h.names, n)
		if _, dup := h.index[strings.ToLower(n)]; !dup {
			h.index[strings.ToLower(n)] = i
		}
	}
	if h.Index("JobID") < 0 && h.Index("JobIDRaw") < 0 {
		return nil, fmt.Errorf("%w: no JobID or JobIDRaw field in %q (was sacct run with -n/--noheader?)", ErrHeader, line)
	}
	return h, nil
}

// Names returns the field names in file order (a copy).
func (h *Header) Names() []string { return append([]string(nil), h.names...) }

// Len returns the number of fields.
func (h *Header) Len() int { return len(h.names) }

// Index returns the position of the field name (case-insensitive; the
// first one if the header repeats it), or -1.
func (h *Header) Index(name string) int {
	if i, ok := h.index[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// Options are the reading settings. The zero value is the default.
type Options struct {
	// Location is the time zone of the timestamps. sacct prints local
	// times without a zone, so only the caller knows it; nil means UTC.
	Location *time.Location
	// SkipMalformed makes the reader skip a malformed record (short,
	// ambiguous, with a bad value...) and go on, recording it in
	// Report.Skipped, instead of failing on it. A malformed header is
	// always an error.
	SkipMalformed bool
	// Groups names the field that gives a job its group (SWF field 13,
	// which multifactor's tree of groups as accounts reads): GroupsGroup
	// (or "", the Unix group, Group) or GroupsAccount (the Slurm account,
	// Account). LoadWorkload reads it.
	Groups string
	// Priority keeps each job's Priority as its sdk.Job.Priority (which
	// the reference policies' order = "priority" reads); without it, or
	// for a job without one, the priority is 0. LoadWorkload reads it.
	Priority bool
}

// The values of Options.Groups.
const (
	GroupsGroup   = "group"
	GroupsAccount = "account"
)

// Repair records a record whose fields were not simply its '|'-separated
// pieces: one with more separators than the header (some free-text field
// holds '|'), or one that spans several lines (some free-text field holds
// a newline).
type Repair struct {
	// Line is the record's first line; Lines the number of lines it spans.
	Line, Lines int
	// Fields names the free-text fields that hold '|' or a newline, in
	// header order.
	Fields []string
	// Extra is the number of separators beyond the header's.
	Extra int
	// SetAside is the number of other well-formed readings that the edge
	// rule (no free-text value begins or ends with '|' if another reading
	// avoids it) set aside; 0 when the field formats alone decided.
	SetAside int
}

// Skip records a record that is not in the result.
type Skip struct {
	// Line is the record's first line.
	Line int
	// ID is the record's JobID, when it could be read.
	ID string
	// Reason says why: the error, or "step without its job record".
	Reason string
}

// Row is one record of a log, converted: a job's allocation record or one
// of its steps. Read folds steps into their jobs; Reader.Next returns rows
// unfolded. A step's Job holds the step's own values, with the ID of its
// job (the JobID before the '.', without "+N").
type Row struct {
	Job
	// Step is "" for an allocation record; for a step the text after the
	// first '.' of its JobID ("batch", "extern", "0").
	Step string
	// Het is the heterogeneous-job component offset (N of "123+N"), or
	// Missing.
	Het int64
	// Lines is the number of lines the record spans (more than one when a
	// field holds a newline).
	Lines int
}

// Reader reads a sacct log one record at a time.
type Reader struct {
	name string
	opt  Options
	src  io.Reader
	file *os.File // set by Open, closed by Close
	gz   *gzip.Reader
	br   *bufio.Reader

	hdr     *Header
	kinds   []kind
	cols    columns
	line    int        // number of the last line read from the input
	back    []physLine // lines read ahead and given back, in order
	rep     Report
	err     error  // sticky: io.EOF at the end, or the first error
	scratch []cell // the search table of attribute, reused
}

// physLine is one line of input, without its line terminator.
type physLine struct {
	n    int
	text string
}

// maxJoin bounds the lines one record may span; sacct prints a newline in
// a field (a multi-line --wrap script in SubmitLine) as is.
const maxJoin = 1000

// Open opens the log at path, plain or gzip-compressed (recognised by its
// magic bytes, whatever its name), and reads its header. Errors name path.
func Open(path string, opt Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sacct: %w", err)
	}
	r := NewReader(f, path, opt)
	r.file = f
	if err := r.readHeader(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// NewReader returns a Reader of the log in src, plain or gzip-compressed;
// name is used in error messages. It does no I/O: the header is read by
// the first call to Next. Close does not close src.
func NewReader(src io.Reader, name string, opt Options) *Reader {
	return &Reader{name: name, opt: opt, src: src, rep: Report{Name: name}}
}

// Header returns the header, or nil before it has been read (by Open or
// the first Next).
func (r *Reader) Header() *Header { return r.hdr }

// Report returns the counts so far. Read adds the folding counts to it.
func (r *Reader) Report() Report { return r.rep }

// Close releases the reader's resources: the gzip stream and, for a Reader
// made by Open, the file. Next fails after Close.
func (r *Reader) Close() error {
	var err error
	if r.gz != nil {
		err = r.gz.Close()
		r.gz = nil
	}
	if r.file != nil {
		if e := r.file.Close(); err == nil && e != nil {
			err = fmt.Errorf("sacct: %w", e)
		}
		r.file = nil
	}
	if r.err == nil {
		r.err = fmt.Errorf("sacct %s: reader is closed", r.name)
	}
	return err
}

// errAt wraps err with the file and line.
func (r *Reader) errAt(line int, err error) error {
	return fmt.Errorf("sacct %s line %d: %w", r.name, line, err)
}

// start detects compression and sets up the line source.
func (r *Reader) start() error {
	raw := bufio.NewReaderSize(r.src, 64<<10)
	var in io.Reader = raw
	// Peek fails on inputs shorter than two bytes; those are plain text.
	if magic, _ := raw.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(raw)
		if err != nil {
			return fmt.Errorf("sacct %s: gzip: %w", r.name, err)
		}
		r.gz, in = gz, gz
	}
	r.br = bufio.NewReaderSize(in, 64<<10)
	return nil
}

// readLine returns the next line, from the lines given back first.
func (r *Reader) readLine() (physLine, error) {
	if len(r.back) > 0 {
		l := r.back[0]
		r.back = r.back[1:]
		return l, nil
	}
	s, err := r.br.ReadString('\n')
	if err == io.EOF && s != "" {
		err = nil // a last line without newline; the next call gets io.EOF
	}
	if err != nil {
		if err == io.EOF {
			return physLine{}, io.EOF
		}
		return physLine{}, fmt.Errorf("sacct %s: reading line %d: %w", r.name, r.line+1, err)
	}
	r.line++
	r.rep.Lines++
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	return physLine{n: r.line, text: s}, nil
}

// readHeader reads the first non-blank line as the header.
func (r *Reader) readHeader() error {
	if r.err != nil || r.hdr != nil {
		return r.err
	}
	if err := r.start(); err != nil {
		r.err = err
		return err
	}
	for {
		l, err := r.readLine()
		if err == io.EOF {
			r.err = fmt.Errorf("sacct %s: %w: empty input, no header line", r.name, ErrHeader)
			return r.err
		}
		if err != nil {
			r.err = err
			return err
		}
		if strings.TrimSpace(l.text) == "" {
			r.rep.Blank++
			continue
		}
		h, err := newHeader(l.text)
		if err != nil {
			r.err = r.errAt(l.n, err)
			return r.err
		}
		r.hdr = h
		r.kinds = make([]kind, len(h.names))
		for i, n := range h.names {
			r.kinds[i] = kindOf(n)
		}
		r.cols = newColumns(h)
		r.rep.Fields = len(h.names)
		return nil
	}
}

// Next returns the next record. It returns io.EOF after the last one, and
// an error naming the file and line for a malformed record (unless
// Options.SkipMalformed); both are final.
func (r *Reader) Next() (Row, error) {
	if err := r.readHeader(); err != nil {
		return Row{}, err
	}
	for {
		row, skip, err := r.next()
		if err != nil {
			r.err = err
			return Row{}, err
		}
		if skip != nil {
			r.rep.Skipped = append(r.rep.Skipped, *skip)
			continue
		}
		return row, nil
	}
}

// next reads one record; a malformed one is returned as skip under
// SkipMalformed and as an error otherwise.
func (r *Reader) next() (Row, *Skip, error) {
	var first physLine
	for {
		l, err := r.readLine()
		if err != nil {
			return Row{}, nil, err
		}
		if strings.TrimSpace(l.text) != "" {
			first = l
			break
		}
		r.rep.Blank++
	}
	h := len(r.hdr.names)
	lines := []physLine{first}
	firstPieces := r.pieces(first.text)
	pieces, seps := firstPieces, strings.Count(first.text, "|")
	// A record short of fields may go on in the next line: a free-text
	// field holding a newline. Blank lines are part of such a field. A
	// line that is a record by itself is not: a truncated line followed by
	// a record must not swallow it, and when both readings are possible
	// the short line is the error.
	for pieces < h && len(lines) < maxJoin {
		l, err := r.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Row{}, nil, err
		}
		if r.isRecord(l.text) {
			r.back = append([]physLine{l}, r.back...)
			break
		}
		lines = append(lines, l)
		seps += strings.Count(l.text, "|") // counted line by line, not rescanned
		pieces = seps + 1
		if r.hdr.trailing && strings.HasSuffix(l.text, "|") {
			pieces--
		}
	}
	text := first.text
	if len(lines) > 1 {
		parts := make([]string, len(lines))
		for i, l := range lines {
			parts[i] = l.text
		}
		text = strings.Join(parts, "\n")
	}
	row, err := r.record(text, first.n, len(lines))
	if err != nil && len(lines) > 1 {
		// The joined lines do not make a record: the first line is short,
		// and the others are read again as records of their own.
		r.back = append(append([]physLine(nil), lines[1:]...), r.back...)
		err = fmt.Errorf("%d fields, header has %d; it is not completed by the %d line(s) after it (%v): %w",
			firstPieces, h, len(lines)-1, err, ErrShortRecord)
	}
	if err != nil {
		err = r.errAt(first.n, err)
		if !r.opt.SkipMalformed {
			return Row{}, nil, err
		}
		return Row{}, &Skip{Line: first.n, ID: r.peekID(first.text), Reason: err.Error()}, nil
	}
	r.rep.Records++
	return row, nil, nil
}

// isRecord reports whether a line is a well-formed record by itself, with
// one or more readings.
func (r *Reader) isRecord(text string) bool {
	if r.hdr.trailing {
		text = strings.TrimSuffix(text, "|")
	}
	if strings.Count(text, "|")+1 < len(r.hdr.names) {
		return false
	}
	_, err := attribute(text, r.kinds, r.hdr.names, &r.scratch)
	return err == nil || errors.Is(err, ErrAmbiguous)
}

// pieces counts the '|'-separated pieces of a record's text.
func (r *Reader) pieces(text string) int {
	if r.hdr.trailing {
		text = strings.TrimSuffix(text, "|")
	}
	return strings.Count(text, "|") + 1
}

// peekID returns the JobID of a malformed line when its position is
// unaffected by extra separators (no free-text field before it), for the
// skip report; "" otherwise.
func (r *Reader) peekID(text string) string {
	i := r.cols.jobID
	if i < 0 {
		i = r.cols.jobIDRaw
	}
	for _, k := range r.kinds[:i] {
		if k == kFree {
			return ""
		}
	}
	p := strings.Split(text, "|")
	if i < len(p) {
		if _, err := parseJobID(p[i]); err == nil {
			return p[i]
		}
	}
	return ""
}

// record splits and converts one record of nlines lines.
func (r *Reader) record(text string, line, nlines int) (Row, error) {
	if r.hdr.trailing {
		text = strings.TrimSuffix(text, "|")
	}
	h := len(r.hdr.names)
	var fields []string
	if nlines == 1 && strings.Count(text, "|")+1 == h {
		fields = strings.Split(text, "|")
	} else {
		a, err := attribute(text, r.kinds, r.hdr.names, &r.scratch)
		if err != nil {
			return Row{}, err
		}
		fields = a.best.fields
		rep := Repair{Line: line, Lines: nlines, Extra: strings.Count(text, "|") + 1 - h, SetAside: a.readings - 1}
		for i, f := range fields {
			if a.best.spans[i] > 1 || strings.IndexByte(f, '\n') >= 0 {
				rep.Fields = append(rep.Fields, r.hdr.names[i])
			}
		}
		r.rep.Repairs = append(r.rep.Repairs, rep)
	}
	row, err := r.convert(fields)
	if err != nil {
		return Row{}, err
	}
	row.Line, row.Lines = line, nlines
	return row, nil
}

// columns holds the position of every field the Job has, or -1.
type columns struct {
	jobID, jobIDRaw                                     int
	cluster, user, group, account, partition, qos, name int
	nodeList, uid, gid, state, exitCode                 int
	submit, eligible, start, end                        int
	elapsed, elapsedRaw, timelimit, timelimitRaw        int
	allocCPUS, nCPUS, reqCPUS, allocNodes, nNodes       int
	reqNodes, reqMem, maxRSS, maxVMSize                 int
	totalCPU, userCPU, systemCPU, cpuTime, cpuTimeRaw   int
	allocTRES, reqTRES, constraints, priority           int
}

func newColumns(h *Header) columns {
	return columns{
		jobID: h.Index("JobID"), jobIDRaw: h.Index("JobIDRaw"),
		cluster: h.Index("Cluster"), user: h.Index("User"), group: h.Index("Group"),
		account: h.Index("Account"), partition: h.Index("Partition"), qos: h.Index("QOS"),
		name: h.Index("JobName"), nodeList: h.Index("NodeList"), uid: h.Index("UID"), gid: h.Index("GID"),
		state: h.Index("State"), exitCode: h.Index("ExitCode"),
		submit: h.Index("Submit"), eligible: h.Index("Eligible"), start: h.Index("Start"), end: h.Index("End"),
		elapsed: h.Index("Elapsed"), elapsedRaw: h.Index("ElapsedRaw"),
		timelimit: h.Index("Timelimit"), timelimitRaw: h.Index("TimelimitRaw"),
		allocCPUS: h.Index("AllocCPUS"), nCPUS: h.Index("NCPUS"), reqCPUS: h.Index("ReqCPUS"),
		allocNodes: h.Index("AllocNodes"), nNodes: h.Index("NNodes"), reqNodes: h.Index("ReqNodes"),
		reqMem: h.Index("ReqMem"), maxRSS: h.Index("MaxRSS"), maxVMSize: h.Index("MaxVMSize"),
		totalCPU: h.Index("TotalCPU"), userCPU: h.Index("UserCPU"), systemCPU: h.Index("SystemCPU"),
		cpuTime: h.Index("CPUTime"), cpuTimeRaw: h.Index("CPUTimeRAW"),
		allocTRES: h.Index("AllocTRES"), reqTRES: h.Index("ReqTRES"), constraints: h.Index("Constraints"),
		priority: h.Index("Priority"),
	}
}

// convert turns a record's fields into a Row. Errors name the field.
func (r *Reader) convert(f []string) (Row, error) {
	c := &r.cols
	get := func(i int) string {
		if i < 0 {
			return ""
		}
		return f[i]
	}
	var firstErr error
	fail := func(i int, err error) {
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("field %s: %w", r.hdr.names[i], err)
		}
	}
	row := Row{Job: newJob(r.hdr, f), Het: Missing}
	j := &row.Job

	idCol := c.jobID
	if idCol < 0 {
		idCol = c.jobIDRaw
	}
	ref, err := parseJobID(f[idCol])
	if err != nil {
		return Row{}, fmt.Errorf("field %s: %w", r.hdr.names[idCol], err)
	}
	j.ID, j.JobID, j.ArrayTask = ref.key, ref.base, ref.array
	row.Step, row.Het = ref.step, ref.het
	if c.jobIDRaw >= 0 && f[c.jobIDRaw] != "" {
		raw, err := parseJobID(f[c.jobIDRaw])
		fail(c.jobIDRaw, err)
		j.RawID = raw.base
	}

	j.Cluster, j.User, j.Group = get(c.cluster), get(c.user), get(c.group)
	j.Account, j.Partition, j.QOS = get(c.account), get(c.partition), get(c.qos)
	j.JobName, j.NodeList, j.Constraints = get(c.name), get(c.nodeList), get(c.constraints)
	if c.state >= 0 {
		j.State, j.CancelledBy = NormalizeState(f[c.state]), cancelledBy(f[c.state])
	}
	if c.exitCode >= 0 {
		st, sg, _, err := ParseExitCode(f[c.exitCode])
		fail(c.exitCode, err)
		j.ExitStatus, j.ExitSignal = st, sg
	}

	count := func(i int, dst *int64) {
		if i >= 0 {
			v, err := parseCount(f[i])
			fail(i, err)
			*dst = v
		}
	}
	count(c.uid, &j.UID)
	count(c.gid, &j.GID)
	if r.opt.Priority {
		// Read only when asked for, so that a log whose Priority is not
		// a count still reads as before.
		count(c.priority, &j.Priority)
	}
	count(c.allocCPUS, &j.AllocCPUS)
	count(c.nCPUS, &j.NCPUS)
	count(c.reqCPUS, &j.ReqCPUS)
	count(c.allocNodes, &j.AllocNodes)
	count(c.nNodes, &j.NNodes)
	count(c.reqNodes, &j.ReqNodes)

	stamp := func(i int, dst *int64) {
		if i >= 0 {
			v, _, err := ParseTime(f[i], r.opt.Location)
			fail(i, err)
			*dst = v
		}
	}
	stamp(c.submit, &j.Submit)
	stamp(c.eligible, &j.Eligible)
	stamp(c.start, &j.Start)
	stamp(c.end, &j.End)

	// span parses a duration field into whole seconds (-1 if not a value).
	span := func(i int) (int64, DurationKind) {
		if i < 0 {
			return Missing, DurationEmpty
		}
		s, k, err := ParseDuration(f[i])
		fail(i, err)
		if k != DurationValue {
			return Missing, k
		}
		return int64(math.Round(s)), k
	}
	j.Elapsed, _ = span(c.elapsed)
	if j.Elapsed == Missing {
		count(c.elapsedRaw, &j.Elapsed)
	}
	var lk DurationKind
	j.Timelimit, lk = span(c.timelimit)
	if lk == DurationEmpty && c.timelimitRaw >= 0 {
		// TimelimitRaw is in minutes.
		switch v := f[c.timelimitRaw]; v {
		case "UNLIMITED":
			lk = DurationUnlimited
		case "Partition_Limit":
			lk = DurationPartitionLimit
		default:
			m, err := parseCount(v)
			fail(c.timelimitRaw, err)
			if m >= 0 {
				j.Timelimit = m * 60
			}
		}
	}
	j.TimelimitUnlimited = lk == DurationUnlimited
	j.TimelimitPartition = lk == DurationPartitionLimit
	j.CPUTime, _ = span(c.cpuTime)
	if c.cpuTimeRaw >= 0 && f[c.cpuTimeRaw] != "" {
		count(c.cpuTimeRaw, &j.CPUTime) // exact, where CPUTime is rounded for display
	}

	cpu := func(i int, dst *float64) {
		if i >= 0 {
			s, k, err := ParseDuration(f[i])
			fail(i, err)
			if k == DurationValue {
				*dst = s
			}
		}
	}
	cpu(c.totalCPU, &j.TotalCPU)
	cpu(c.userCPU, &j.UserCPU)
	cpu(c.systemCPU, &j.SystemCPU)

	if c.reqMem >= 0 {
		b, per, _, err := ParseReqMem(f[c.reqMem])
		fail(c.reqMem, err)
		j.ReqMem, j.ReqMemPer = b, per
	}
	size := func(i int, dst *int64) {
		if i >= 0 {
			v, _, err := ParseSize(f[i], 1)
			fail(i, err)
			*dst = v
		}
	}
	size(c.maxRSS, &j.MaxRSS)
	size(c.maxVMSize, &j.MaxVMSize)

	tres := func(i int, dst *TRES) {
		if i >= 0 {
			t, err := ParseTRES(f[i])
			fail(i, err)
			*dst = t
		}
	}
	tres(c.allocTRES, &j.AllocTRES)
	tres(c.reqTRES, &j.ReqTRES)

	if firstErr != nil {
		return Row{}, firstErr
	}
	return row, nil
}

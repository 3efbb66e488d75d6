package sacct

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrShortRecord is wrapped by the error for a record with fewer fields
// than the header, which the following lines do not complete.
var ErrShortRecord = errors.New("fewer fields than the header")

// ErrSeparators is wrapped by the error for a record with more fields than
// the header whose extra '|' cannot be put in free-text fields without
// making some other field malformed.
var ErrSeparators = errors.New("extra '|' that no free-text field can hold")

// ErrAmbiguous is wrapped by the error for a record with more fields than
// the header whose extra '|' can be put in free-text fields in several
// equally plausible ways.
var ErrAmbiguous = errors.New("extra '|' that can be attributed in several ways")

// kind is the format class of a field, used to decide where the extra
// separators of a record go. It is deliberately loose: a value Slurm can
// print must never be rejected, since a rejected value only removes a
// candidate reading.
type kind uint8

const (
	kAny      kind = iota // any text without '|' or newline
	kFree                 // free text: may hold '|' and newlines
	kCount                // digits, exact unit suffix allowed, or empty
	kSize                 // decimal with optional K/M/G/T/P/E, or empty
	kMem                  // kSize with an optional c/n suffix
	kDuration             // ParseDuration accepts it
	kTime                 // timestamp, Unknown, None or empty
	kExit                 // status:signal or empty
	kTRES                 // key=value,... or empty
	kJobID                // a job id
	kState                // a State value
	kLimitRaw             // minutes, UNLIMITED, Partition_Limit or empty
)

// FreeText reports whether the field name (case-insensitive) holds free
// text that may contain '|' or a newline: text given by the user or an
// administrator (job name, comments, constraint expressions such as
// "cpu-a|cpu-b", the submit command line, paths). Only these fields can
// absorb the extra separators of a record; see the package documentation.
func FreeText(name string) bool { return kindOf(name) == kFree }

// kindOf returns the format class of a sacct field; unknown fields are kAny.
func kindOf(name string) kind {
	switch strings.ToLower(name) {
	case "admincomment", "comment", "constraints", "container", "extra", "jobname",
		"stderr", "stdin", "stdout", "submitline", "systemcomment", "wckey", "workdir":
		return kFree
	case "alloccpus", "allocnodes", "associd", "consumedenergyraw", "cputimeraw", "dbindex",
		"elapsedraw", "gid", "maxdiskreadtask", "maxdiskwritetask", "maxpagestask", "maxrsstask",
		"maxvmsizetask", "mincputask", "ncpus", "nnodes", "ntasks", "plannedcpuraw", "priority",
		"qosraw", "reqcpus", "reqnodes", "reservationid", "resvcpuraw", "restarts", "uid", "wckeyid":
		return kCount
	case "avecpufreq", "avediskread", "avediskwrite", "avepages", "averss", "avevmsize",
		"consumedenergy", "maxdiskread", "maxdiskwrite", "maxpages", "maxrss", "maxvmsize":
		return kSize
	case "reqmem":
		return kMem
	case "avecpu", "cputime", "elapsed", "mincpu", "planned", "plannedcpu", "reserved", "resvcpu",
		"suspended", "systemcpu", "timelimit", "totalcpu", "usercpu":
		return kDuration
	case "eligible", "end", "start", "submit":
		return kTime
	case "derivedexitcode", "exitcode":
		return kExit
	case "alloctres", "reqtres", "tresusageinave", "tresusageinmax", "tresusageinmaxnode",
		"tresusageinmaxtask", "tresusageinmin", "tresusageinminnode", "tresusageinmintask",
		"tresusageintot", "tresusageoutave", "tresusageoutmax", "tresusageoutmaxnode",
		"tresusageoutmaxtask", "tresusageoutmin", "tresusageoutminnode", "tresusageoutmintask",
		"tresusageouttot":
		return kTRES
	case "jobid", "jobidraw":
		return kJobID
	case "state":
		return kState
	case "timelimitraw":
		return kLimitRaw
	}
	return kAny
}

// fits reports whether v can be the value of a field of kind k.
func fits(k kind, v string) bool {
	if k == kFree {
		return true
	}
	if strings.IndexByte(v, '\n') >= 0 {
		return false
	}
	switch k {
	case kCount:
		if _, ok := digits(v); ok || v == "" {
			return true
		}
		_, err := parseCount(v)
		return err == nil
	case kSize:
		_, ok := sizeValue(v, 1)
		return v == "" || ok
	case kMem:
		v = strings.TrimRight(v, "cn")
		_, ok := sizeValue(v, 1)
		return v == "" || ok
	case kDuration:
		_, _, ok := parseDuration(v)
		return ok
	case kTime:
		return isTime(v)
	case kExit:
		a, b, found := strings.Cut(v, ":")
		_, ok1 := digits(a)
		_, ok2 := digits(b)
		return v == "" || found && ok1 && ok2
	case kTRES:
		return isTRES(v)
	case kJobID:
		return isJobID(v)
	case kState:
		return isState(v)
	case kLimitRaw:
		_, ok := digits(v)
		return ok || v == "" || v == "UNLIMITED" || v == "Partition_Limit"
	}
	return true
}

// reading is how the pieces of a record between separators were grouped
// into fields.
type reading struct {
	fields []string
	spans  []int // spans[i] = number of pieces of field i
}

// attribution is the result of attribute.
type attribution struct {
	best reading
	// readings is the number of well-formed readings (saturated at
	// maxCount); alternatives beyond the chosen one were set aside by the
	// edge rule.
	readings int
}

// cell is one state of the search in attribute.
type cell struct{ cost, ways, total int }

// inf is the cost of an impossible state.
const inf = math.MaxInt32

// maxCount saturates reading counts, which grow combinatorially.
const maxCount = 1 << 30

// maxExtra bounds the extra separators attribute will place. The search is
// linear in them, but a record with thousands is more likely garbage than
// a job.
const maxExtra = 4096

// attribute groups the pieces of rec (split at every '|') into one field
// per kind, so that only free-text fields take more than one piece and
// every field fits its kind. Among the well-formed readings it keeps those
// in which the fewest free-text values begin or end with an empty piece
// (that is, with '|'), and fails unless exactly one is left.
//
// The search is a dynamic programme over (field, pieces used so far): a
// non-free field takes one piece; a free field takes 1 + a pieces. cost
// counts empty boundary pieces of multi-piece values, ways counts the
// readings of least cost, total every well-formed reading.
func attribute(rec string, kinds []kind, names []string, scratch *[]cell) (attribution, error) {
	pieces := strings.Split(rec, "|")
	h, p := len(kinds), len(pieces)
	e := p - h
	if e < 0 {
		return attribution{}, fmt.Errorf("%d fields, header has %d: %w", p, h, ErrShortRecord)
	}
	var free []string
	for i, k := range kinds {
		if k == kFree {
			free = append(free, names[i])
		}
	}
	if e > 0 && len(free) == 0 {
		return attribution{}, fmt.Errorf("%d fields, header has %d, and no free-text field: %w", p, h, ErrSeparators)
	}
	if e > maxExtra {
		return attribution{}, fmt.Errorf("%d fields, header has %d: more than %d extra: %w", p, h, maxExtra, ErrSeparators)
	}
	w := e + 1
	// The table is reused across records: most need a few kilobytes.
	if n := (h + 1) * w; cap(*scratch) < n {
		*scratch = make([]cell, n)
	}
	dp := (*scratch)[:(h+1)*w]
	at := func(i, d int) *cell { return &dp[i*w+d] }
	for d := range w {
		*at(h, d) = cell{cost: inf}
	}
	*at(h, e) = cell{cost: 0, ways: 1, total: 1}
	empty := func(i int) int {
		if pieces[i] == "" {
			return 1
		}
		return 0
	}
	// A multi-piece value is a substring of rec, since its pieces were
	// separated by single '|': no copy is made.
	off := make([]int, p)
	for k := 1; k < p; k++ {
		off[k] = off[k-1] + len(pieces[k-1]) + 1
	}
	join := func(s, n int) string { return rec[off[s] : off[s+n-1]+len(pieces[s+n-1])] }
	add := func(c *cell, cost, ways, total int) {
		if cost >= inf {
			return
		}
		c.total = min(c.total+total, maxCount)
		switch {
		case cost < c.cost:
			c.cost, c.ways = cost, ways
		case cost == c.cost:
			c.ways = min(c.ways+ways, maxCount)
		}
	}
	// suf holds, for the field being computed, the best continuation over
	// next offsets d' >= d, with the end-piece cost of the free value.
	suf := make([]cell, w+1)
	for i := h - 1; i >= 0; i-- {
		if kinds[i] == kFree {
			suf[w] = cell{cost: inf}
			for d := e; d >= 0; d-- {
				suf[d] = suf[d+1]
				if nx := at(i+1, d); nx.cost < inf {
					// The value ends at piece i+d when the next field
					// starts at offset d.
					add(&suf[d], nx.cost+empty(i+d), nx.ways, nx.total)
				}
			}
		}
		for d := range w {
			c := at(i, d)
			*c = cell{cost: inf}
			s := i + d
			if kinds[i] != kFree {
				if nx := at(i+1, d); nx.cost < inf && fits(kinds[i], pieces[s]) {
					*c = *nx
				}
				continue
			}
			if nx := at(i+1, d); nx.cost < inf { // a single piece
				add(c, nx.cost, nx.ways, nx.total)
			}
			if d < e && suf[d+1].cost < inf { // several pieces
				add(c, suf[d+1].cost+empty(s), suf[d+1].ways, suf[d+1].total)
			}
		}
	}
	root := at(0, 0)
	if root.cost >= inf {
		if e == 0 {
			return attribution{}, fmt.Errorf("%d fields, and a newline in a field that is not free text: %w", p, ErrSeparators)
		}
		return attribution{}, fmt.Errorf("%d fields, header has %d, and no placement of the %d extra '|' in the free-text fields (%s) leaves the other fields well-formed: %w",
			p, h, e, strings.Join(free, ", "), ErrSeparators)
	}
	// follow rebuilds a least-cost reading, taking at each free field the
	// shortest (or, with longest, the longest) value that stays optimal.
	follow := func(longest bool) reading {
		r := reading{fields: make([]string, h), spans: make([]int, h)}
		d := 0
		for i := range h {
			s := i + d
			n := 1
			if kinds[i] == kFree {
				want := at(i, d).cost
				var opts []int // next offsets of optimal choices, ascending
				if nx := at(i+1, d); nx.cost < inf && nx.cost == want {
					opts = append(opts, d)
				}
				for d2 := d + 1; d2 <= e; d2++ {
					if nx := at(i+1, d2); nx.cost < inf && nx.cost+empty(s)+empty(i+d2) == want {
						opts = append(opts, d2)
					}
				}
				d2 := opts[0]
				if longest {
					d2 = opts[len(opts)-1]
				}
				n = 1 + d2 - d
				d = d2
			}
			r.fields[i], r.spans[i] = join(s, n), n
		}
		return r
	}
	best := follow(false)
	if root.ways > 1 {
		other := follow(true)
		var involved, a, b []string
		for i := range h {
			if best.fields[i] == other.fields[i] {
				continue
			}
			involved = append(involved, names[i])
			a = append(a, fmt.Sprintf("%s=%q", names[i], best.fields[i]))
			b = append(b, fmt.Sprintf("%s=%q", names[i], other.fields[i]))
		}
		// The fields involved are those the two readings give different
		// values: free-text fields, and any field between them that moves.
		return attribution{}, fmt.Errorf("%d fields, header has %d: the %d extra '|' fit fields %s in %d ways, e.g. %s or %s: %w",
			p, h, e, strings.Join(involved, ", "), root.ways, strings.Join(a, " "), strings.Join(b, " "), ErrAmbiguous)
	}
	return attribution{best: best, readings: root.total}, nil
}

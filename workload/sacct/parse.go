package sacct

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrValue is wrapped by the error for a field whose text is not in the
// format Slurm writes for it.
var ErrValue = errors.New("malformed value")

// DurationKind says what a duration field held besides a time span.
type DurationKind uint8

// The kinds of duration text.
const (
	// DurationValue is a time span: [D-]HH:MM:SS, MM:SS, with an optional
	// fraction of a second (MM:SS.mmm, HH:MM:SS.mmm).
	DurationValue DurationKind = iota
	// DurationEmpty is an empty field, "Unknown" or "None".
	DurationEmpty
	// DurationUnlimited is "UNLIMITED" (or "INFINITE"): no time limit.
	DurationUnlimited
	// DurationPartitionLimit is "Partition_Limit": the job asked for its
	// partition's limit, whose value the log does not give.
	DurationPartitionLimit
	// DurationInvalid is "INVALID", Slurm's mark for a negative span.
	DurationInvalid
)

// ParseDuration parses a Slurm duration. Slurm prints spans as
// [D-]HH:MM:SS, and CPU times under an hour as MM:SS.mmm, so a two-part
// value is minutes and seconds, never hours and minutes. With a day count,
// the forms of Slurm's time grammar D-HH, D-HH:MM and D-HH:MM:SS are all
// accepted. The seconds are 0 unless kind is DurationValue.
func ParseDuration(s string) (seconds float64, kind DurationKind, err error) {
	seconds, kind, ok := parseDuration(s)
	if !ok {
		return 0, DurationEmpty, fmt.Errorf("%w: duration %q", ErrValue, s)
	}
	return seconds, kind, nil
}

// parseDuration is ParseDuration without the error, which the search for
// the fields of a record calls often on values that do not fit.
func parseDuration(s string) (seconds float64, kind DurationKind, ok bool) {
	switch s {
	case "", "Unknown", "None":
		return 0, DurationEmpty, true
	case "UNLIMITED", "INFINITE":
		return 0, DurationUnlimited, true
	case "Partition_Limit":
		return 0, DurationPartitionLimit, true
	case "INVALID":
		return 0, DurationInvalid, true
	}
	bad := func() (float64, DurationKind, bool) { return 0, DurationEmpty, false }
	rest := s
	days := int64(0)
	hasDays := false
	if d, r, ok := strings.Cut(s, "-"); ok {
		v, ok := digits(d)
		if !ok {
			return bad()
		}
		days, rest, hasDays = v, r, true
	}
	parts := strings.Split(rest, ":")
	frac := 0.0
	last := parts[len(parts)-1]
	if w, f, ok := strings.Cut(last, "."); ok {
		fv, ok := digits(f)
		if !ok || len(f) > 9 {
			return bad()
		}
		frac = float64(fv) / math.Pow10(len(f))
		parts[len(parts)-1] = w
	}
	var n [3]int64
	for i, p := range parts {
		v, ok := digits(p)
		if !ok || i >= len(n) {
			return bad()
		}
		n[i] = v
	}
	var secs int64
	switch {
	case hasDays && len(parts) == 1: // D-HH
		secs = n[0] * 3600
	case hasDays && len(parts) == 2: // D-HH:MM
		if n[1] >= 60 {
			return bad()
		}
		secs = n[0]*3600 + n[1]*60
	case len(parts) == 3: // [D-]HH:MM:SS
		if n[1] >= 60 || n[2] >= 60 {
			return bad()
		}
		secs = n[0]*3600 + n[1]*60 + n[2]
	case !hasDays && len(parts) == 2: // MM:SS
		if n[1] >= 60 {
			return bad()
		}
		secs = n[0]*60 + n[1]
	default:
		// A bare number could be minutes (Slurm's input grammar) or
		// seconds; sacct never prints one, so it is not guessed.
		return bad()
	}
	if frac != 0 && hasDays && len(parts) < 3 {
		return bad()
	}
	return float64(days*86400+secs) + frac, DurationValue, true
}

// digits parses a non-empty run of at most 15 decimal digits.
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 15 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// TimeLayout is the layout of sacct timestamps (SLURM_TIME_FORMAT=standard,
// the default).
const TimeLayout = "2006-01-02T15:04:05"

// ParseTime parses a sacct timestamp into Unix seconds. sacct prints times
// in the local time zone of the machine it ran on, without saying which,
// so the caller gives it (loc; nil means UTC). ok is false for an empty
// field, "Unknown" and "None" (e.g. the start of a job that never ran).
func ParseTime(s string, loc *time.Location) (unix int64, ok bool, err error) {
	switch s {
	case "", "Unknown", "None":
		return Missing, false, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	t, err := time.ParseInLocation(TimeLayout, s, loc)
	if err != nil {
		return Missing, false, fmt.Errorf("%w: timestamp %q, want YYYY-MM-DDTHH:MM:SS", ErrValue, s)
	}
	return t.Unix(), true, nil
}

// isTime reports whether s has the shape of a sacct timestamp or of one of
// its "no time" words; it is cheaper than ParseTime and needs no zone.
func isTime(s string) bool {
	switch s {
	case "", "Unknown", "None":
		return true
	}
	if len(s) != len(TimeLayout) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c, l := s[i], TimeLayout[i]
		if l >= '0' && l <= '9' {
			if c < '0' || c > '9' {
				return false
			}
		} else if c != l {
			return false
		}
	}
	return true
}

// Byte multiples used by Slurm's unit suffixes, which are binary: Slurm's
// convert_num_unit divides by 1024.
const (
	KiB = int64(1) << 10
	MiB = int64(1) << 20
)

// suffixShift returns the power of 1024 of a Slurm unit suffix.
func suffixShift(c byte) (int, bool) {
	switch c {
	case 'K':
		return 1, true
	case 'M':
		return 2, true
	case 'G':
		return 3, true
	case 'T':
		return 4, true
	case 'P':
		return 5, true
	case 'E':
		return 6, true
	}
	return 0, false
}

// ParseSize parses a number with an optional Slurm unit suffix (K, M, G,
// T, P, E: powers of 1024), as in MaxRSS "1234K" or AveDiskRead "0.04M",
// and returns it times the suffix's multiple, rounded to an integer. A
// number without suffix is multiplied by plain: 1 for fields Slurm stores
// in bytes (MaxRSS, MaxVMSize), MiB for memory requests. ok is false for an
// empty field.
func ParseSize(s string, plain int64) (v int64, ok bool, err error) {
	if s == "" {
		return Missing, false, nil
	}
	x, ok := sizeValue(s, float64(plain))
	if !ok {
		return Missing, false, fmt.Errorf("%w: size %q", ErrValue, s)
	}
	if x >= math.MaxInt64 {
		return Missing, false, fmt.Errorf("%w: size %q is too large", ErrValue, s)
	}
	return int64(math.Round(x)), true, nil
}

// sizeValue parses a non-negative decimal with an optional unit suffix.
func sizeValue(s string, plain float64) (float64, bool) {
	mult := plain
	if n := len(s); n > 0 {
		if sh, ok := suffixShift(s[n-1]); ok {
			mult = math.Ldexp(1, 10*sh)
			s = s[:n-1]
		}
	}
	if !isDecimal(s) {
		return 0, false
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return x * mult, true
}

// isDecimal reports whether s is digits with at most one '.', and at least
// one digit: strconv alone would also take "1e5", "+1", "Inf" or "0x10".
func isDecimal(s string) bool {
	seen, dot := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			seen = true
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return seen
}

// MemPer says what a memory request is counted per.
type MemPer uint8

// The units of ReqMem.
const (
	// MemPerUnknown: no memory request in the log.
	MemPerUnknown MemPer = iota
	// MemPerCPU: ReqMem ended in "c" (--mem-per-cpu; Slurm before 21.08).
	MemPerCPU
	// MemPerNode: ReqMem ended in "n" (--mem; Slurm before 21.08).
	MemPerNode
	// MemPerJob: ReqMem had no c/n suffix. Slurm 21.08 and later print the
	// memory of the job's requested TRES, which is the job's total.
	MemPerJob
)

// String returns "cpu", "node", "job" or "unknown".
func (m MemPer) String() string {
	switch m {
	case MemPerCPU:
		return "cpu"
	case MemPerNode:
		return "node"
	case MemPerJob:
		return "job"
	}
	return "unknown"
}

// ParseReqMem parses ReqMem ("2800Mc", "180000Mn", "4000M", "16G", "0n")
// into bytes and the unit it is counted per. Slurm prints it in megabytes,
// so a number without unit suffix is taken as MiB. ok is false for an
// empty field.
func ParseReqMem(s string) (bytes int64, per MemPer, ok bool, err error) {
	if s == "" {
		return Missing, MemPerUnknown, false, nil
	}
	per = MemPerJob
	switch s[len(s)-1] {
	case 'c':
		per, s = MemPerCPU, s[:len(s)-1]
	case 'n':
		per, s = MemPerNode, s[:len(s)-1]
	}
	b, ok, err := ParseSize(s, MiB)
	if err != nil || !ok {
		return Missing, MemPerUnknown, false, fmt.Errorf("%w: memory request %q", ErrValue, s)
	}
	return b, per, true, nil
}

// parseCount parses a count (CPUs, nodes, ids). Slurm prints some counts
// through convert_num_unit, which writes 1024 nodes as "1K", so an exact
// unit suffix is accepted; empty means Missing.
func parseCount(s string) (int64, error) {
	if s == "" {
		return Missing, nil
	}
	if v, ok := digits(s); ok {
		return v, nil
	}
	x, ok := sizeValue(s, 1)
	if !ok || x != math.Trunc(x) || x >= math.MaxInt64 {
		return Missing, fmt.Errorf("%w: count %q", ErrValue, s)
	}
	return int64(x), nil
}

// TRES is a parsed trackable-resources string such as
// "cpu=4,mem=16G,node=1,billing=4,gres/gpu=2". Values with a unit suffix
// are multiplied out (memory is in bytes: "mem=16G" is 17179869184),
// durations ("cpu=01:02:03" in the usage fields) are in seconds, plain
// numbers are kept as they are.
type TRES map[string]float64

// ParseTRES parses a TRES string. An empty string gives a nil map. An item
// without '=', or whose value is neither a number nor a duration (the
// *Node usage fields hold node names), is an error.
func ParseTRES(s string) (TRES, error) {
	if s == "" {
		return nil, nil
	}
	items := strings.Split(s, ",")
	t := make(TRES, len(items))
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: TRES item %q in %q, want key=value", ErrValue, it, s)
		}
		x, ok := sizeValue(v, 1)
		if !ok {
			d, kind, ok := parseDuration(v)
			if !ok || kind != DurationValue {
				if num := strings.TrimRight(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"); num != v && isDecimal(num) {
					return nil, fmt.Errorf("%w: TRES %s=%q: unknown unit %q (K, M, G, T, P, E)", ErrValue, k, v, v[len(num):])
				}
				return nil, fmt.Errorf("%w: TRES %s=%q is not a number", ErrValue, k, v)
			}
			x = d
		}
		t[k] = x
	}
	return t, nil
}

// isTRES reports whether s has the shape of a TRES string (key=value
// items), whatever the values.
func isTRES(s string) bool {
	if s == "" {
		return true
	}
	for it := range strings.SplitSeq(s, ",") {
		k, _, ok := strings.Cut(it, "=")
		if !ok || k == "" {
			return false
		}
	}
	return true
}

// Normalised job states.
const (
	StateBootFail    = "BOOT_FAIL"
	StateCancelled   = "CANCELLED"
	StateCompleted   = "COMPLETED"
	StateDeadline    = "DEADLINE"
	StateFailed      = "FAILED"
	StateNodeFail    = "NODE_FAIL"
	StateOutOfMemory = "OUT_OF_MEMORY"
	StatePending     = "PENDING"
	StatePreempted   = "PREEMPTED"
	StateRunning     = "RUNNING"
	StateRequeued    = "REQUEUED"
	StateResizing    = "RESIZING"
	StateRevoked     = "REVOKED"
	StateSuspended   = "SUSPENDED"
	StateTimeout     = "TIMEOUT"
)

// NormalizeState reduces a State field to its state name: the words after
// it are dropped ("CANCELLED by 123" is CANCELLED), as is the '+' that
// marks a truncated name, the name is upper-cased, and squeue's
// abbreviations (CD, CA, F, TO, OOM, ...) are spelled out. An unknown name
// is returned upper-cased rather than rejected, since Slurm adds states.
func NormalizeState(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		s = s[:i]
	}
	s = strings.ToUpper(strings.TrimSuffix(s, "+"))
	switch s {
	case "BF":
		return StateBootFail
	case "CA", "CANCELED":
		return StateCancelled
	case "CD":
		return StateCompleted
	case "DL":
		return StateDeadline
	case "F":
		return StateFailed
	case "NF":
		return StateNodeFail
	case "OOM":
		return StateOutOfMemory
	case "PD":
		return StatePending
	case "PR":
		return StatePreempted
	case "R":
		return StateRunning
	case "RQ":
		return StateRequeued
	case "RS":
		return StateResizing
	case "RV":
		return StateRevoked
	case "S":
		return StateSuspended
	case "TO":
		return StateTimeout
	}
	return s
}

// cancelledBy returns the uid of "CANCELLED by <uid>", or Missing.
func cancelledBy(s string) int64 {
	_, rest, ok := strings.Cut(strings.TrimSpace(s), " by ")
	if !ok {
		return Missing
	}
	if v, ok := digits(strings.TrimSpace(rest)); ok {
		return v
	}
	return Missing
}

// isState reports whether s has the shape of a State field: an upper-case
// name, optionally "by <uid>".
func isState(s string) bool {
	name, rest, by := strings.Cut(s, " by ")
	if by {
		if _, ok := digits(rest); !ok {
			return false
		}
	}
	name = strings.TrimSuffix(name, "+")
	for i := 0; i < len(name); i++ {
		if c := name[i]; (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return name != "" || !by
}

// ParseExitCode parses "status:signal" ("0:0", "1:0", "0:15"). ok is false
// for an empty field.
func ParseExitCode(s string) (status, signal int64, ok bool, err error) {
	if s == "" {
		return Missing, Missing, false, nil
	}
	a, b, found := strings.Cut(s, ":")
	st, ok1 := digits(a)
	sg, ok2 := digits(b)
	if !found || !ok1 || !ok2 {
		return Missing, Missing, false, fmt.Errorf("%w: exit code %q, want status:signal", ErrValue, s)
	}
	return st, sg, true, nil
}

// jobRef is a parsed JobID: "123", "123_4", "123_[1-5%2]", "123+1", each
// optionally followed by ".step".
type jobRef struct {
	key   string // the job's identity: the JobID without its step and het offset
	base  int64  // the leading number
	array int64  // array task, or Missing
	het   int64  // het component offset, or Missing
	step  string // "" for an allocation, else the text after the first '.'
}

// parseJobID parses a JobID or JobIDRaw.
func parseJobID(s string) (jobRef, error) {
	r, ok := splitJobID(s)
	if !ok {
		return r, fmt.Errorf("%w: job id %q, want N, N_T, N_[...] or N+C, optionally followed by .step", ErrValue, s)
	}
	return r, nil
}

// isJobID reports whether s is a job id.
func isJobID(s string) bool {
	_, ok := splitJobID(s)
	return ok
}

// splitJobID is parseJobID without the error.
func splitJobID(s string) (jobRef, bool) {
	r := jobRef{array: Missing, het: Missing}
	job, step, isStep := strings.Cut(s, ".")
	if isStep && step == "" {
		return r, false
	}
	r.step = step
	i := 0
	for i < len(job) && job[i] >= '0' && job[i] <= '9' {
		i++
	}
	base, ok := digits(job[:i])
	if !ok {
		return r, false
	}
	r.base, r.key = base, job
	switch rest := job[i:]; {
	case rest == "":
	case rest[0] == '_' && len(rest) > 2 && rest[1] == '[' && rest[len(rest)-1] == ']':
		// A pending array not yet split into tasks: one record for all.
	case rest[0] == '_':
		v, ok := digits(rest[1:])
		if !ok {
			return r, false
		}
		r.array = v
	case rest[0] == '+':
		v, ok := digits(rest[1:])
		if !ok {
			return r, false
		}
		r.het, r.key = v, job[:i]
	default:
		return r, false
	}
	return r, true
}

package swf

import (
	"fmt"
	"strconv"
	"strings"
)

// Header holds the comment lines that precede the first job of an SWF file.
type Header struct {
	// Lines holds every header comment line in file order, exactly as
	// written (leading ';' included, line terminator removed).
	Lines []string
	// Pairs holds the "; Key: value" pairs in file order. Repeated keys
	// (Queue, Partition, Note, Information...) appear once per line.
	Pairs []Pair
}

// Pair is one "; Key: value" header comment.
type Pair struct {
	// Key is the label before the colon, e.g. "MaxProcs".
	Key string
	// Value is the text after the colon with surrounding blanks removed.
	// Indented comment lines that follow a pair continue its value (the PWA
	// wraps long notes that way); they are joined to it with "\n".
	Value string
	// Line is the 1-based line number of the pair's first line (0 for a
	// pair that was not read from a file).
	Line int
}

// Get returns the value of the first pair with the given key.
func (h Header) Get(key string) (string, bool) {
	for _, p := range h.Pairs {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// All returns the values of every pair with the given key, in file order.
func (h Header) All(key string) []string {
	var out []string
	for _, p := range h.Pairs {
		if p.Key == key {
			out = append(out, p.Value)
		}
	}
	return out
}

// MaxProcs returns the header's MaxProcs (the number of processors of the
// machine) and whether it is present.
func (h Header) MaxProcs() (int64, bool) { return h.intValue("MaxProcs") }

// MaxNodes returns the header's MaxNodes (the number of nodes of the
// machine) and whether it is present.
func (h Header) MaxNodes() (int64, bool) { return h.intValue("MaxNodes") }

// UnixStartTime returns the header's UnixStartTime (the epoch time that
// submit time 0 stands for) and whether it is present.
func (h Header) UnixStartTime() (int64, bool) { return h.intValue("UnixStartTime") }

// MaxJobs returns the header's MaxJobs (the number of jobs in the original
// log) and whether it is present.
func (h Header) MaxJobs() (int64, bool) { return h.intValue("MaxJobs") }

// MaxRecords returns the header's MaxRecords (the number of records in the
// original log) and whether it is present.
func (h Header) MaxRecords() (int64, bool) { return h.intValue("MaxRecords") }

// isIntKey reports whether k has a typed accessor. The reader checks their
// values when it parses the header, so the accessors never meet a bad one
// in a header that came from a file.
func isIntKey(k string) bool {
	switch k {
	case "MaxProcs", "MaxNodes", "UnixStartTime", "MaxJobs", "MaxRecords":
		return true
	}
	return false
}

// intValue returns the first value of key as an integer; a value that is
// not an integer counts as absent.
func (h Header) intValue(key string) (int64, bool) {
	v, ok := h.Get(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// addComment records a header comment line and updates Pairs: a "; Key:
// value" line starts a pair, an indented line continues the previous pair,
// and anything else (blank comment, free text) ends the continuation.
// cont reports whether the previous line may be continued; the returned
// value is the new state. Continuation lines wait in pend until joinPending
// joins them to their pair's value, once: a header of many of them is read
// in linear time.
func (h *Header) addComment(raw string, line int, cont bool, pend *[]string) (bool, error) {
	h.Lines = append(h.Lines, raw)
	key, value, kind := splitComment(raw)
	switch kind {
	case commentPair:
		if isIntKey(key) {
			if _, err := strconv.ParseInt(value, 10, 64); err != nil {
				return false, fmt.Errorf("header %s: %q is not an integer", key, value)
			}
		}
		h.joinPending(pend)
		h.Pairs = append(h.Pairs, Pair{Key: key, Value: value, Line: line})
		return true, nil
	case commentIndented:
		if cont && len(h.Pairs) > 0 {
			*pend = append(*pend, value)
			return true, nil
		}
	}
	return false, nil
}

// joinPending joins the continuation lines in pend to the last pair's value
// and empties pend.
func (h *Header) joinPending(pend *[]string) {
	if len(*pend) == 0 {
		return
	}
	p := &h.Pairs[len(h.Pairs)-1]
	p.Value += "\n" + strings.Join(*pend, "\n")
	*pend = (*pend)[:0]
}

type commentKind int

const (
	commentOther    commentKind = iota // free text or a blank comment
	commentPair                        // "; Key: value"
	commentIndented                    // ";<tab or 2+ spaces>text": a wrapped line
)

// splitComment classifies a comment line. A pair is ';', at most one space,
// then a key made of letters, digits and '_' starting with a letter, then
// ':'. The PWA indents continuation lines by a tab or several spaces, and
// those may themselves contain "word:" (";\tsee: http://..."), which is why
// the indentation, not the colon, decides.
func splitComment(raw string) (key, value string, kind commentKind) {
	t := strings.TrimLeft(raw, " \t")
	t = strings.TrimPrefix(t, ";")
	t = strings.TrimRight(t, " \t\r")
	body := strings.TrimLeft(t, " \t")
	if body == "" {
		return "", "", commentOther
	}
	indent := t[:len(t)-len(body)]
	if indent != "" && indent != " " {
		return "", body, commentIndented
	}
	colon := strings.IndexByte(body, ':')
	if colon <= 0 || !isKey(body[:colon]) {
		return "", "", commentOther
	}
	return body[:colon], strings.TrimSpace(body[colon+1:]), commentPair
}

func isKey(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	return s != ""
}

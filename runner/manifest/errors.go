package manifest

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error is one problem found in a manifest. Its text is "FILE:LINE: message"
// (or "FILE: message" when the line is unknown), the format of compilers,
// which editors turn into links.
type Error struct {
	// File is the manifest's path, as given to Load or Parse.
	File string
	// Line is the 1-based line of the key at fault, 0 when unknown. For a
	// value inside an array (an exclude or include entry) it is the line of
	// the array's key.
	Line int
	// Key is the TOML key path at fault (e.g. campaign.seed), when one is.
	Key string
	// Msg says what is wrong; it names the key itself.
	Msg string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Errors is every problem found in one manifest, in line order (problems
// without a line last). Load and Parse return it, so that one run of
// `schedlab expand` shows every mistake at once.
type Errors []*Error

func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Unwrap gives errors.Is and errors.As access to each *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

func (es Errors) sorted() Errors {
	slices.SortStableFunc(es, func(a, b *Error) int {
		switch {
		case a.Line == b.Line:
			return 0
		case a.Line == 0:
			return 1
		case b.Line == 0:
			return -1
		}
		return a.Line - b.Line
	})
	return es
}

// keyString prints a key path the way TOML would spell it, quoting the
// parts that need it (matrix."param.order").
func keyString(key ...string) string { return toml.Key(key).String() }

// locator finds the line of any key of a TOML document. BurntSushi/toml
// records the position of every key but exports it only through decoding
// errors, so the locator decodes the document into a probe: a chain of
// one-field structs along the key path ending in a value whose
// UnmarshalTOML fails, and reads the position from the ParseError. Keys
// that differ only in case from the wanted one get decoy fields, because
// the decoder falls back to case-insensitive field matching. It costs one
// decode per key and is used only to report errors.
type locator struct {
	data  string
	keys  []toml.Key
	cache map[string]int
}

type probeFail struct{}

var errProbe = errors.New("probe")

func (*probeFail) UnmarshalTOML(any) error { return errProbe }

var anyType = reflect.TypeFor[any]()

func (l *locator) line(key ...string) int {
	if l == nil || len(key) == 0 {
		return 0
	}
	ks := keyString(key...)
	if n, ok := l.cache[ks]; ok {
		return n
	}
	n := l.probe(key)
	if l.cache == nil {
		l.cache = map[string]int{}
	}
	l.cache[ks] = n
	return n
}

func (l *locator) probe(key []string) (line int) {
	defer func() {
		// reflect.StructOf panics on tags it cannot represent; such a key
		// simply has no known line.
		if recover() != nil {
			line = 0
		}
	}()
	t := reflect.TypeFor[probeFail]()
	for i := len(key) - 1; i >= 0; i-- {
		fields := []reflect.StructField{{Name: "F", Type: t, Tag: tag(key[i])}}
		for _, d := range l.caseVariants(key[:i], key[i]) {
			fields = append(fields, reflect.StructField{Name: fmt.Sprintf("D%d", len(fields)), Type: anyType, Tag: tag(d)})
		}
		t = reflect.StructOf(fields)
	}
	_, err := toml.Decode(l.data, reflect.New(t).Interface())
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Message == errProbe.Error() {
		return pe.Position.Line
	}
	return 0
}

func tag(name string) reflect.StructTag {
	return reflect.StructTag("toml:" + strconv.Quote(name))
}

// caseVariants returns the keys below parent that equal name except in case.
func (l *locator) caseVariants(parent []string, name string) []string {
	var out []string
	for _, k := range l.keys {
		if len(k) <= len(parent) || !slices.Equal(k[:len(parent)], parent) {
			continue
		}
		c := k[len(parent)]
		if c != name && strings.EqualFold(c, name) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// typeErr matches the text of BurntSushi/toml's decoding errors, which
// carry a line but are not ParseErrors.
var typeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// suggest returns the known name closest to got when it is close enough to
// be a likely misspelling: equal but for case, within an edit distance
// (insertions, deletions, substitutions and swaps of adjacent characters)
// of a third of its length (at least 1), or a beginning of it at least 3
// characters long (warmup for warmup_jobs).
func suggest(got string, known []string) string {
	best, bestD := "", -1
	for _, k := range known {
		if strings.EqualFold(k, got) {
			return k
		}
	}
	for _, k := range known {
		d := editDistance(strings.ToLower(got), strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD >= 0 && bestD <= max(1, len(got)/3) && bestD < len(got) {
		return best
	}
	if len(got) >= 3 {
		for _, k := range known {
			if strings.HasPrefix(strings.ToLower(k), strings.ToLower(got)) {
				return k
			}
		}
	}
	return ""
}

// hint returns " (did you mean X?)" or " (known: a, b, c)".
func hint(got string, known []string) string {
	if s := suggest(got, known); s != "" {
		return fmt.Sprintf(" (did you mean %s?)", s)
	}
	if len(known) == 0 {
		return " (known: none)"
	}
	return fmt.Sprintf(" (known: %s)", strings.Join(known, ", "))
}

// editDistance is the optimal-string-alignment distance between a and b,
// in bytes: the Levenshtein distance with swaps of adjacent characters
// counting as one edit (tarce for trace).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

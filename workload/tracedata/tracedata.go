// Package tracedata finds the real workload traces (the Parallel Workloads
// Archive logs listed in SOURCES.md) for tests and tools.
//
// The traces are not part of the repository. They live in a directory that
// holds SOURCES.md and the *.swf.gz files, found, in this order, at
// $SCHEDLAB_DATA/workloads, at $SCHEDLAB_DATA, or at shared/data/workloads
// under the working directory or one of its ancestors (the checkout layout
// puts "shared" beside the repository root). Tests call Dir or Path and
// skip, saying where they looked, when the error wraps ErrNotFound.
package tracedata

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// EnvVar names the environment variable that points at the data directory.
const EnvVar = "SCHEDLAB_DATA"

// SourcesFile is the name of the provenance file in the traces directory.
const SourcesFile = "SOURCES.md"

// ErrNotFound is wrapped by the errors of Dir and Path when the data is
// absent, as opposed to unreadable.
var ErrNotFound = errors.New("workload traces not found")

// Dir returns the directory holding the traces. Its error wraps ErrNotFound
// and lists every place it looked when there is none.
func Dir() (string, error) {
	var tried []string
	if env := os.Getenv(EnvVar); env != "" {
		for _, d := range []string{filepath.Join(env, "workloads"), env} {
			tried = append(tried, d)
			if isTraceDir(d) {
				return d, nil
			}
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("tracedata: %w", err)
	}
	for d := wd; ; {
		c := filepath.Join(d, "shared", "data", "workloads")
		if isTraceDir(c) {
			return c, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("%w (set %s; looked in %s)", ErrNotFound, EnvVar, lookedIn(tried, wd, "workloads"))
}

// lookedIn says where Dir or SacctDir looked: the places $SCHEDLAB_DATA
// gave, then shared/data/SUB under the working directory and each of its
// ancestors, said once rather than listed (a test skipped for want of data
// says this, and a list of every ancestor drowns the point).
func lookedIn(env []string, wd, sub string) string {
	return strings.Join(append(env, filepath.Join(wd, "shared", "data", sub)), ", ") + " and the same under every folder above " + wd
}

// isTraceDir reports whether d holds SOURCES.md, which every copy of the
// traces carries; a bare directory of the same name is not enough.
func isTraceDir(d string) bool {
	st, err := os.Stat(filepath.Join(d, SourcesFile))
	return err == nil && st.Mode().IsRegular()
}

// Path returns the path of the trace file name (e.g.
// "KTH-SP2-1996-2.1-cln.swf.gz"). Its error wraps ErrNotFound when the
// directory or the file is absent.
func Path(name string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w: no %s in %s", ErrNotFound, name, d)
		}
		return "", fmt.Errorf("tracedata: %w", err)
	}
	return p, nil
}

// Source is one row of the main table of SOURCES.md: what the provenance
// record says a trace contains, for tests to check the files against.
type Source struct {
	// File is the file name in the traces directory.
	File string
	// Jobs is the number of non-comment lines.
	Jobs int
	// MaxNodes and MaxProcs are copied from the file's header.
	MaxNodes, MaxProcs int64
	// SHA256 is the hex sha256 of the uncompressed bytes.
	SHA256 string
}

// Sources parses the main table of SOURCES.md in the traces directory. It
// finds columns by their header names, so reordering the table is harmless,
// and fails if a column it needs is missing.
func Sources() ([]Source, error) {
	d, err := Dir()
	if err != nil {
		return nil, err
	}
	p := filepath.Join(d, SourcesFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("tracedata: %w", err)
	}
	defer f.Close()
	var (
		out  []Source
		cols map[string]int
		line int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line++
		cells, ok := tableRow(sc.Text())
		if !ok {
			if cols != nil && len(out) > 0 {
				break // the end of the main table
			}
			continue
		}
		if cols == nil {
			if !slices.Contains(cells, "jobs") {
				continue
			}
			cols = make(map[string]int, len(cells))
			for i, c := range cells {
				cols[c] = i
			}
			for _, need := range []string{"file", "jobs", "MaxNodes / MaxProcs (header)", "sha256 (uncompressed)"} {
				if _, ok := cols[need]; !ok {
					return nil, fmt.Errorf("%s:%d: table has no %q column", p, line, need)
				}
			}
			continue
		}
		if strings.HasPrefix(cells[0], "---") || strings.HasPrefix(cells[0], ":-") {
			continue
		}
		if len(cells) != len(cols) {
			return nil, fmt.Errorf("%s:%d: %d cells, want %d", p, line, len(cells), len(cols))
		}
		s, err := parseSource(cells, cols)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", p, line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no table with a \"jobs\" column", p)
	}
	return out, nil
}

func parseSource(cells []string, cols map[string]int) (Source, error) {
	s := Source{File: cells[cols["file"]], SHA256: cells[cols["sha256 (uncompressed)"]]}
	jobs, err := strconv.Atoi(strings.ReplaceAll(cells[cols["jobs"]], ",", ""))
	if err != nil {
		return s, fmt.Errorf("jobs of %s: %w", s.File, err)
	}
	s.Jobs = jobs
	nodes, procs, ok := strings.Cut(cells[cols["MaxNodes / MaxProcs (header)"]], "/")
	if !ok {
		return s, fmt.Errorf("MaxNodes / MaxProcs of %s: no '/'", s.File)
	}
	if s.MaxNodes, err = strconv.ParseInt(strings.TrimSpace(nodes), 10, 64); err != nil {
		return s, fmt.Errorf("MaxNodes of %s: %w", s.File, err)
	}
	if s.MaxProcs, err = strconv.ParseInt(strings.TrimSpace(procs), 10, 64); err != nil {
		return s, fmt.Errorf("MaxProcs of %s: %w", s.File, err)
	}
	if len(s.SHA256) != 64 {
		return s, fmt.Errorf("sha256 of %s: %q is not 64 hex digits", s.File, s.SHA256)
	}
	return s, nil
}

// tableRow splits a Markdown table row into trimmed cells.
func tableRow(l string) ([]string, bool) {
	l = strings.TrimSpace(l)
	if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") || len(l) < 2 {
		return nil, false
	}
	parts := strings.Split(l[1:len(l)-1], "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, true
}

// SourcesForTest returns Sources for a test. When the traces are absent it
// skips the test, saying where it looked, except under CI (the environment
// variable CI set), where the traces must be present and their absence fails
// the test: a CI run must not turn green by skipping.
func SourcesForTest(t testing.TB) []Source {
	t.Helper()
	src, err := Sources()
	if errors.Is(err, ErrNotFound) && os.Getenv("CI") == "" {
		t.Skipf("real traces not available: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// Files are the traces SOURCES.md lists, in its order. Tests that run once
// per trace name their subtests after them (EachForTest), so that the same
// subtests exist, skipped, when the traces are absent: the count of tests
// is then the same with and without the data. TestFiles keeps the list
// equal to SOURCES.md wherever the data is present.
func Files() []string {
	return []string{
		"KTH-SP2-1996-2.1-cln.swf.gz", "NASA-iPSC-1993-3.1-cln.swf.gz", "LLNL-Thunder-2007-1.1-cln.swf.gz",
		"HPC2N-2002-2.2-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz", "RICC-2010-2.swf.gz",
	}
}

// EachForTest runs fn in a subtest named after each trace of Files, with
// its row of SOURCES.md. When the traces are absent each subtest is
// skipped (the first saying where Dir looked) rather than the test whole,
// which would hide them; under CI their absence fails the test, as with
// SourcesForTest. A trace SOURCES.md lists and Files does not fails the
// test: the list must name every trace.
func EachForTest(t *testing.T, fn func(t *testing.T, s Source)) {
	t.Helper()
	src, err := Sources()
	if errors.Is(err, ErrNotFound) && os.Getenv("CI") == "" {
		for i, f := range Files() {
			t.Run(f, func(t *testing.T) {
				if i == 0 {
					t.Skipf("real traces not available: %v", err)
				}
				t.Skip("real traces not available (see the first subtest)")
			})
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]Source{}
	for _, s := range src {
		byFile[s.File] = s
		if !slices.Contains(Files(), s.File) {
			t.Errorf("SOURCES.md lists %s, which tracedata.Files does not", s.File)
		}
	}
	for _, f := range Files() {
		t.Run(f, func(t *testing.T) {
			s, ok := byFile[f]
			if !ok {
				t.Fatalf("SOURCES.md does not list %s, which tracedata.Files does", f)
			}
			fn(t, s)
		})
	}
}

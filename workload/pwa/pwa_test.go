package pwa

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedlab/schedlab/workload/tracedata"
)

const kthSHA = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"

// kth is the shipped KTH-SP2 log, which the test server serves.
func kth(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// server serves the log at /kth.swf.gz through handle, counting requests.
func server(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int64)) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handle(w, r, n.Add(1)) }))
	t.Cleanup(s.Close)
	return s, &n
}

func cache(t *testing.T, url, sha string) Cache {
	return Cache{Dir: t.TempDir(), Logs: []Log{{Name: "KTH-SP2-1996-2.1-cln", URL: url, SHA256: sha, Jobs: 28476, Procs: 100}}}
}

// serveRanges serves the log with range requests honoured.
func serveRanges(data []byte) func(w http.ResponseWriter, r *http.Request, _ int64) {
	return func(w http.ResponseWriter, r *http.Request, _ int64) {
		http.ServeContent(w, r, "kth.swf.gz", time.Time{}, bytes.NewReader(data))
	}
}

func TestDownloadAndCache(t *testing.T) {
	data := kth(t)
	s, hits := server(t, serveRanges(data))
	c := cache(t, s.URL+"/kth.swf.gz", kthSHA)
	var reported atomic.Int64
	c.Progress = func(name string, done, total int64) {
		if name != "KTH-SP2-1996-2.1-cln" || total != int64(len(data)) || done > total {
			t.Errorf("progress %s %d/%d", name, done, total)
		}
		reported.Store(done)
	}
	path, l, err := c.Path(context.Background(), "pwa:KTH-SP2-1996-2.1-cln")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) || l.SHA256 != kthSHA {
		t.Fatalf("cached file differs from the served one")
	}
	if reported.Load() != int64(len(data)) {
		t.Errorf("progress reported %d of %d bytes", reported.Load(), len(data))
	}
	// Cached: no second download, with or without the prefix.
	if p2, _, err := c.Path(context.Background(), "KTH-SP2-1996-2.1-cln"); err != nil || p2 != path || hits.Load() != 1 {
		t.Errorf("second resolve: %s %v, %d requests", p2, err, hits.Load())
	}
}

func TestBadDigest(t *testing.T) {
	s, _ := server(t, serveRanges(kth(t)))
	c := cache(t, s.URL+"/kth.swf.gz", strings.Repeat("0", 64))
	_, _, err := c.Path(context.Background(), "KTH-SP2-1996-2.1-cln")
	if !errors.Is(err, ErrDigest) {
		t.Fatalf("a wrong digest: %v", err)
	}
	if left, _ := os.ReadDir(c.Dir); len(left) != 0 {
		t.Errorf("the cache keeps %v after a wrong digest", left)
	}
}

func TestOffline(t *testing.T) {
	s, _ := server(t, serveRanges(kth(t)))
	url := s.URL + "/kth.swf.gz"
	s.Close()
	c := cache(t, url, kthSHA)
	_, _, err := c.Path(context.Background(), "KTH-SP2-1996-2.1-cln")
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), filepath.Join(c.Dir, "KTH-SP2-1996-2.1-cln.swf.gz")) ||
		!strings.Contains(err.Error(), kthSHA) {
		t.Errorf("offline: %v", err)
	}
	// A file put there by hand is used.
	if err := os.WriteFile(filepath.Join(c.Dir, "KTH-SP2-1996-2.1-cln.swf.gz"), kth(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Path(context.Background(), "KTH-SP2-1996-2.1-cln"); err != nil {
		t.Errorf("a log put in the cache by hand: %v", err)
	}
}

// TestPartialDownload cuts the first download halfway: the partial file is
// kept, never used; the next attempt resumes it with a range request, or
// starts again when the server ignores ranges.
func TestPartialDownload(t *testing.T) {
	data := kth(t)
	for _, ranges := range []bool{true, false} {
		var sawRange atomic.Bool
		s, _ := server(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				w.Header().Set("Content-Length", strconv.Itoa(len(data)))
				w.WriteHeader(http.StatusOK)
				w.Write(data[:len(data)/2]) // then the connection drops
				return
			}
			if r.Header.Get("Range") != "" {
				sawRange.Store(true)
			}
			if ranges {
				serveRanges(data)(w, r, n)
				return
			}
			w.Write(data)
		})
		c := cache(t, s.URL+"/kth.swf.gz", kthSHA)
		if _, _, err := c.Path(context.Background(), "KTH-SP2-1996-2.1-cln"); err == nil {
			t.Fatal("a cut download succeeded")
		}
		final := filepath.Join(c.Dir, "KTH-SP2-1996-2.1-cln.swf.gz")
		if _, err := os.Stat(final); err == nil {
			t.Fatal("a cut download is in the cache")
		}
		if st, err := os.Stat(final + ".part"); err != nil || st.Size() != int64(len(data)/2) {
			t.Fatalf("the partial file: %v", err)
		}
		path, _, err := c.Path(context.Background(), "KTH-SP2-1996-2.1-cln")
		if err != nil {
			t.Fatalf("ranges %v: the second attempt: %v", ranges, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) || !sawRange.Load() {
			t.Errorf("ranges %v: resumed file equal %v, range asked %v", ranges, bytes.Equal(got, data), sawRange.Load())
		}
	}
}

func TestLookup(t *testing.T) {
	c := Cache{}
	if _, err := c.Lookup("pwa:KTH-SP2"); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "KTH-SP2-1996-2.1-cln") {
		t.Errorf("unknown name: %v", err)
	}
	for _, l := range Known() {
		if len(l.SHA256) != 64 || !strings.HasPrefix(l.URL, archive) || !strings.HasSuffix(l.URL, "/"+l.File()) {
			t.Errorf("table entry %+v", l)
		}
	}
}

// TestTableDigests checks the table against SOURCES.md of the shared data
// (whose files the runner's tests hash): the same sha256, jobs and
// processors for every log (CI has the data; elsewhere it skips).
func TestTableDigests(t *testing.T) {
	sources := tracedata.SourcesForTest(t)
	for _, l := range Known() {
		i := slices.IndexFunc(sources, func(s tracedata.Source) bool { return s.File == l.File() })
		if i < 0 {
			t.Errorf("%s: not in SOURCES.md", l.File())
			continue
		}
		if s := sources[i]; s.SHA256 != l.SHA256 || s.Jobs != l.Jobs || s.MaxProcs != l.Procs {
			t.Errorf("%s: table %s %d jobs %d procs, SOURCES.md %s %d jobs %d procs", l.Name, l.SHA256, l.Jobs, l.Procs, s.SHA256, s.Jobs, s.MaxProcs)
		}
	}
}

// Package pwa names logs of the Parallel Workloads Archive
// (https://www.cs.huji.ac.il/labs/parallel/workload/): a manifest's
// `trace = "pwa:KTH-SP2-1996-2.1-cln"` resolves to a file in a local cache,
// downloaded from the archive when missing and checked against the sha256
// of its uncompressed content that the table below records. A download
// goes to a partial file, resumed by the next attempt when the server
// allows, and becomes the cached file only once its digest is right, so a
// partial or wrong download is never used.
package pwa

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Scheme prefixes a log's name where a trace path is expected.
const Scheme = "pwa:"

// Log is a log of the archive.
type Log struct {
	// Name is the file name without .swf.gz, as the archive names it.
	Name string
	// URL is where the archive serves it.
	URL string
	// SHA256 is the sha256 of the uncompressed log, which manifests give
	// as a trace's sha256.
	SHA256 string
	// Jobs and Procs are the log's job count and its header's MaxProcs.
	Jobs  int
	Procs int64
}

// File is the log's file name in the cache.
func (l Log) File() string { return l.Name + ".swf.gz" }

// archive is the archive's address.
const archive = "https://www.cs.huji.ac.il/labs/parallel/workload/"

// Known lists the logs schedlab knows, their digests those of the copies
// in the project's shared data (SOURCES.md there says where each copy comes
// from and how it was checked against the archive).
func Known() []Log {
	return []Log{
		{"CEA-Curie-2011-2.1-cln", archive + "l_cea_curie/CEA-Curie-2011-2.1-cln.swf.gz", "b732a04aea71e2f154c8feee580be549d0bba1462bc91ec581944cb3dd6d442d", 312826, 93312},
		{"HPC2N-2002-2.2-cln", archive + "l_hpc2n/HPC2N-2002-2.2-cln.swf.gz", "77b8993c73ae438385f6c0015708251f52dc316267b03ac19a406fbea2802afa", 202871, 240},
		{"KTH-SP2-1996-2.1-cln", archive + "l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz", "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87", 28476, 100},
		{"LLNL-Thunder-2007-1.1-cln", archive + "l_llnl_thunder/LLNL-Thunder-2007-1.1-cln.swf.gz", "aad5a3120a6adf0342d46fb4830e022121cdfbd3de9ecdd9cf10145b8864b6a5", 121039, 4008},
		{"NASA-iPSC-1993-3.1-cln", archive + "l_nasa_ipsc/NASA-iPSC-1993-3.1-cln.swf.gz", "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76", 18239, 128},
		{"RICC-2010-2", archive + "l_ricc/RICC-2010-2.swf.gz", "986a2a12df85adc3c2a2eb80a31b4ff9a056b92637526ee53fb70637b1bf0518", 447794, 8192},
		{"SDSC-BLUE-2000-4.2-cln", archive + "l_sdsc_blue/SDSC-BLUE-2000-4.2-cln.swf.gz", "13892839f430583231a14bb811fd50a31b5b529eb37faacdbbefb71e73390e3e", 243306, 1152},
	}
}

// ErrUnknown is returned for a name the table does not have.
var ErrUnknown = errors.New("not a log schedlab knows")

// ErrDigest is returned when a download's content has another sha256 than
// the table's; the download is discarded.
var ErrDigest = errors.New("the downloaded log has another sha256")

// ErrOffline is returned when a log is neither cached nor downloadable.
var ErrOffline = errors.New("the log is not in the cache and could not be downloaded")

// Cache resolves names to files, downloading what is missing.
type Cache struct {
	// Dir holds the logs; empty means DefaultDir.
	Dir string
	// Logs is the table of names; nil means Known.
	Logs []Log
	// Client makes the downloads; nil means http.DefaultClient.
	Client *http.Client
	// Progress, when set, is told of a download as it goes (see Progress).
	Progress func(name string, done, total int64)
}

// EnvDir names the variable that sets the cache folder.
const EnvDir = "SCHEDLAB_PWA_CACHE"

// DefaultDir is $SCHEDLAB_PWA_CACHE, else schedlab/pwa in the user cache
// directory.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("pwa: no cache directory (set %s): %w", EnvDir, err)
	}
	return filepath.Join(base, "schedlab", "pwa"), nil
}

func (c Cache) dir() (string, error) {
	if c.Dir != "" {
		return c.Dir, nil
	}
	return DefaultDir()
}

func (c Cache) logs() []Log {
	if c.Logs != nil {
		return c.Logs
	}
	return Known()
}

// Lookup returns the log called name (with or without the pwa: prefix).
func (c Cache) Lookup(name string) (Log, error) {
	name = strings.TrimPrefix(name, Scheme)
	logs := c.logs()
	if i := slices.IndexFunc(logs, func(l Log) bool { return l.Name == name }); i >= 0 {
		return logs[i], nil
	}
	names := make([]string, len(logs))
	for i, l := range logs {
		names[i] = l.Name
	}
	return Log{}, fmt.Errorf("pwa:%s: %w (known: %s; schedlab workload list)", name, ErrUnknown, strings.Join(names, ", "))
}

// Cached returns the path of the log in the cache and whether it is there.
func (c Cache) Cached(l Log) (string, bool) {
	dir, err := c.dir()
	if err != nil {
		return "", false
	}
	path := filepath.Join(dir, l.File())
	st, err := os.Stat(path)
	return path, err == nil && st.Mode().IsRegular()
}

// Path returns the cached file of the log called name, downloading it when
// missing. A cached file was checked when it was downloaded; whoever loads
// it checks its sha256 again (a manifest's trace always is).
func (c Cache) Path(ctx context.Context, name string) (string, Log, error) {
	l, err := c.Lookup(name)
	if err != nil {
		return "", l, err
	}
	if path, ok := c.Cached(l); ok {
		return path, l, nil
	}
	dir, err := c.dir()
	if err != nil {
		return "", l, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", l, fmt.Errorf("pwa: the cache: %w", err)
	}
	path := filepath.Join(dir, l.File())
	if err := c.download(ctx, l, path); err != nil {
		if errors.Is(err, ErrDigest) || ctx.Err() != nil {
			return "", l, err
		}
		return "", l, fmt.Errorf("pwa:%s: %w: %w\n  download %s yourself and put it at %s (the sha256 of its uncompressed content is %s)",
			l.Name, ErrOffline, err, l.URL, path, l.SHA256)
	}
	return path, l, nil
}

// download fetches the log into path through path.part, resuming a partial
// file with a range request, and renames it once its content's sha256 is
// the table's.
func (c Cache) download(ctx context.Context, l Log, path string) error {
	part := path + ".part"
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.URL, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		have, flags = 0, flags|os.O_TRUNC // the server starts again
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// The partial file is complete already, or longer than the log:
		// the digest decides.
		resp.Body.Close()
		return c.finish(l, part, path)
	default:
		return fmt.Errorf("GET %s: %s", l.URL, resp.Status)
	}
	f, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	total := int64(-1)
	if resp.ContentLength >= 0 {
		total = have + resp.ContentLength
	}
	w := io.Writer(f)
	if c.Progress != nil {
		w = &progress{w: f, name: l.Name, done: have, total: total, report: c.Progress}
	}
	_, err = io.Copy(w, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The partial file stays for the next attempt to resume.
		return fmt.Errorf("GET %s: %w", l.URL, err)
	}
	return c.finish(l, part, path)
}

// finish checks a complete download and renames it into place, or removes
// it.
func (c Cache) finish(l Log, part, path string) error {
	sum, err := contentSHA256(part)
	if err != nil || sum != l.SHA256 {
		os.Remove(part)
		if err != nil {
			return fmt.Errorf("pwa:%s: %w: %w (the download is discarded)", l.Name, ErrDigest, err)
		}
		return fmt.Errorf("pwa:%s: %w %s, the table says %s (the download is discarded)", l.Name, ErrDigest, sum, l.SHA256)
	}
	return os.Rename(part, path)
}

// contentSHA256 is the sha256 of a gzip file's uncompressed content.
func contentSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("not a gzip file: %w", err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, zr); err != nil {
		return "", fmt.Errorf("reading the gzip content: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// progress reports the bytes written through it.
type progress struct {
	w           io.Writer
	name        string
	done, total int64
	report      func(name string, done, total int64)
}

func (p *progress) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	p.report(p.name, p.done, p.total)
	return n, err
}

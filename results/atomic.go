package results

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// WriteFileAtomic calls write with a temporary file in path's directory and,
// only if write, fsync and close all succeed, renames it over path and
// fsyncs the directory. On failure the temporary file is removed, so path
// either keeps its old content or does not exist. Every error names path.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: write %s: %w", path, err)
		}
	}()
	dir, base := filepath.Split(path)
	if base == "" {
		return errors.New("path names a directory")
	}
	if dir == "" {
		dir = "."
	}

	f, tmp, err := createTemp(dir, base)
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	closed := false
	defer func() {
		if err == nil {
			return
		}
		if !closed {
			_ = f.Close() // the write error is the one worth reporting
		}
		_ = os.Remove(tmp) // best effort: a leftover hidden temp file is harmless
	}()

	if err := write(f); err != nil {
		return err
	}
	// Sync before rename: otherwise a crash right after the rename can leave
	// the final name pointing at a file whose data never reached the disk.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", tmp, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// The rename itself is only durable once the directory entry is synced.
	// The file is already complete under its final name here, so an error
	// is still reported but nothing is removed.
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("renamed, but fsync directory %s: %w", dir, err)
	}
	return nil
}

// createTemp creates a new hidden file next to the destination. Its name
// does not end in .parquet, so globs like *.parquet never pick up a partial
// file, and it carries the pid so a leftover from a crash can be traced.
// Unlike os.CreateTemp it uses mode 0666 (less umask), so the final file
// gets the same permissions as one made by os.Create.
func createTemp(dir, base string) (*os.File, string, error) {
	prefix := "." + base + ".tmp-" + strconv.Itoa(os.Getpid()) + "-"
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no unused temporary name with prefix %s in %s", prefix, dir)
}

// syncDir fsyncs a directory so that a rename into it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	// Some file systems cannot fsync a directory; the rename is then as
	// durable as that file system makes it, which is not our error.
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		err = nil
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

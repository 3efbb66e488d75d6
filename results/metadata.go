package results

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// MaxRowsPerRowGroup is the most rows a row group holds, so that writing and
// reading a file needs memory for one row group, not for the whole file.
const MaxRowsPerRowGroup = 100_000

// createdBy is written as the footer's created_by. It is fixed, and not
// parquet-go's default, because that default is built from the running
// binary's build info and would make otherwise identical files differ. It
// follows the "<app> version <semver>" convention readers parse; 1.1.0
// writes the jobs file's times delta-encoded and its attributes in a
// dictionary, 1.0.0 wrote every column plain.
const createdBy = "schedlab-results version 1.1.0"

// Metadata is a file's footer key-value metadata, used for provenance; keys
// are written in sorted order so output does not depend on map iteration.
type Metadata map[string]string

// validate rejects metadata that some reader could not show as text: empty
// keys are always a caller bug, and invalid UTF-8 would reach DuckDB and
// pyarrow as undecodable bytes.
func (m Metadata) validate() error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "" {
			return errors.New("metadata: empty key")
		}
		if !utf8.ValidString(k) {
			return fmt.Errorf("metadata: key %q is not valid UTF-8", k)
		}
		if !utf8.ValidString(m[k]) {
			return fmt.Errorf("metadata: value of %q is not valid UTF-8", k)
		}
	}
	return nil
}

// zstdFastest is the codec of every file: zstd at its fastest level writes
// about twice as fast as the default level for files a few percent larger
// (BenchmarkWriteJobs); campaigns write a file per run, so the host's time
// goes there. It holds only encoder pools, safe for concurrent use.
var zstdFastest = zstd.Codec{Level: zstd.SpeedFastest}

// writerOptions returns the options every file of this package is written
// with, so jobs files and dynamic tables cannot drift apart.
func writerOptions(meta Metadata) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		// Never Lz4Raw: parquet-go issue #608 corrupts data silently.
		parquet.Compression(&zstdFastest),
		parquet.MaxRowsPerRowGroup(MaxRowsPerRowGroup),
		createdByOption(createdBy),
	}
	// parquet-go sorts the footer pairs itself; adding them in sorted order
	// too keeps the output deterministic even if that ever changes.
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		opts = append(opts, parquet.KeyValueMetadata(k, meta[k]))
	}
	return opts
}

// createdByOption sets created_by verbatim; parquet.CreatedBy would format
// it as "<app> version <v>(build <b>)", with no space before the parenthesis
// and an empty build.
type createdByOption string

// ConfigureWriter implements parquet.WriterOption.
func (c createdByOption) ConfigureWriter(config *parquet.WriterConfig) {
	config.CreatedBy = string(c)
}

// ReadMetadata returns the footer key-value metadata of the Parquet file at
// path, reading only the footer.
func ReadMetadata(path string) (Metadata, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return metadataOf(pf), nil
}

// metadataOf copies a file's key-value metadata; a key repeated in a file
// written elsewhere keeps its last value, as parquet-go's writer would.
func metadataOf(pf *parquet.File) Metadata {
	kvs := pf.Metadata().KeyValueMetadata
	m := make(Metadata, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// openParquet opens path and parses its footer, skipping the page index and
// bloom filters that this package never uses. The caller closes f.
func openParquet(path string) (f *os.File, pf *parquet.File, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			f = nil
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	pf, err = parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	return f, pf, nil
}

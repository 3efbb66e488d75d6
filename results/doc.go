// Package results writes and reads the Parquet files a simulation produces:
// one jobs file per run (one row per job, see JobRow) and campaign tables
// whose columns are only known at run time (see WriteTable), such as
// runs.parquet with one column per experiment-matrix parameter.
//
// Every file is meant to be read with no help by DuckDB, pandas and polars,
// so only plain INT64, DOUBLE, STRING and BOOLEAN columns are written. Pages
// are compressed with zstd; LZ4_RAW is never used because parquet-go issue
// #608 corrupts data silently with it. Row groups hold at most
// MaxRowsPerRowGroup rows so readers and the writer need bounded memory.
//
// Output is deterministic: the same rows and metadata give byte-identical
// files, because parquet-go writes no timestamps or random bytes (outside
// encryption, which is not used), key-value metadata is sorted by key and
// created_by is a constant of this package rather than parquet-go's default,
// which depends on the build info of the running binary.
//
// Files are replaced atomically: data goes to a hidden temporary file in the
// destination directory, which is fsynced, closed and renamed over the final
// path, and the directory is fsynced, so a crash or a full disk can never
// leave a truncated file under the final name.
package results

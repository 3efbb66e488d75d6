// check.mjs reads one Parquet file with DuckDB and prints what DuckDB sees as
// JSON, so the Go tests in package results can check our files against an
// independent reader instead of trusting parquet-go to read its own output.
//
// Usage: node check.mjs FILE.parquet [--rows]
//
// Output (one JSON object on stdout):
//   rows         row count (count(*) over read_parquet)
//   columns      [{name, type}] in file order, types as DuckDB names them
//   kv           footer key-value metadata, keys and values decoded to text
//   created_by   the footer's created_by string
//   row_groups   number of row groups
//   compression  distinct column-chunk codecs, sorted
//   data         with --rows only: every row as a JSON object (64-bit
//                integers come back as strings so they stay exact)
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
const withRows = args.includes('--rows');
const files = args.filter((a) => a !== '--rows');
if (files.length !== 1) {
  console.error('usage: node check.mjs FILE.parquet [--rows]');
  process.exit(2);
}
const file = files[0];

// BLOB values arrive as objects carrying raw bytes; kv metadata is stored as
// BLOB by DuckDB even though ours is always UTF-8 text.
const utf8 = new TextDecoder('utf-8', { fatal: true });
function text(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (v.bytes instanceof Uint8Array) return utf8.decode(v.bytes);
  if (v instanceof Uint8Array) return utf8.decode(v);
  return String(v);
}

async function main() {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const all = async (sql) => (await conn.runAndReadAll(sql, [file])).getRows();

    const [[count]] = await all('SELECT count(*) FROM read_parquet(?)');
    const columns = (await conn.runAndReadAll('DESCRIBE SELECT * FROM read_parquet(?)', [file]))
      .getRowObjectsJS()
      .map((r) => ({ name: r.column_name, type: r.column_type }));
    const kv = {};
    for (const [k, v] of await all('SELECT key, value FROM parquet_kv_metadata(?)')) {
      kv[text(k)] = text(v);
    }
    const [[createdBy]] = await all('SELECT created_by FROM parquet_file_metadata(?)');
    const [[rowGroups]] = await all(
      'SELECT count(DISTINCT row_group_id) FROM parquet_metadata(?)',
    );
    const compression = (
      await all('SELECT DISTINCT compression FROM parquet_metadata(?) ORDER BY 1')
    ).map(([c]) => String(c));

    const out = {
      rows: Number(count),
      columns,
      kv,
      created_by: text(createdBy),
      row_groups: Number(rowGroups),
      compression,
    };
    if (withRows) {
      out.data = (
        await conn.runAndReadAll('SELECT * FROM read_parquet(?)', [file])
      ).getRowObjectsJson();
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

main().catch((err) => {
  console.error(`check.mjs: ${file}: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
});

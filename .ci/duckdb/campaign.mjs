// campaign.mjs checks a campaign folder with DuckDB, an independent Parquet
// reader: runs.parquet has one row per run, every completed run's jobs file
// has as many rows as runs.parquet says, and every file carries the
// provenance keys. With --sql FILE.md it also runs every ```sql block of that
// Markdown file (the queries of docs/results.md), from the current directory,
// and fails if DuckDB rejects one.
//
// Usage: node campaign.mjs DIR [--runs N] [--sql FILE.md]
//
// Prints one JSON object: {runs, ok, failed, pending, jobs_files, job_rows, queries}.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return null;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const wantRuns = opt('--runs');
const sqlDoc = opt('--sql');
if (args.length !== 1) {
  console.error('usage: node campaign.mjs DIR [--runs N] [--sql FILE.md]');
  process.exit(2);
}
const dir = args[0];

const runKeys = ['schedlab.version', 'go.version', 'os_arch', 'host', 'vcs.revision', 'vcs.modified',
  'campaign.name', 'campaign.seed'];
const jobKeys = [...runKeys, 'run.key', 'run.spec', 'seed', 'policy.name', 'policy.version',
  'policy.sdk_version', 'policy.sha256', 'workload.sha256', 'metrics.bsld_tau', 'clean.procs'];

const utf8 = new TextDecoder('utf-8', { fatal: true });
const text = (v) => (v?.bytes instanceof Uint8Array ? utf8.decode(v.bytes) : String(v));

function fail(msg) {
  console.error(`campaign ${dir}: ${msg}`);
  process.exit(1);
}

async function main() {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const rows = async (sql, params = []) => (await conn.runAndReadAll(sql, params)).getRowObjectsJS();
  const kv = async (file) => {
    const out = {};
    for (const r of await rows('SELECT key, value FROM parquet_kv_metadata(?)', [file])) {
      out[text(r.key)] = text(r.value);
    }
    return out;
  };
  const missing = (have, keys) => keys.filter((k) => !(k in have) || have[k] === '');

  const runsFile = `${dir}/runs.parquet`;
  const runs = await rows(`SELECT run_key, status, jobs FROM read_parquet(?) ORDER BY run_index`, [runsFile]);
  if (wantRuns !== null && runs.length !== Number(wantRuns)) fail(`runs.parquet has ${runs.length} rows, want ${wantRuns}`);
  const m = missing(await kv(runsFile), runKeys);
  if (m.length) fail(`runs.parquet lacks provenance ${m}`);

  let ok = 0, failed = 0, pending = 0, jobRows = 0;
  for (const r of runs) {
    if (r.status === 'failed') { failed++; continue; }
    if (r.status === 'pending') { pending++; continue; }
    if (r.status !== 'ok') fail(`run ${r.run_key}: status ${r.status}`);
    ok++;
    const file = `${dir}/jobs/${r.run_key}.parquet`;
    const [{ n }] = await rows('SELECT count(*)::INTEGER AS n FROM read_parquet(?)', [file]);
    if (BigInt(n) !== BigInt(r.jobs)) fail(`${file}: ${n} rows, runs.parquet says ${r.jobs}`);
    jobRows += n;
    const meta = await kv(file);
    const mk = missing(meta, jobKeys);
    if (mk.length) fail(`${file} lacks provenance ${mk}`);
    if (meta['run.key'] !== r.run_key) fail(`${file}: run.key ${meta['run.key']}`);
  }

  let queries = 0;
  if (sqlDoc) {
    const md = readFileSync(sqlDoc, 'utf8');
    for (const block of md.matchAll(/```sql\n([\s\S]*?)```/g)) {
      for (const stmt of block[1].split(/;\s*(?:--[^\n]*)?\n/).map((s) => s.trim()).filter((s) => s && !/^--[^\n]*$/.test(s))) {
        try {
          await conn.runAndReadAll(stmt);
        } catch (e) {
          fail(`${sqlDoc}: DuckDB rejects\n${stmt}\n${e.message}`);
        }
        queries++;
      }
    }
    if (queries === 0) fail(`${sqlDoc} has no sql block`);
  }
  console.log(JSON.stringify({ runs: runs.length, ok, failed, pending, jobs_files: ok, job_rows: jobRows, queries }));
}

main().catch((e) => fail(e.stack ?? String(e)));

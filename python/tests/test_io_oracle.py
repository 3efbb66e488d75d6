"""An independent oracle of the engine's I/O model (docs/engine.md, "Jobs
that move data"): a campaign with an I/O model is rerun here, from its jobs
file's starts and placements and the trace's runtimes alone, with
bandwidth shared max-min fairly by linear programming (SciPy's HiGHS):
each round maximises the least rate of the flows not yet fixed, then fixes
every flow whose rate cannot rise above that level without lowering
another's. Every job's end and killed flag must be the engine's. The
engine computes the same allocation by progressive filling, and the host
by its own code in Go (verify.IO); this is neither."""

from __future__ import annotations

import gzip
import math
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import need

from schedlab._service import find_schedlab

TRACE = Path(__file__).resolve().parents[2] / "experiments" / "data" / "KTH-SP2-1996-2.1-cln.swf.gz"
SHA = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"

# The model of the campaign: low bandwidths, so that transfers contend, and
# compute phases of 10 minutes, so that most jobs checkpoint.
FS, UNIT, NODE = 2e9, 5e8, 4e8
STAGE_IN, CHECKPOINT, STAGE_OUT, PHASE_SECONDS, MAX_PHASES = 1.0, 0.5, 1.0, 600, 10
UNITS = 12
EPS = 1e-6  # sdk.IOEpsilon
# How far the linear programs' completions may stray from exact ones: a
# completion this close to the rounding boundary may round either way.
TOL = 1e-4

MANIFEST = """[campaign]
seed = 3
[platforms.kth-bb]
procs = 96
[platforms.kth-bb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[platforms.kth-bb.io]
fs_bandwidth = {fs}
unit_bandwidth = {unit}
node_bandwidth = {node}
phase_seconds = 600
[workloads.kth]
trace = "{trace}"
sha256 = "{sha}"
procs = 96
transform = "burst-buffer-lognormal"
clean = {{ job_ids = "1-80" }}
[policies.fcfs-bb]
ref = "bb-easy"
[matrix]
workload = ["kth"]
platform = ["kth-bb"]
policy = ["fcfs-bb"]
"""


@dataclass
class Flow:
    job: int
    kind: str  # in, ckpt, drain, out
    links: tuple[int, ...]
    m: int
    left: float
    bound: float = math.inf
    rate: float = 0.0


@dataclass
class Job:
    jid: int
    start: int
    walltime: int
    compute: int
    pieces: list[int]
    size: float
    stage: str = "in"
    moving: int = 0
    drains: int = 0
    done_phases: int = 0
    phases: int = 1
    each: float = 0.0
    comp_end: float = math.inf
    over: float | None = None  # completion time; None while running
    killed: bool = False
    flows: list[Flow] = field(default_factory=list)


def maxmin(flows: list[Flow], caps: list[float], linprog: Any) -> None:
    """Max-min fair rates by a sequence of linear programs."""
    n = len(flows)
    if n == 0:
        return
    fixed: dict[int, float] = {}
    while len(fixed) < n:
        free = [k for k in range(n) if k not in fixed]
        # Variables: the n rates and the level t; maximise t.
        c = [0.0] * n + [-1.0]
        a_ub, b_ub = [], []
        for link, cap in enumerate(caps):
            row = [float(f.m) if link in f.links else 0.0 for f in flows] + [0.0]
            if any(row):
                a_ub.append(row)
                b_ub.append(cap)
        for k in free:  # t <= x_k
            row = [0.0] * (n + 1)
            row[k], row[n] = -1.0, 1.0
            a_ub.append(row)
            b_ub.append(0.0)
        bounds = [
            (fixed[k], fixed[k]) if k in fixed else (0, None if math.isinf(flows[k].bound) else flows[k].bound)
            for k in range(n)
        ]
        bounds.append((0, None))
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs-ds")
        assert res.status == 0, res.message
        level = res.x[n]
        # A flow is fixed at the level when no solution keeping every free
        # flow at the level or more lets it rise above it.
        newly = []
        for k in free:
            ck = [0.0] * (n + 1)
            ck[k] = -1.0
            bk = [(fixed[j], fixed[j]) if j in fixed else (level * (1 - 1e-12), bounds[j][1]) for j in range(n)] + [
                (0, 0)
            ]
            rk = linprog(
                ck, A_ub=a_ub[: len(a_ub) - len(free)], b_ub=b_ub[: len(b_ub) - len(free)], bounds=bk, method="highs-ds"
            )
            assert rk.status == 0, rk.message
            if -rk.fun <= level * (1 + 1e-9) + 1e-9:
                newly.append(k)
        assert newly, "no flow fixed: the linear programs disagree"
        for k in newly:
            fixed[k] = level
    for k, f in enumerate(flows):
        f.rate = fixed[k]


def phases(compute: int) -> tuple[int, float]:
    if compute <= 0:
        return 1, 0.0
    n = round(compute / PHASE_SECONDS)  # Python rounds half to even, as the engine
    n = min(max(n, 1), MAX_PHASES)
    return n, compute / n


def simulate(jobs: list[Job], linprog: Any) -> None:
    """Replays the jobs' starts and computes each completion."""
    caps = [FS] + [UNIT] * UNITS  # shared duplex: link 0 the file system, 1+x unit x
    flows: list[Flow] = []
    now = 0.0
    starts = sorted(jobs, key=lambda j: (j.start, j.jid))
    nxt = 0
    active: list[Job] = []

    def open_(j: Job, kind: str, factor: float) -> bool:
        b = j.size * factor
        if b <= 0:
            return False
        opened = 0
        for x, cnt in enumerate(j.pieces):
            if cnt == 0:
                continue
            if kind == "in":
                f = Flow(j.jid, kind, (0, 1 + x), cnt, b)
            elif kind == "ckpt":
                f = Flow(j.jid, kind, (1 + x,), cnt, b, bound=NODE)
            else:
                f = Flow(j.jid, kind, (1 + x, 0), cnt, b)
            flows.append(f)
            opened += 1
        if opened == 0:
            return False
        if kind == "drain":
            j.drains += opened
        else:
            j.stage, j.moving = kind, opened
        return True

    def compute(j: Job, t: float) -> None:
        j.stage, j.comp_end = "compute", t + j.each

    def finish(j: Job, t: float) -> None:
        j.stage = "draining"
        if j.drains == 0:
            j.over = t

    while True:
        te = min(
            [now + f.left / f.rate for f in flows if f.rate > 0]
            + [j.comp_end for j in active if j.stage == "compute"]
            + [math.inf]
        )
        ts = starts[nxt].start if nxt < len(starts) else math.inf
        dls = [j.start + j.walltime for j in active]
        ts = min([ts, *dls])
        if math.isinf(te) and math.isinf(ts):
            return
        if te <= ts + EPS:
            t = min(te, ts)
            for f in flows:
                f.left -= f.rate * (t - now)
            now = t
            over = [f for f in flows if f.rate > 0 and f.left / f.rate <= EPS]
            flows[:] = [f for f in flows if not (f.rate > 0 and f.left / f.rate <= EPS)]
            byid = {j.jid: j for j in active}
            for f in sorted(over, key=lambda f: f.job):
                j = byid[f.job]
                if f.kind == "drain":
                    j.drains -= 1
                    if j.drains == 0 and j.stage == "draining":
                        j.over = t
                    continue
                j.moving -= 1
                if j.moving > 0:
                    continue
                if f.kind == "in":
                    compute(j, t)
                elif f.kind == "ckpt":
                    open_(j, "drain", CHECKPOINT)
                    compute(j, t)
                else:
                    finish(j, t)
            for j in active:
                if j.stage == "compute" and j.comp_end <= t + EPS:
                    j.done_phases += 1
                    if j.done_phases < j.phases:
                        if not open_(j, "ckpt", CHECKPOINT):
                            compute(j, t)
                    elif not open_(j, "out", STAGE_OUT):
                        finish(j, t)
            active[:] = [j for j in active if j.over is None]
        else:
            t = ts
            for f in flows:
                f.left -= f.rate * (t - now)
            now = t
            for j in active:
                if j.start + j.walltime == t and j.over is None:
                    j.killed, j.over = True, t
                    flows[:] = [f for f in flows if f.job != j.jid]
            active[:] = [j for j in active if j.over is None]
            while nxt < len(starts) and starts[nxt].start == t:
                j = starts[nxt]
                nxt += 1
                j.phases, j.each = phases(j.compute)
                active.append(j)
                if not open_(j, "in", STAGE_IN):
                    compute(j, t)
        maxmin(flows, caps, linprog)


def io_end(t: float) -> int:
    return math.ceil(t - EPS)


def test_io_model_against_linear_programs(tmp_path: Path) -> None:
    optimize = need("scipy.optimize")
    pq = need("pyarrow.parquet")
    try:
        bin_ = find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    manifest = tmp_path / "io.toml"
    manifest.write_text(MANIFEST.format(fs=int(FS), unit=int(UNIT), node=int(NODE), trace=TRACE, sha=SHA))
    out = tmp_path / "out"
    subprocess.run([bin_, "run", "-q", "--in-process", "--out", str(out), str(manifest)], check=True)
    [jobs_file] = list((out / "jobs").glob("*.parquet"))
    rows = pq.read_table(jobs_file).to_pylist()
    runtime: dict[int, int] = {}
    with gzip.open(TRACE, "rt") as fh:
        for line in fh:
            if line.startswith(";") or not line.strip():
                continue
            w = line.split()
            runtime[int(w[0])] = int(w[3])
    jobs = []
    for r in rows:
        pieces = [int(x) for x in r["units"].split(",")]
        n = sum(pieces)
        size = r["req_bb"] / n if n else 0.0
        jobs.append(Job(r["job_id"], r["start"], r["walltime"], min(runtime[r["job_id"]], r["walltime"]), pieces, size))
    simulate(jobs, optimize.linprog)
    by = {j.jid: j for j in jobs}
    slowed = 0
    for r in rows:
        j = by[r["job_id"]]
        assert j.over is not None, f"job {j.jid} never ended in the oracle"
        if j.killed:
            assert r["killed"] and r["end"] == j.over, (
                f"job {j.jid}: engine end {r['end']} killed {r['killed']}, oracle killed at {j.over}"
            )
            continue
        ends = {io_end(j.over - TOL), io_end(j.over + TOL)}
        assert r["end"] in ends, f"job {j.jid}: engine end {r['end']}, oracle completion {j.over:.6f}"
        if r["end"] > r["start"] + j.compute:
            slowed += 1
    assert slowed >= 20, f"only {slowed} jobs slowed by their data: the oracle checks little"

"""A Python policy's notes per job (schedlab.Notes): encoded as the host
decodes them, kept in the jobs file, checked by the host."""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need

from schedlab import Notes, WaitSpell
from schedlab._notes import encode_notes
from schedlab._service import find_schedlab

# docs/python.md's FCFS on a pool that notes each job's place in the queue
# and why it waited, as written there.
_DOC = (Path(__file__).resolve().parents[2] / "docs" / "python.md").read_text()
_SECTION = _DOC[_DOC.index("## Notes per job") :]
NOTER = _SECTION[_SECTION.index("```python\n") + len("```python\n") :]
NOTER = NOTER[: NOTER.index("```")]

SWF = "\n".join(
    # id submit wait run procs cpu mem reqprocs reqtime ...: 4 processors;
    # 1 holds all of them until 100, 2 and 3 wait behind it, 3 also
    # behind 2, which holds 3 of them until 150; 4 fits beside 2 at 100
    # but waits behind 3 (no backfilling) until 150.
    f"{i} {s} -1 {r} {p} -1 -1 {p} {w} -1 1 1 1 -1 1 -1 -1 -1"
    for i, s, r, p, w in [(1, 0, 100, 4, 100), (2, 10, 50, 3, 50), (3, 20, 30, 4, 30), (4, 30, 10, 1, 10)]
)


def sim(tmp_path: Path, policy: str) -> subprocess.CompletedProcess[str]:
    try:
        schedlab = find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    (tmp_path / "p.py").write_text(policy)
    (tmp_path / "t.swf").write_text("; MaxProcs: 4\n" + SWF + "\n")
    return subprocess.run(
        [
            schedlab,
            "sim",
            "--trace",
            str(tmp_path / "t.swf"),
            "--policy",
            str(tmp_path / "p.py"),
            "--out",
            str(tmp_path / "jobs.parquet"),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, SCHEDLAB_PYTHON=sys.executable),
    )


def test_notes_reach_the_jobs_file(tmp_path: Path) -> None:
    pq = need("pyarrow.parquet")
    r = sim(tmp_path, NOTER)
    assert r.returncode == 0, r.stderr
    t = pq.read_table(tmp_path / "jobs.parquet").to_pylist()
    starts = {row["job_id"]: row["start"] for row in t}
    assert starts == {1: 0, 2: 100, 3: 150, 4: 180}
    got = {row["job_id"]: (row["policy_queue_ahead"], row["policy_wait_from"], row["policy_wait_reason"]) for row in t}
    # By hand: 2 is the head from 10; 3 waits behind 2 from 20, and is
    # the head from 100, when 2 starts; 4 is behind 3 from 30 until 3
    # starts at 150, then the head until 3 ends at 180.
    assert got == {
        1: (0.0, [], []),
        2: (0.0, [10], ["Resources"]),
        3: (1.0, [20, 100], ["Priority", "Resources"]),
        4: (2.0, [30, 150], ["Priority", "Resources"]),
    }


def test_bad_notes_fail_the_run(tmp_path: Path) -> None:
    r = sim(tmp_path, NOTER.replace('"queue_ahead"', '"Queue Ahead"'))
    assert r.returncode != 0
    assert 'policy notes: column 0: name "Queue Ahead"' in r.stderr, r.stderr
    assert not (tmp_path / "jobs.parquet").exists()


def test_a_failure_in_notes_fails_the_run(tmp_path: Path) -> None:
    r = sim(tmp_path, NOTER.replace("n = max(self.ahead", "raise KeyError('lost')\n        n = max(self.ahead"))
    assert r.returncode != 0
    assert "raised KeyError in notes" in r.stderr, r.stderr
    assert not (tmp_path / "jobs.parquet").exists()


def test_encoding_by_hand() -> None:
    # Two jobs, a column x, job 1 waiting for Resources from 7.
    b = encode_notes(Notes({"x": [2.5]}, [[], [WaitSpell(7, "Resources")]]))
    want = struct.pack("<II", 2, 1) + b"\x01x" + struct.pack("<dd", 2.5, math.nan)
    want += b"\x01" + struct.pack("<IH", 1, 9) + b"Resources" + struct.pack("<IIqI", 0, 1, 7, 0)
    assert b == want
    assert encode_notes(None) == b""
    assert encode_notes(Notes()) == b""
    assert encode_notes(Notes({"y": []})) == struct.pack("<II", 0, 1) + b"\x01y\x00"

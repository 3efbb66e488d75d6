"""The learned example: the trained scorer as a schedlab policy gives, on a
held-out window, the starts the environment's greedy agent got."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from schedlab import policytest  # noqa: E402
from schedlab._service import find_schedlab  # noqa: E402
from schedlab.gym import SchedulingEnv  # noqa: E402

LEARNED = Path(__file__).resolve().parent.parent / "examples" / "learned"


@pytest.mark.parametrize("first", [20000, 24000])
def test_policy_is_the_agent(host: policytest.Host, first: int) -> None:
    sys.path.insert(0, str(LEARNED))
    try:
        from learned import QUEUE, pick
    finally:
        sys.path.remove(str(LEARNED))
    w = np.array(json.loads((LEARNED / "weights.json").read_text())["weights"])
    env = SchedulingEnv(window=256)
    try:
        obs, _ = env.reset(seed=1, options={"first": first})
        term = False
        info: dict[str, object] = {}
        while not term:
            k = int(obs[:QUEUE, 5].sum())
            obs, _, term, _, info = env.step(pick(obs[:k, :5], w))
    finally:
        env.close()
    run = host.run_trace(LEARNED / "learned.py", first, 256)
    assert list(run.starts().values()) == info["starts"]


def test_eval_reruns(host: policytest.Host) -> None:
    """eval.json, which docs/learned-scheduler.md quotes, is what the
    committed policy and weights, FCFS and EASY give on its 20 held-out
    windows; heldout.toml names the same windows by their job ids."""
    ev = json.loads((LEARNED / "eval.json").read_text())
    manifest = (LEARNED / "heldout.toml").read_text()
    assert len(ev["firsts"]) == len(ev["ids"]) == 20
    for k, first in enumerate(ev["firsts"]):
        a, b = ev["ids"][k]
        assert f'job_ids = "{a}-{b}"' in manifest
        for name, ref in (("learned", LEARNED / "learned.py"), ("fcfs", "fcfs"), ("easy", "easy")):
            run = host.run_trace(ref, first, 256)
            assert run.summary["mean_bsld"] == pytest.approx(ev[name][k], rel=1e-12), (name, first)


def test_heldout_manifest_expands() -> None:
    import subprocess

    try:
        cmd = find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    env = dict(os.environ, SCHEDLAB_PYTHON=sys.executable)
    r = subprocess.run([cmd, "expand", "heldout.toml"], cwd=LEARNED, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines()[1:] if line.strip()]
    assert [row[2] for row in rows].count("learned") == 20

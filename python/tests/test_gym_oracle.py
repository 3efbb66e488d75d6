"""SchedulingEnv, whose steps the serve-env process takes, against the
environment as written in Python (env_oracle.OracleEnv), which takes them
here from the engine's State frames with this package's own placement:
with one seed and one sequence of actions, the two must show the same
observations and action masks, end their episodes at the same steps with
the same rewards, and start every job at the same time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from env_oracle import OracleEnv

from schedlab.gym import SchedulingEnv

SHARED = {"nodes": 25, "cores_per_node": 4, "allocation": "shared"}
EXCLUSIVE = {"nodes": 100, "cores_per_node": 1}
FAILURES = {"failure_model": "exponential", "mtbf": "2d", "mttr": "6h", "on_failure": "requeue"}
POWER = {"off": "9.75", "idle": "95", "full": "190"}

WINDOWS = {"windows": ["2h,3h,10h"], "maintenance": "soft"}
MEMORY = {"nodes": 16, "cores_per_node": 8, "memory_per_node": "16GiB", "allocation": "shared", "memory": "requested"}

CASES: list[tuple[str, dict[str, Any]]] = [
    ("pool", {}),
    ("pool backfill", {"backfill": True}),
    ("pool fits mask", {"mask": "fits", "reward": "wait"}),
    ("pool exact", {"backfill": True, "exact": True}),
    ("shared nodes", {"nodes": SHARED}),
    ("shared nodes backfill", {"nodes": SHARED, "backfill": True, "mask": "fits"}),
    ("shared nodes batsched", {"nodes": SHARED, "backfill": True, "reservation": "batsched"}),
    ("exclusive nodes backfill", {"nodes": EXCLUSIVE, "backfill": True, "observe_nodes": True}),
    ("failures requeued", {"nodes": SHARED, "outages": FAILURES, "backfill": True, "observe_nodes": True}),
    ("failures killed", {"nodes": SHARED, "outages": dict(FAILURES, on_failure="kill"), "mask": "fits"}),
    ("power", {"nodes": SHARED, "power": POWER, "reward": "energy", "backfill": True}),
    ("windows", {"nodes": SHARED, "outages": WINDOWS, "observe_nodes": True, "backfill": True}),
    ("windows batsched", {"nodes": SHARED, "outages": dict(WINDOWS, **FAILURES), "reservation": "batsched"}),
    ("contiguous", {"nodes": dict(SHARED, placement="contiguous"), "backfill": True, "mask": "fits"}),
    ("best-fit exact", {"nodes": dict(EXCLUSIVE, placement="best-fit"), "backfill": True, "exact": True}),
    ("memory", {"trace": "MEMORY", "nodes": MEMORY, "backfill": True, "mask": "fits", "observe_nodes": True}),
    ("memory batsched", {"trace": "MEMORY", "nodes": MEMORY, "backfill": True, "reservation": "batsched"}),
]


def memory_trace(path: Path) -> str:
    """A made-up SWF log whose jobs ask for memory per processor (field 10,
    half a GiB to 4 GiB) and whose users include -1 and ids past 255."""
    rng = random.Random(3)
    lines = ["; MaxProcs: 128"]
    t = 0
    for i in range(1, 401):
        t += rng.randint(0, 600)
        procs = rng.choice([1, 1, 2, 4, 8, 8, 16, 32])
        run = rng.randint(10, 20000)
        mem = rng.choice([524288, 1048576, 2097152, 4194304])
        user = rng.choice([-1, 0, 3, 255, 256, 300])
        lines.append(
            f"{i} {t} 0 {run} {procs} -1 -1 {procs} {run + rng.randint(0, 20000)} {mem} 1 {user} 1 1 1 1 -1 -1"
        )
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("name,settings", CASES, ids=[c[0] for c in CASES])
def test_same_as_the_oracle(schedlab_cmd: str, name: str, settings: dict[str, Any], tmp_path: Path) -> None:
    if settings.get("trace") == "MEMORY":
        settings = dict(settings, trace=memory_trace(tmp_path / "memory.swf"))
    env = SchedulingEnv(window=96, queue=16, schedlab=schedlab_cmd, **settings)
    oracle = OracleEnv(window=96, queue=16, schedlab=schedlab_cmd, **settings)
    rng = np.random.default_rng(7)
    try:
        for seed in (1, 2, 3):
            obs, info = env.reset(seed=seed)
            want, winfo = oracle.reset(seed=seed)
            assert info["first_job"] == winfo["first_job"]
            steps = 0
            while True:
                assert np.array_equal(obs, want), f"{name}, seed {seed}, step {steps}: the observations differ"
                mask = env.action_masks()
                assert np.array_equal(mask, oracle.action_masks()), f"{name}, seed {seed}, step {steps}: masks"
                assert info["calls"] == winfo["calls"], f"{name}, seed {seed}, step {steps}: calls"
                # Half the time an allowed action, else any: waiting, rows
                # past the waiting jobs, and actions that are no row's.
                allowed = np.flatnonzero(mask)
                u = rng.random()
                if len(allowed) and u < 0.5:
                    a = int(rng.choice(allowed))
                elif u < 0.9:
                    a = int(rng.integers(0, 17))
                else:
                    a = int(rng.choice([-1, -5, 17, 40, 2**31 - 1, -(2**31)]))
                obs, reward, done, _, info = env.step(a)
                want, wreward, wdone, _, winfo = oracle.step(a)
                steps += 1
                assert done == wdone, f"{name}, seed {seed}, step {steps}: one episode ended, not the other"
                if done:
                    assert reward == wreward
                    assert info["starts"] == winfo["starts"], f"{name}, seed {seed}: the starts differ"
                    assert info["calls"] == winfo["calls"]
                    break
            assert steps > 10, f"{name}, seed {seed}: {steps} steps test too little"
    finally:
        env.close()
        oracle.close()

"""SchedulingEnv, whose steps the serve-env process takes, against the
environment as written in Python (env_oracle.OracleEnv), which takes them
here from the engine's State frames with this package's own placement:
with one seed and one sequence of actions, the two must show the same
observations and action masks, end their episodes at the same steps with
the same rewards, and start every job at the same time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from env_oracle import OracleEnv

from schedlab.gym import SchedulingEnv, find_schedlab


@pytest.fixture(scope="module")
def schedlab_cmd() -> str:
    try:
        return find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))


SHARED = {"nodes": 25, "cores_per_node": 4, "allocation": "shared"}
EXCLUSIVE = {"nodes": 100, "cores_per_node": 1}
FAILURES = {"failure_model": "exponential", "mtbf": "2d", "mttr": "6h", "on_failure": "requeue"}
POWER = {"off": "9.75", "idle": "95", "full": "190"}

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
]


@pytest.mark.parametrize("name,settings", CASES, ids=[c[0] for c in CASES])
def test_same_as_the_oracle(schedlab_cmd: str, name: str, settings: dict[str, Any]) -> None:
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
                # Half the time an allowed action, else any: waiting, and
                # rows past the waiting jobs, too.
                allowed = np.flatnonzero(mask)
                a = int(rng.choice(allowed)) if len(allowed) and rng.random() < 0.5 else int(rng.integers(0, 17))
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

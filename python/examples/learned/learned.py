"""A learned scheduler as a schedlab policy: it scores each of the first
64 waiting jobs with a linear function of the features the Gymnasium
environment shows (schedlab.gym), weights from weights.json (train.py
writes them), and starts the best-scored job; one that does not fit is
started as soon as it fits, nothing else starting meanwhile. That is the
environment's rule, so a campaign runs the agent exactly as it was trained
and evaluated (python/tests/test_learned.py checks it start for start)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import schedlab

QUEUE = 64
WAIT_SCALE = 12 * 3600
WALLTIME_SCALE = 24 * 3600


def features(jobs: Sequence[schedlab.Job], now: int, free: int, cap: int) -> np.ndarray:
    """The environment's observation rows of jobs (at most QUEUE): wait so
    far, walltime, processors, fits now, user; as float32, as it shows
    them."""
    rows = np.zeros((len(jobs), 5), dtype=np.float32)
    if jobs:
        static = np.array(
            [
                (
                    j.submit,
                    min(1.0, j.walltime / WALLTIME_SCALE),
                    min(1.0, j.request[0] / cap),
                    j.request[0],
                    (j.user % 256) / 255.0,
                )
                for j in jobs
            ],
            dtype=np.float64,
        )
        rows[:, 0] = np.minimum(1.0, (now - static[:, 0]) / WAIT_SCALE)
        rows[:, 1:3] = static[:, 1:3]
        rows[:, 3] = static[:, 3] <= free
        rows[:, 4] = static[:, 4]
    return rows


def pick(rows: np.ndarray, weights: np.ndarray) -> int:
    """The best-scored row (the first of equals)."""
    return int(np.argmax(rows.astype(np.float64) @ weights))


class Learned(schedlab.Policy):
    name = "learned"
    version = "0.1.0"
    description = "a linear scorer of waiting jobs trained with schedlab.gym (examples/learned/train.py)"
    files = ("weights.json",)

    def init(self, env: schedlab.Env) -> None:
        p = env.platform
        if len(p.clusters) != 1 or p.has_nodes:
            raise ValueError("learned schedules one pool of processors")
        doc = json.loads((Path(__file__).parent / "weights.json").read_text())
        self.weights = np.array(doc["weights"], dtype=np.float64)
        self.cap = p.clusters[0].capacity[0]
        self.reserved: schedlab.Job | None = None

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        free = state.free[0][0]
        out: list[schedlab.Decision] = []
        waiting = list(state.queue)
        r = self.reserved
        if r is not None:
            if r.request[0] > free:
                return out
            self.reserved = None
            free -= r.request[0]
            waiting.remove(r)
            out.append(schedlab.start(r))
        while waiting:
            rows = waiting[:QUEUE]
            job = rows[pick(features(rows, state.now, free, self.cap), self.weights)]
            if job.request[0] > free:
                self.reserved = job
                break
            free -= job.request[0]
            waiting.remove(job)
            out.append(schedlab.start(job))
        return out


if __name__ == "__main__":
    schedlab.serve(Learned)

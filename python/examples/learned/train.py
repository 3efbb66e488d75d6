"""Trains the linear job scorer of learned.py on windows of KTH-SP2 with
schedlab's Gymnasium environment (REINFORCE with FCFS on the same window as
the baseline), then evaluates it, greedily, on held-out windows against
FCFS and EASY, and writes weights.json and eval.json.

    python train.py [--iterations 40] [--seed 1]

Training windows start among jobs 0 to 19,999 of the cleaned log, the
held-out ones among jobs 20,000 to 28,466: the agent is judged on
windows it never saw."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from learned import QUEUE, pick

from schedlab.gym import SchedulingEnv

WINDOW = 256
TRAIN = (0, 20000)
HELD_OUT = (20000, 28467)


def rows_of(obs: np.ndarray) -> np.ndarray:
    """The feature rows of the waiting jobs an observation shows."""
    k = int(obs[:QUEUE, 5].sum())
    return obs[:k, :5]


Step = tuple[np.ndarray, int, np.ndarray]


def episode(
    env: SchedulingEnv, w: np.ndarray, rng: np.random.Generator | None, **reset: Any
) -> tuple[list[Step], float, dict[str, Any]]:
    """One episode: sampled from the softmax of scores when rng is given,
    else greedy. Returns the (rows, pick) of each step, the reward and the
    final info."""
    obs, info = env.reset(**reset)
    steps: list[Step] = []
    while True:
        x = rows_of(obs).astype(np.float64)
        if rng is None:
            a = pick(x, w)
        else:
            z = x @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            a = int(rng.choice(len(p), p=p))
            steps.append((x, a, p))
        obs, reward, term, _, info = env.step(a)
        if term:
            return steps, float(reward), info


def train(iterations: int, seed: int, batch: int = 16, lr: float = 0.3) -> np.ndarray:
    env = SchedulingEnv(window=WINDOW, jobs=TRAIN)
    rng = np.random.default_rng(seed)
    w = np.zeros(5)
    k = 0
    for it in range(iterations):
        runs = []
        for _ in range(batch):
            steps, reward, info = episode(env, w, rng, seed=seed * 100003 + k)
            k += 1
            base = -env.baseline("fcfs")["summary"]["mean_bsld"]
            # The return: how much better than FCFS on the same window,
            # relative to it (windows differ by orders of magnitude), at
            # most 1 either way.
            runs.append((steps, float(np.clip((reward - base) / abs(base), -1.0, 1.0))))
        mean = float(np.mean([r for _, r in runs]))
        grad = np.zeros(5)
        for steps, ret in runs:
            adv = ret - mean  # the batch's mean as the baseline
            for x, a, p in steps:
                grad += adv * (x[a] - p @ x)
        w += lr * grad / batch
        print(f"iteration {it + 1}: mean return over FCFS {mean:+.3f}, weights {np.round(w, 3).tolist()}")
    env.close()
    return w


def evaluate(w: np.ndarray, windows: int = 20) -> dict[str, Any]:
    """Greedy agent, FCFS and EASY on held-out windows: each window's mean
    bounded slowdown."""
    env = SchedulingEnv(window=WINDOW, jobs=HELD_OUT)
    firsts = np.linspace(HELD_OUT[0], HELD_OUT[1] - WINDOW, windows).astype(int).tolist()
    out: dict[str, Any] = {"firsts": firsts, "ids": [], "learned": [], "fcfs": [], "easy": []}
    for first in firsts:
        _, reward, _ = episode(env, w, None, seed=1, options={"first": first})
        out["learned"].append(-reward)
        for pol in ("fcfs", "easy"):
            doc = env.baseline(pol)
            out[pol].append(doc["summary"]["mean_bsld"])
        out["ids"].append([doc["ids"][0], doc["ids"][-1]])
    env.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    here = Path(__file__).parent
    w = train(args.iterations, args.seed)
    (here / "weights.json").write_text(
        json.dumps(
            {
                "weights": w.tolist(),
                "features": ["wait", "walltime", "procs", "fits", "user"],
                "seed": args.seed,
                "iterations": args.iterations,
            },
            indent=1,
        )
        + "\n"
    )
    ev = evaluate(w)
    (here / "eval.json").write_text(json.dumps(ev, indent=1) + "\n")
    for pol in ("learned", "fcfs", "easy"):
        print(f"{pol:8s} mean bsld over {len(ev['firsts'])} held-out windows: {np.mean(ev[pol]):.2f}")
    (here / "heldout.toml").write_text(manifest(ev["ids"]))


def manifest(ids: list[list[int]]) -> str:
    """The campaign of the held-out windows (their job ids in the log):
    the learned policy, FCFS and EASY, for schedlab compare."""
    out = [
        "# The learned policy beside FCFS and EASY on the held-out windows of KTH-SP2",
        "# (written by train.py; docs/learned-scheduler.md):",
        "#",
        "#   schedlab run heldout.toml && schedlab compare out/heldout --baseline policy=easy",
        "",
        "[campaign]",
        'name = "heldout"',
        "seed = 1",
        'out = "out/heldout"',
        "",
    ]
    names = []
    for k, (a, b) in enumerate(ids):
        names.append(f"w{k:02d}")
        out += [
            f"[workloads.w{k:02d}]",
            'trace = "../../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz"',
            'sha256 = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"',
            f'clean = {{ job_ids = "{a}-{b}" }}',
            "",
        ]
    out += ["[policies.learned]", 'ref = "./learned.py"', "", "[policies.fcfs]", 'ref = "fcfs"', ""]
    out += ["[policies.easy]", 'ref = "easy"', "", "[matrix]", f"workload = {json.dumps(names)}"]
    out += ['policy = ["learned", "fcfs", "easy"]', ""]
    return "\n".join(out)


if __name__ == "__main__":
    main()

"""Steps per second of schedlab's Gymnasium environment with a random
agent, and, side by side in the same process, of RLScheduler's SchedGym
(HPCSimPickJobs.HPCEnv) on the same trace when its sources are given.

    python benchmarks/env_speed.py [--rlscheduler DIR] [--trace FILE] [--steps N]

DIR is a checkout of github.com/DIR-LAB/deep-batch-scheduler. SchedGym
imports TensorFlow 1 and the gym of 2019 at module level, neither of which
installs on today's Python; this program stands in for both with the few
names the environment itself uses (gym.Env, spaces, seeding.np_random as
a RandomState), so that its simulation runs unchanged. The trace defaults
to its Lublin-256 workload (DIR/data/lublin_256.swf), which schedlab's
environment reads too; both use episodes of 256 jobs and a queue of 128.
Each side runs the same number of steps, alternately, three times; the
medians are printed. For schedlab's, the CPU time a step takes on each of
its two sides is printed too: the Python process's (the environment and
its end of the socket) and the engine's (schedlab serve-env), measured
apart; on one core they add up to the wall time, on two they overlap in
part. `taskset -c 0 python benchmarks/env_speed.py` runs both processes on
one core."""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np


def _children_cpu() -> float:
    """CPU seconds of the child processes that ended, user and system."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def schedlab_steps(trace: str, steps: int, seed: int) -> tuple[float, float, float]:
    """Steps per second of schedlab's environment, and the CPU seconds a
    step takes on each side: in this process (the environment's Python and
    its end of the socket) and in the engine's (schedlab serve-env, its
    CPU time once it has ended less that of a process that took no step)."""
    from schedlab.gym import SchedulingEnv

    def session(n: int) -> tuple[float, float, float]:
        before = _children_cpu()
        env = SchedulingEnv(trace=trace, window=256, queue=128)
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        cpu = time.process_time()
        t = time.perf_counter()
        for _ in range(n):
            _, _, term, _, _ = env.step(int(rng.integers(0, 129)))
            if term:
                env.reset()
        wall = time.perf_counter() - t
        cpu = time.process_time() - cpu
        env.close()
        return wall, cpu, _children_cpu() - before

    _, _, idle = session(0)
    wall, python, engine = session(steps)
    return steps / wall, python / steps, max(0.0, engine - idle) / steps


def shim_modules() -> None:
    """Stand-ins for tensorflow (unused by the environment) and the old gym."""
    import gymnasium

    sys.modules.setdefault("tensorflow", types.ModuleType("tensorflow"))
    sys.modules.setdefault("scipy.signal", types.ModuleType("scipy.signal"))
    if "scipy" not in sys.modules:
        sys.modules["scipy"] = types.ModuleType("scipy")
    gym = types.ModuleType("gym")
    spaces = types.ModuleType("gym.spaces")
    spaces.Box = gymnasium.spaces.Box  # type: ignore[attr-defined]
    spaces.Discrete = gymnasium.spaces.Discrete  # type: ignore[attr-defined]
    utils = types.ModuleType("gym.utils")
    seeding = types.ModuleType("gym.utils.seeding")

    def np_random(seed: int | None = None) -> tuple[Any, int | None]:
        return np.random.RandomState(seed), seed

    seeding.np_random = np_random  # type: ignore[attr-defined]
    utils.seeding = seeding  # type: ignore[attr-defined]

    class Env:
        pass

    gym.Env = Env  # type: ignore[attr-defined]
    gym.spaces = spaces  # type: ignore[attr-defined]
    gym.utils = utils  # type: ignore[attr-defined]
    sys.modules.update({"gym": gym, "gym.spaces": spaces, "gym.utils": utils, "gym.utils.seeding": seeding})


def schedgym_steps(rls: Path, trace: str, steps: int, seed: int) -> float:
    shim_modules()
    sys.path.insert(0, str(rls))
    import HPCSimPickJobs  # type: ignore[import-not-found]

    env = HPCSimPickJobs.HPCEnv(batch_job_slice=0, build_sjf=False)
    env.seed(seed)
    devnull = open(os.devnull, "w")
    out, sys.stdout = sys.stdout, devnull
    try:
        env.my_init(workload_file=trace, sched_file=trace)
        rng = np.random.default_rng(seed)
        env.reset()
        t = time.perf_counter()
        for _ in range(steps):
            r = env.step(int(rng.integers(0, HPCSimPickJobs.MAX_QUEUE_SIZE)))
            if r[2]:
                env.reset()
        rate = steps / (time.perf_counter() - t)
    finally:
        sys.stdout = out
        devnull.close()
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rlscheduler", type=Path)
    ap.add_argument("--trace", default="")
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    trace = args.trace
    if not trace and args.rlscheduler:
        trace = str(args.rlscheduler / "data" / "lublin_256.swf")
    ours: list[tuple[float, float, float]] = []
    theirs: list[float] = []
    for _ in range(3):
        ours.append(schedlab_steps(trace, args.steps, args.seed))
        if args.rlscheduler:
            theirs.append(schedgym_steps(args.rlscheduler, trace, args.steps, args.seed))
    print(f"trace {trace or 'KTH-SP2 (shipped)'}, {args.steps} random steps a round, 3 rounds")
    rates = [r for r, _, _ in ours]
    print(
        f"{'schedlab.gym':21s} {statistics.median(rates):7.0f} steps/s (rounds {', '.join(f'{x:.0f}' for x in rates)})"
    )
    for name, k in (("  Python side", 1), ("  engine side", 2)):
        us = [r[k] * 1e6 for r in ours]
        mid = statistics.median(us)
        each = ", ".join(f"{x:.1f}" for x in us)
        print(f"{name:21s} {mid:7.1f} us of CPU a step, {1e6 / mid:7.0f} steps/s alone (rounds {each})")
    if theirs:
        each = ", ".join(f"{x:.0f}" for x in theirs)
        print(f"{'RLScheduler SchedGym':21s} {statistics.median(theirs):7.0f} steps/s (rounds {each})")


if __name__ == "__main__":
    main()

"""Run RLScheduler's artefact's own heuristic scheduler on a trace, as its
compare-make-table.py does for the README's tables (--seed 1 --len 1024
--iter 10, batch_job_slice 10000), and print each function's mean bounded
slowdown over the 10 sequences, without and with its backfilling.

    python3 experiments/priorities/run_artefact.py ARTEFACT TRACE.swf[.gz] [--cap] [--sequences]

ARTEFACT is a checkout of github.com/DIR-LAB/deep-batch-scheduler (commit
cd433e3); this imports its HPCSimPickJobs.py, job.py and cluster.py, and
needs numpy only: tensorflow, scipy and gym, which the heuristics do not use,
are stubbed, and gym's seeding.np_random is that of the gym its
requirements.txt names. --cap runs every job for at most its requested time,
as schedlab kills it there; --sequences prints each sequence's mean too.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import sys
import tempfile
import types

import numpy as np


def _np_random(seed: int) -> tuple[np.random.RandomState, int]:
    # gym's create_seed, hash_seed, _bigint_from_bytes, _int_list_from_bigint
    big = int.from_bytes(hashlib.sha512(str(seed % 2**64).encode("utf8")).digest()[:8], "little")
    words = []
    while big > 0:
        big, word = divmod(big, 2**32)
        words.append(word)
    rng = np.random.RandomState()
    rng.seed(words or [0])
    return rng, seed


def _stub() -> None:
    class _Any:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

    gym = types.ModuleType("gym")
    gym.Env = object  # type: ignore[attr-defined]
    spaces = types.ModuleType("gym.spaces")
    spaces.Box = spaces.Discrete = _Any  # type: ignore[attr-defined]
    utils = types.ModuleType("gym.utils")
    seeding = types.ModuleType("gym.utils.seeding")
    seeding.np_random = _np_random  # type: ignore[attr-defined]
    scipy = types.ModuleType("scipy")
    for name, mod in {
        "tensorflow": types.ModuleType("tensorflow"),
        "scipy": scipy,
        "scipy.signal": types.ModuleType("scipy.signal"),
        "gym": gym,
        "gym.spaces": spaces,
        "gym.utils": utils,
        "gym.utils.seeding": seeding,
    }.items():
        sys.modules[name] = mod


def main() -> None:
    artefact, trace = sys.argv[1], sys.argv[2]
    cap, each = "--cap" in sys.argv[3:], "--sequences" in sys.argv[3:]
    _stub()
    sys.path.insert(0, artefact)
    from HPCSimPickJobs import HPCEnv  # type: ignore[import-not-found]

    with tempfile.TemporaryDirectory() as tmp:
        if trace.endswith(".gz"):
            plain = os.path.join(tmp, "trace.swf")
            with gzip.open(trace, "rb") as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
            trace = plain
        for backfill in (0, 1):
            env = HPCEnv(backfil=backfill, job_score_type=0, batch_job_slice=10000)
            env.my_init(workload_file=trace)
            if cap:
                for j in env.loads.all_jobs:
                    j.run_time = min(j.run_time, j.request_time)
            env.seed(1)
            scores = {"FCFS": env.fcfs_score, "WFP3": env.wfp_score, "UNI": env.uni_score}
            scores |= {"SJF": env.sjf_score, "F1": env.f1_score}
            sums: dict[str, list[float]] = {k: [] for k in scores}
            starts = []
            for i in range(10):
                env.reset_for_test(1024, i * 1024)
                starts.append(env.start)
                for k, f in scores.items():
                    sums[k].append(sum(env.schedule_curr_sequence_reset(f).values()))
            print("backfilling" if backfill else "no backfilling", "starts", *starts)
            print(" ", "  ".join(f"{k} {np.mean(v):.2f}" for k, v in sums.items()))
            if each:
                for k, v in sums.items():
                    print("   ", k, *(f"{x:.3f}" for x in v))


if __name__ == "__main__":
    main()

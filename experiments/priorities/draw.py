"""The sequences of campaign.toml: the job-number ranges of the 10 sequences
of 1,024 jobs that RLScheduler's artefact draws from a trace for its tables.

    python3 experiments/priorities/draw.py TRACE.swf.gz ...

needs numpy (its legacy RandomState, the generator the artefact's gym
seeds). The artefact (github.com/DIR-LAB/deep-batch-scheduler, commit
cd433e3): make_table_script.py runs compare-make-table.py with --seed 1
--len 1024 --iter 10 and batch_job_slice 10000 for SDSC-SP2 and HPC2N;
compare-make-table.py calls env.seed(1), and each of the 10 iterations
reset_for_test, which draws the first job's index with
np_random.randint(1024, 10000 - 1024 - 1) and takes it and the 1,023 jobs
after it. gym's seeding.np_random(1) (the gym of the artefact's
requirements.txt) seeds a RandomState with the sha512 of "1", its first 8
bytes read as a little-endian integer, split into 32-bit words. The index
counts the jobs the artefact keeps: a runtime of -1 becomes 10 s, and jobs
whose runtime is then not positive are left out.
"""

from __future__ import annotations

import gzip
import hashlib
import sys

import numpy as np

LENGTH, ITERATIONS, SLICE, SEED = 1024, 10, 10000, 1


def starts() -> list[int]:
    digest = hashlib.sha512(str(SEED).encode("utf8")).digest()[:8]
    big = int.from_bytes(digest, "little")
    words = []
    while big > 0:
        big, word = divmod(big, 2**32)
        words.append(word)
    rng = np.random.RandomState()
    rng.seed(words)
    return [int(rng.randint(LENGTH, SLICE - LENGTH - 1)) for _ in range(ITERATIONS)]


def job_numbers(path: str) -> list[int]:
    out = []
    with gzip.open(path, "rt") as f:
        for line in f:
            fields = line.split()
            if not fields or line.startswith(";"):
                continue
            runtime = int(fields[3])
            if runtime < 0:
                runtime = 10
            if runtime > 0:
                out.append(int(fields[0]))
    return out


def main() -> None:
    first = starts()
    print("start indices:", " ".join(str(s) for s in first))
    for path in sys.argv[1:]:
        ids = job_numbers(path)
        print(path, " ".join(f"{ids[s]}-{ids[s + LENGTH - 1]}" for s in first))


if __name__ == "__main__":
    main()

"""The heuristic scheduler of RLScheduler's artefact, in Python.

github.com/DIR-LAB/deep-batch-scheduler (commit cd433e3), HPCSimPickJobs.py:
schedule_curr_sequence_reset with skip_for_resources_greedy (no backfilling)
or moveforward_for_resources_backfill_greedy (backfilling), which its
compare-make-table.py runs for the README's tables. docs/priorities.md says
what this copies and why.

- The queue is sorted by the order's key, lowest first, and its first job is
  the head. The head stays the head until it starts, whatever arrives.
- Without backfilling nothing else starts while the head does not fit.
- With backfilling, when the head does not fit, its shadow time is taken
  once: the expected end (start + walltime) of the running jobs, by expected
  end, at which the free processors first reach the head's. Until the head
  starts, jobs of the queue, in submit order, start when they fit now and
  now + walltime is before that shadow time (no extra processors).
- The keys are the artefact's score functions on the requested walltime r,
  the processors n and the submit time s. Its wfp_score and uni_score take
  the wait as scheduled_time - submit_time, and a waiting job's
  scheduled_time is -1, so the wait they use is -1 - s: wait = "coded" does
  the same, wait = "now" uses now - s, the formula as written.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import schedlab

Key = Callable[[schedlab.Job, int], tuple[float, ...]]


def _wait(job: schedlab.Job, now: int, coded: bool) -> float:
    return float(-1 - job.submit) if coded else float(now - job.submit)


def _keys(coded: bool) -> dict[str, Key]:
    def wfp3(j: schedlab.Job, now: int) -> tuple[float, ...]:
        return (-((_wait(j, now, coded) / j.walltime) ** 3) * j.request[0], j.index)

    def unicep(j: schedlab.Job, now: int) -> tuple[float, ...]:
        n = j.request[0]
        return (-(_wait(j, now, coded) + 1e-15) / (math.log2(n + 1e-15) * j.walltime), j.index)

    def f1(j: schedlab.Job, now: int) -> tuple[float, ...]:
        r, s = j.walltime, j.submit
        return (math.log10(r if r > 0 else 0.1) * j.request[0] + 870 * math.log10(s if s > 0 else 0.1), j.index)

    return {
        "submit": lambda j, now: (j.submit, j.index),
        "shortest": lambda j, now: (j.walltime, j.submit, j.index),
        "wfp3": wfp3,
        "unicep": unicep,
        "f1": f1,
    }


class Artefact(schedlab.Policy):
    name = "rlscheduler-heuristic"
    version = "0.1.0"
    description = "the heuristic scheduler of RLScheduler's artefact (DIR-LAB/deep-batch-scheduler cd433e3)"
    params = (
        schedlab.Param(
            "order",
            "string",
            "submit",
            doc="the artefact's score",
            choices=("submit", "shortest", "wfp3", "unicep", "f1"),
        ),
        schedlab.Param("backfill", "bool", "false", doc="the artefact's backfilling"),
        schedlab.Param(
            "wait", "string", "coded", doc="wfp3 and unicep: coded (-1 - s) or now (now - s)", choices=("coded", "now")
        ),
    )

    def init(self, env: schedlab.Env) -> None:
        self.key = _keys(env.params["wait"] == "coded")[env.params["order"]]
        self.backfill = bool(env.params["backfill"])
        self.head: int | None = None
        self.shadow: int | None = None

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        now = state.now
        free = state.free[0][0]
        waiting = {j.index: j for j in state.queue}
        ends = [(r.expected_end, r.job.request[0]) for r in state.running]
        out: list[schedlab.Decision] = []

        def start(j: schedlab.Job) -> None:
            nonlocal free
            out.append(schedlab.start(j))
            free -= j.request[0]
            ends.append((now + j.walltime, j.request[0]))
            del waiting[j.index]

        while waiting:
            if self.head not in waiting:
                self.head = min(waiting.values(), key=lambda j: self.key(j, now)).index
                self.shadow = None
            head = waiting[self.head]
            if head.request[0] <= free:
                start(head)
                self.head = None
                continue
            if self.backfill:
                if self.shadow is None:
                    avail, self.shadow = free, now
                    for end, n in sorted(ends, key=lambda e: e[0]):
                        avail += n
                        self.shadow = end
                        if avail >= head.request[0]:
                            break
                for j in sorted(waiting.values(), key=lambda j: (j.submit, j.index)):
                    if j.index != self.head and now + j.walltime < self.shadow and j.request[0] <= free:
                        start(j)
            break
        return out


if __name__ == "__main__":
    schedlab.serve(Artefact)

"""First come, first served, in Python: jobs start in queue order while they
fit; the first that does not fit blocks all behind it. It gives the records
of schedlab's Go fcfs on a pool (python/tests/test_equivalence.py)."""

from __future__ import annotations

from collections.abc import Sequence

import schedlab


class FCFS(schedlab.Policy):
    name = "fcfs-py"
    version = "0.1.0"
    description = "start jobs in queue order while they fit; no backfilling (a pool of one cluster)"

    def init(self, env: schedlab.Env) -> None:
        p = env.platform
        if len(p.clusters) != 1 or p.has_nodes or p.clusters[0].units:
            raise ValueError(f"fcfs-py schedules one pool; platform {p.name!r} is not one")

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        free = list(state.free[0])
        out = []
        for job in state.queue:
            req = job.request
            if any(r > f for r, f in zip(req, free, strict=True)):
                break
            for k, r in enumerate(req):
                free[k] -= r
            out.append(schedlab.start(job))
        return out


if __name__ == "__main__":
    schedlab.serve(FCFS)

"""EASY backfilling in Python (Lifka 1995; Mu'alem and Feitelson 2001), as
schedlab's Go easy schedules a pool: jobs start in queue order while they
fit; the first that does not (the head) gets a reservation at the shadow
time, the earliest expected end at which it fits, every release at that
time counted; later jobs are backfilled when they fit now and either end by
the shadow time or need no more than the extra capacity (what is free then
beyond the head's request), which they consume. It gives the records of
the Go easy on a pool (runner/python_test.go, TestPythonEqualsGo)."""

from __future__ import annotations

from collections.abc import Sequence
from heapq import merge

import schedlab

ORDERS = ("submit", "shortest", "smallest", "largest")


class EASY(schedlab.Policy):
    name = "easy-py"
    version = "0.1.0"
    description = "EASY backfilling: one reservation, for the first job in queue order that does not fit (a pool)"
    params = (
        schedlab.Param(
            "order",
            "string",
            "submit",
            doc="queue order: submit, shortest (requested walltime), smallest or largest (processors); "
            "ties by submit order",
            choices=ORDERS,
        ),
    )

    def init(self, env: schedlab.Env) -> None:
        p = env.platform
        if len(p.clusters) != 1 or p.has_nodes or p.clusters[0].units:
            raise ValueError(f"easy-py schedules one pool; platform {p.name!r} is not one")
        self.order = str(env.params["order"])

    def sorted_queue(self, queue: list[schedlab.Job]) -> list[schedlab.Job]:
        if self.order == "shortest":
            return sorted(queue, key=lambda j: (j.walltime, j.index))
        if self.order == "smallest":
            return sorted(queue, key=lambda j: (j.request[0], j.index))
        if self.order == "largest":
            return sorted(queue, key=lambda j: (-j.request[0], j.index))
        return queue

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        q = self.sorted_queue(state.queue)
        now = state.now
        free = list(state.free[0])
        dims = len(free)
        out: list[schedlab.Decision] = []
        started: list[tuple[int, int, tuple[int, ...]]] = []  # (expected end, index, request)

        def fits(req: tuple[int, ...], avail: list[int]) -> bool:
            for k in range(dims):
                if req[k] > avail[k]:
                    return False
            return True

        def take(job: schedlab.Job) -> None:
            for k in range(dims):
                free[k] -= job.request[k]
            started.append((now + job.walltime, job.index, job.request))
            out.append(schedlab.start(job))

        i = 0
        while i < len(q) and fits(q[i].request, free):
            take(q[i])
            i += 1
        if i == len(q):
            return out
        head = q[i]
        # The shadow time: releases of the running jobs (by expected end,
        # then index) and of those started now, running ones first on ties.
        avail = list(free)
        shadow = -1
        started.sort()
        releases = merge(
            ((r.expected_end, 0, r.job.index, r.job.request) for r in state.running),
            ((at, 1, idx, req) for at, idx, req in started),
        )
        for t, _, _, req in releases:
            if shadow >= 0 and t > shadow:
                break
            for k in range(dims):
                avail[k] += req[k]
            if shadow < 0 and fits(head.request, avail):
                shadow = t
        extra = [avail[k] - head.request[k] for k in range(dims)]
        out.append(schedlab.promise(head, shadow))
        for job in q[i + 1 :]:
            req = job.request
            # Most waiting jobs do not fit now: say so at the cost of one
            # comparison (processors first) before comparing every resource.
            if req[0] > free[0] or not fits(req, free):
                continue
            if now + job.walltime <= shadow:
                take(job)
            elif fits(req, extra):
                for k in range(dims):
                    extra[k] -= req[k]
                take(job)
        return out


if __name__ == "__main__":
    schedlab.serve(EASY)

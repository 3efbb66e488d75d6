"""EASY backfilling in Python (Lifka 1995; Mu'alem and Feitelson 2001), as
schedlab's Go easy schedules: jobs start in queue order while they fit; the
first that does not (the head) gets a reservation at the shadow time, the
earliest expected end at which it fits, every release at that time counted;
later jobs are backfilled when they fit now and either end by the shadow
time or need no more than the extra capacity (what is free then beyond the
head's request), which they consume. On a cluster of nodes a job fits when
the placement rule places it, and the reservation parameter is the Go
easy's reading of the extra capacity there (schedlab.placement.Reservation).
It gives the records of the Go easy on a pool (runner/python_test.go,
TestPythonEqualsGo) and on nodes (python/tests/test_policytest.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from heapq import merge

import schedlab
from schedlab.placement import BATSCHED, COUNT, READINGS, FreeNodes, Layout, Release, Reservation, held_on

ORDERS = ("submit", "shortest", "smallest", "largest")


class EASY(schedlab.Policy):
    name = "easy-py"
    version = "0.2.0"
    description = (
        "EASY backfilling: one reservation, for the first job in queue order that does not fit (one pool, or one "
        "cluster of nodes)"
    )
    params = (
        schedlab.Param(
            "order",
            "string",
            "submit",
            doc="queue order: submit, shortest (requested walltime), smallest or largest (processors); "
            "ties by submit order",
            choices=ORDERS,
        ),
        schedlab.Param(
            "reservation",
            "string",
            COUNT,
            doc="on nodes, what the head's reservation holds: count (the capacity free at the shadow time beyond the "
            "head's, which long backfilled jobs consume) or batsched (the nodes the head is placed on then, which "
            "long backfilled jobs must leave), as the Go easy's parameter",
            choices=READINGS,
        ),
    )

    def init(self, env: schedlab.Env) -> None:
        p = env.platform
        if len(p.clusters) != 1 or p.clusters[0].units:
            raise ValueError(f"easy-py schedules one pool or one cluster of nodes; platform {p.name!r} is neither")
        self.order = str(env.params["order"])
        self.reading = str(env.params["reservation"])
        self.layout = Layout(p.clusters[0]) if p.has_nodes else None
        if self.reading == BATSCHED and self.layout is None:
            raise ValueError(f"easy-py: reservation = batsched holds nodes; platform {p.name!r} has none")
        self.resources = p.resources

    def sorted_queue(self, queue: list[schedlab.Job]) -> list[schedlab.Job]:
        if self.order == "shortest":
            return sorted(queue, key=lambda j: (j.walltime, j.index))
        if self.order == "smallest":
            return sorted(queue, key=lambda j: (j.request[0], j.index))
        if self.order == "largest":
            return sorted(queue, key=lambda j: (-j.request[0], j.index))
        return queue

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        if self.layout is not None:
            return self.schedule_nodes(state, self.layout)
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

    def schedule_nodes(self, state: schedlab.State, layout: Layout) -> Sequence[schedlab.Decision]:
        """schedule on a cluster of nodes: a job fits when its request fits
        the free totals and the placement rule places it; the reservation
        is placement.Reservation's."""
        assert state.nodes is not None and state.nodes[0] is not None
        q = self.sorted_queue(state.queue)
        now = state.now
        free = list(state.free[0])
        nodes = FreeNodes.of(layout, state.nodes[0])
        out: list[schedlab.Decision] = []
        started: list[tuple[int, int, schedlab.Job, schedlab.Alloc, list[int]]] = []

        def totals_fit(job: schedlab.Job) -> bool:
            return all(r <= free[k] for k, r in enumerate(job.request))

        def take(job: schedlab.Job, alloc: schedlab.Alloc, named: bool = False) -> None:
            assert job.tasks is not None
            nodes.take(job.tasks, alloc)
            held = self.held(job, alloc, layout)
            for k, x in enumerate(held):
                free[k] -= x
            started.append((now + job.walltime, job.index, job, alloc, held))
            out.append(schedlab.start(job, alloc=alloc) if named else schedlab.start(job))

        def place(job: schedlab.Job) -> schedlab.Alloc | None:
            assert job.tasks is not None
            return nodes.place(job.tasks) if totals_fit(job) else None

        i = 0
        while i < len(q):
            a = place(q[i])
            if a is None:
                break
            take(q[i], a)
            i += 1
        if i == len(q):
            return out
        head = q[i]
        assert head.tasks is not None
        started.sort(key=lambda s: (s[0], s[1]))

        def releases() -> Iterator[Release]:
            run = ((r.expected_end, 0, r.job.index, r.job, r.alloc) for r in state.running)
            now_ = ((at, 1, idx, job, a) for at, idx, job, a, _ in started)
            for at, _, _, job, a in merge(run, now_):
                assert job.tasks is not None and a is not None
                yield at, job.tasks, a, self.held(job, a, layout)

        res = Reservation(nodes, free, releases(), head.tasks, head.request, self.reading)
        if res.shadow < 0:
            return out
        out.append(schedlab.promise(head, res.shadow))
        for job in q[i + 1 :]:
            if job.tasks is None or not totals_fit(job):
                continue
            if now + job.walltime <= res.shadow:
                a = nodes.place(job.tasks)
                if a is not None:
                    take(job, a)
                continue
            a = res.admit(nodes, job.tasks)
            if a is not None:
                take(job, a, named=self.reading == BATSCHED)
        return out

    def held(self, job: schedlab.Job, alloc: schedlab.Alloc, layout: Layout) -> list[int]:
        """What job holds of each resource on alloc: its request, with what
        it holds on the nodes in place of its processors, memory and GPUs."""
        assert job.tasks is not None
        out = list(job.request)
        for name, x in zip((schedlab.PROCESSORS, "mem", "gpus"), held_on(layout, job.tasks, alloc), strict=True):
            if name in self.resources:
                out[self.resources.index(name)] = x
        return out


if __name__ == "__main__":
    schedlab.serve(EASY)

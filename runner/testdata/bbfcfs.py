"""FCFS on a burst buffer, in Python: jobs start in queue order while their
processors and their pieces fit (each piece whole in one unit, the engine
placing them), the first that does not blocking all behind it, as Go's
bb-fcfs does. On a platform of nodes a job also needs the cluster's
placement rule to place it on the nodes now, as bb-fcfs does there.
runner/python_test.go runs it against bb-fcfs, on a pool under an I/O
model and on nodes; with the parameter views, a file, it appends there
what each call shows of the running jobs' data phases (state.io), for that
test to compare with what Go's State.IO shows."""

from __future__ import annotations

from collections.abc import Sequence

import schedlab
from schedlab.placement import FreeNodes, Layout, held_on


class BBFCFS(schedlab.Policy):
    name = "bb-fcfs-py"
    version = "0.2.0"
    description = "start jobs in queue order while processors, burst-buffer pieces and, on nodes, a placement fit"
    params = (schedlab.Param("views", "string", "", "a file to append each call's state.io to"),)

    def init(self, env: schedlab.Env) -> None:
        c = env.platform.clusters[0]
        if len(env.platform.clusters) != 1 or len(c.units) != 1:
            raise ValueError("bb-fcfs-py schedules one cluster with one divided resource")
        self.units = c.units[0]
        self.layout = Layout(c) if c.has_nodes else None
        self.mem = env.platform.resources.index("mem") if "mem" in env.platform.resources else -1
        self.gpus = env.platform.resources.index("gpus") if "gpus" in env.platform.resources else -1
        self.views = str(env.params["views"])
        if self.views and env.io is None:
            raise ValueError("views: the run has no I/O model")

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        if self.views:
            assert state.io is not None
            with open(self.views, "a") as f:
                for r in state.running:
                    v = state.io[r.job.index]
                    f.write(f"{state.now} {r.job.index} {int(v.phase)} {v.done} {v.phases} {v.bytes_left.hex()} {v.phase_end.hex()}\n")
        free = list(state.free[0])
        assert state.free_units is not None
        units = list(state.free_units[0])
        nodes = None
        if self.layout is not None:
            assert state.nodes is not None and state.nodes[0] is not None
            nodes = FreeNodes.of(self.layout, state.nodes[0])
        u = self.units
        out = []
        for job in state.queue:
            req = job.request
            if any(r > f for r, f in zip(req, free, strict=True)):
                break
            total, n = req[u.resource], req[u.pieces_by]
            left = units
            if total > 0:
                size = total // n
                # Best fit, as the engine places them: each piece to the
                # unit with the least room that holds it, the lower first.
                left = list(units)
                need = n
                while need > 0:
                    best = -1
                    for k, f in enumerate(left):
                        if f >= size and (best < 0 or f < left[best]):
                            best = k
                    if best < 0:
                        break
                    take = min(need, left[best] // size)
                    left[best] -= take * size
                    need -= take
                if need > 0:
                    break
            held = list(req)
            if nodes is not None:
                assert self.layout is not None and job.tasks is not None
                alloc = nodes.place(job.tasks)
                if alloc is None:
                    break
                nodes.take(job.tasks, alloc)
                # A job held whole holds its nodes' all.
                c, m, g = held_on(self.layout, job.tasks, alloc)
                held[0] = c
                if self.mem >= 0:
                    held[self.mem] = m
                if self.gpus >= 0:
                    held[self.gpus] = g
            units = left
            for k, r in enumerate(held):
                free[k] -= r
            out.append(schedlab.start(job))
        return out

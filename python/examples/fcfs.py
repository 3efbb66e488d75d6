"""First come, first served, in Python: jobs start in queue order while they
fit; the first that does not fit blocks all behind it. On a platform of
nodes a job fits when the cluster's placement rule places it
(schedlab.placement), where the engine then places it. On a run with
outages of nodes a job does not start on a node whose maintenance window
begins before its walltime is over (Go fcfs's windows = avoid), and starts
on the allocation found so while a window is ahead. It gives the records
of schedlab's Go fcfs on a pool (runner/python_test.go, TestPythonEqualsGo), on
nodes (python/tests/test_policytest.py) and on runs with outages
(runner/python_outages_test.go)."""

from __future__ import annotations

from collections.abc import Sequence

import schedlab
from schedlab.placement import FreeNodes, Layout


class FCFS(schedlab.Policy):
    name = "fcfs-py"
    version = "0.2.0"
    description = "start jobs in queue order while they fit; no backfilling (one pool, or one cluster of nodes)"

    def init(self, env: schedlab.Env) -> None:
        p = env.platform
        if len(p.clusters) != 1 or p.clusters[0].units:
            raise ValueError(f"fcfs-py schedules one pool or one cluster of nodes; platform {p.name!r} is neither")
        self.layout = Layout(p.clusters[0]) if p.has_nodes else None

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        free = list(state.free[0])
        nodes = None
        if self.layout is not None:
            assert state.nodes is not None and state.nodes[0] is not None
            nodes = FreeNodes.of(self.layout, state.nodes[0])
        # With a maintenance window ahead the engine may place a job where
        # this policy would not: starts then name their allocation.
        ahead = any(o.kind == schedlab.OutageKind.MAINTENANCE and o.start > state.now for o in state.outages)
        out = []
        for job in state.queue:
            req = job.request
            if any(r > f for r, f in zip(req, free, strict=True)):
                break
            alloc = None
            if nodes is not None:
                assert job.tasks is not None
                alloc = self._place(state, nodes, job)
                if alloc is None:
                    break
                # What it holds (whole nodes when exclusive) leaves the totals.
                held = nodes.take(job.tasks, alloc)
                req = _with_held(req, held, state.platform.resources)
            for k, r in enumerate(req):
                free[k] -= r
            out.append(schedlab.start(job, alloc=alloc) if ahead else schedlab.start(job))
        return out

    def _place(self, state: schedlab.State, nodes: FreeNodes, job: schedlab.Job) -> schedlab.Alloc | None:
        """Where the cluster's rule places job now, leaving out the nodes a
        maintenance window reaches before its walltime is over."""
        assert job.tasks is not None
        fenced = list(schedlab.window_nodes(state, 0, job.walltime))
        if not fenced:
            return nodes.place(job.tasks)
        assert self.layout is not None
        room = FreeNodes.of(self.layout, nodes)
        for k in fenced:
            room.cores[k] = room.memory[k] = room.gpus[k] = 0
        return room.place(job.tasks)


def _with_held(req: tuple[int, ...], held: tuple[int, int, int], resources: tuple[str, ...]) -> tuple[int, ...]:
    """req with what a job holds on nodes in place of its processors,
    memory and GPUs."""
    out = list(req)
    for name, x in zip((schedlab.PROCESSORS, "mem", "gpus"), held, strict=True):
        if name in resources:
            out[resources.index(name)] = x
    return tuple(out)


if __name__ == "__main__":
    schedlab.serve(FCFS)

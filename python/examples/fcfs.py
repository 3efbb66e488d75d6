"""First come, first served, in Python: jobs start in queue order while they
fit; the first that does not fit blocks all behind it. On a platform of
nodes a job fits when the cluster's placement rule places it
(schedlab.placement), where the engine then places it. It gives the records
of schedlab's Go fcfs on a pool (runner/python_test.go, TestPythonEqualsGo) and on
nodes (python/tests/test_policytest.py)."""

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
        out = []
        for job in state.queue:
            req = job.request
            if any(r > f for r, f in zip(req, free, strict=True)):
                break
            if nodes is not None:
                assert job.tasks is not None
                alloc = nodes.place(job.tasks)
                if alloc is None:
                    break
                # What it holds (whole nodes when exclusive) leaves the totals.
                held = nodes.take(job.tasks, alloc)
                req = _with_held(req, held, state.platform.resources)
            for k, r in enumerate(req):
                free[k] -= r
            out.append(schedlab.start(job))
        return out


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

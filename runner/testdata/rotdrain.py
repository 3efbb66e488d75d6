"""FCFS beside a moving window of drained nodes, in Python: every `period`
seconds a window of `width` nodes moves along the machine; at each call the
policy drains the window's nodes it has not drained and resumes those it
drained that left the window, then starts waiting jobs in queue order while
their one-core tasks fit on the nodes left, the engine placing them.
runner/python_drain_test.go runs it against the same policy in Go, on a
machine of one-core nodes."""

from __future__ import annotations

from collections.abc import Sequence

import schedlab


class RotatingDrain(schedlab.Policy):
    name = "rotating-drain-py"
    version = "0.1.0"
    description = "FCFS beside a moving window of drained nodes"

    def init(self, env: schedlab.Env) -> None:
        c = env.platform.clusters[0]
        if not c.nodes or any(g.cores != 1 for g in c.nodes):
            raise ValueError("rotating-drain-py schedules a cluster of one-core nodes")
        self.period = 300
        self.width = 2
        self.drained = [False] * c.node_count

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        n = len(self.drained)
        first = (state.now // self.period * self.width) % n
        drain: list[int] = []
        resume: list[int] = []
        for k in range(n):
            inside = (k - first) % n < self.width
            if inside and not self.drained[k]:
                drain.append(k)
            elif not inside and self.drained[k]:
                resume.append(k)
            self.drained[k] = inside
        out: list[schedlab.Decision] = []
        free = state.free[0][0]
        if resume:
            out.append(schedlab.resume_nodes(0, resume))
        if drain:
            out.append(schedlab.drain_nodes(0, drain))
            assert state.nodes is not None and state.nodes[0] is not None
            free -= sum(state.nodes[0].cores[k] for k in drain)
        # A resumed node shows nothing free until the next call.
        started = 0
        for job in state.queue:
            assert job.tasks is not None
            if job.tasks.count > free:
                break
            free -= job.tasks.count
            out.append(schedlab.start(job))
            started += 1
        # Drains and resumes are not progress: with nothing running and
        # nothing started, wake when the resumed nodes show free (the next
        # second) or else when the window moves, or the run stalls.
        if not state.running and started == 0:
            out.append(schedlab.wake_at(state.now + 1 if resume else (state.now // self.period + 1) * self.period))
        return out

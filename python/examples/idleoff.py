"""FCFS on a cluster of nodes that switches idle nodes off, in Python: jobs
start in queue order while the cluster's rule places them (and, under a
power cap, while their start keeps the committed draw under it); a node on
and idle for `timeout` seconds is switched off, and while a job waits that
did not start, the nodes off are switched on, as many as the cap allows.
runner/python_power_test.go runs it against the same policy in Go, on a
run with a power model, and finds the same records, energy and power
events.
"""

from __future__ import annotations

from collections.abc import Sequence

import schedlab
from schedlab.placement import FreeNodes, Layout


class IdleOff(schedlab.Policy):
    name = "idle-off-py"
    version = "0.1.0"
    description = "FCFS on nodes, switching nodes off after a timeout idle and on while jobs wait"
    params = (schedlab.Param("timeout", "int", "600", doc="seconds a node stays idle before it is switched off"),)

    def init(self, env: schedlab.Env) -> None:
        p = env.platform
        if len(p.clusters) != 1 or not p.clusters[0].nodes:
            raise ValueError(f"idle-off-py schedules one cluster of nodes; platform {p.name!r} is not one")
        if env.power is None:
            raise ValueError("idle-off-py switches nodes: it needs a run with a power model")
        self.power = env.power
        self.timeout = int(env.params["timeout"])
        self.layout = Layout(p.clusters[0])
        # idle_since[k]: since when node k has been on and idle, None when it
        # is not.
        self.idle_since: list[int | None] = [None] * p.clusters[0].node_count

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        ps = state.power
        assert ps is not None and state.nodes is not None and state.nodes[0] is not None
        modes = ps.modes[0]
        assert modes is not None
        free = FreeNodes.of(self.layout, state.nodes[0])
        committed = ps.committed
        out: list[schedlab.Decision] = []
        started = 0
        for job in state.queue:
            assert job.tasks is not None
            alloc = free.place(job.tasks)
            if alloc is None:
                break
            w = self.power.start_watts(0, job.tasks, alloc)
            if not schedlab.under_cap(committed + w, ps.cap):
                break
            committed += w
            free.take(job.tasks, alloc)
            out.append(schedlab.start(job, alloc=alloc))
            started += 1
        waiting = started < len(state.queue)
        offs: list[int] = []
        ons: list[int] = []
        wake = -1
        for k, mode in enumerate(modes):
            if mode == schedlab.PowerMode.ON and free.free(k) == self.layout.caps[k]:
                since = self.idle_since[k]
                if since is None:
                    since = self.idle_since[k] = state.now
                if state.now - since >= self.timeout and not waiting:
                    offs.append(k)
                    self.idle_since[k] = None
                elif wake < 0 or since + self.timeout < wake:
                    wake = since + self.timeout
                continue
            self.idle_since[k] = None
            if mode == schedlab.PowerMode.OFF and waiting:
                w = self.power.power_on_watts(0, k)
                if schedlab.under_cap(committed + w, ps.cap):
                    committed += w
                    ons.append(k)
        if offs:
            out.append(schedlab.power_off(0, offs))
        if ons:
            out.append(schedlab.power_on(0, ons))
        if wake > state.now:
            out.append(schedlab.wake_at(wake))
        return out


if __name__ == "__main__":
    schedlab.serve(IdleOff)

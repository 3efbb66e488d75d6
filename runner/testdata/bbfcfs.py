"""FCFS on a burst buffer, in Python: jobs start in queue order while their
processors and their pieces fit (each piece whole in one unit, the engine
placing them), the first that does not blocking all behind it, as Go's
bb-fcfs does. runner/python_test.go runs it under an I/O model against
bb-fcfs; with the parameter views, a file, it appends there what each call
shows of the running jobs' data phases (state.io), for that test to compare
with what Go's State.IO shows."""

from __future__ import annotations

from collections.abc import Sequence

import schedlab


class BBFCFS(schedlab.Policy):
    name = "bb-fcfs-py"
    version = "0.1.0"
    description = "start jobs in queue order while processors and burst-buffer pieces fit"
    params = (schedlab.Param("views", "string", "", "a file to append each call's state.io to"),)

    def init(self, env: schedlab.Env) -> None:
        c = env.platform.clusters[0]
        if len(env.platform.clusters) != 1 or len(c.units) != 1:
            raise ValueError("bb-fcfs-py schedules one cluster with one divided resource")
        self.units = c.units[0]
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
        u = self.units
        out = []
        for job in state.queue:
            req = job.request
            if any(r > f for r, f in zip(req, free, strict=True)):
                break
            total, n = req[u.resource], req[u.pieces_by]
            if total > 0:
                size = total // n
                # Best fit, as the engine places them: each piece to the
                # unit with the least room that holds it, the lower first.
                left = n
                while left > 0:
                    best = -1
                    for k, f in enumerate(units):
                        if f >= size and (best < 0 or f < units[best]):
                            best = k
                    if best < 0:
                        break
                    take = min(left, units[best] // size)
                    units[best] -= take * size
                    left -= take
                if left > 0:
                    break
            for k, r in enumerate(req):
                free[k] -= r
            out.append(schedlab.start(job))
        return out

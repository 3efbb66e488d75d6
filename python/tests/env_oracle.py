"""The Gymnasium environment as it was written in Python before its steps
moved into the serve-env process (schedlab.gym): every step taken here,
from the engine's State frames of the call protocol, by this package's own
placement (schedlab.placement). test_gym_oracle.py runs it beside
SchedulingEnv as an independent reading of the same rules: the two must
see the same observations and masks and make the same schedules."""

from __future__ import annotations

import json
from collections.abc import Iterator
from heapq import merge
from operator import eq
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from schedlab import _wire
from schedlab._model import Alloc, Decision, Job, Policy, State, start
from schedlab._service import MSG_FINISHED, MSG_REQUEST
from schedlab.gym import FEATURES, SchedulingEnv
from schedlab.placement import BATSCHED, FreeNodes, Layout, Release, Reservation

_WAIT_SCALE = 12 * 3600  # a wait of 12 h or more reads 1
_WALLTIME_SCALE = 24 * 3600  # a requested walltime of a day or more reads 1


class _Agent(Policy):
    """Stands for the agent in the protocol's session (never asked)."""

    name = "environment"

    def schedule(self, state: State) -> list[Decision]:
        raise AssertionError("the environment answers the calls")


class _Start:
    """A job started in the current call: its expected end, index, tasks
    and nodes (on nodes), and what it holds of each resource."""

    __slots__ = ("end", "index", "job", "alloc", "held")

    def __init__(self, end: int, job: Job, alloc: Alloc | None, held: list[int]) -> None:
        self.end = end
        self.index = job.index
        self.job = job
        self.alloc = alloc
        self.held = held


class OracleEnv(SchedulingEnv):
    """SchedulingEnv's episodes, every step taken here (see the module's
    docstring); the settings, their checks, rewards, info and baselines are
    SchedulingEnv's own."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self._session: _wire.Session | None = None
        self._obs: np.ndarray = np.zeros((self._rows, FEATURES), dtype=np.float32)
        self._layout: Layout | None = None
        self._fits_cache: dict[tuple[int, ...], bool] = {}

    def _read(self) -> tuple[int, bytes]:
        return self._service.read()

    def _request(self, first: int, count: int, seed: int) -> None:
        req = self._base_request()
        req.update(first=first, count=count, seed=seed, exact=self.exact)
        self._service.send(MSG_REQUEST, json.dumps(req).encode())
        typ, p = self._read()
        if typ == _wire.MSG_END:
            # The run failed before it began; the Finished frame says why.
            typ, p = self._read()
        if typ == MSG_FINISHED:
            raise ValueError(f"schedlab: {json.loads(p).get('error')}")
        if typ != _wire.MSG_INIT:
            raise RuntimeError(f"schedlab serve-env sent a frame of type {typ} first")
        self._session = _wire.Session(_Agent(), p)
        plat = self._session.platform
        cluster = plat.clusters[0]
        self._cap = float(cluster.capacity[0])
        self._layout = Layout(cluster) if cluster.has_nodes else None
        self._mem = plat.resources.index("mem") if "mem" in plat.resources else -1
        self._gpu = plat.resources.index("gpus") if "gpus" in plat.resources else -1
        if self._layout is not None:
            self._most_cores = max(c[0] for c in self._layout.caps)
            self._caps = np.array(self._layout.caps, dtype=np.float64)
        self._static = np.zeros((count, 5))
        self._static_count = 0
        self._service.send(_wire.MSG_READY, b"")
        self._running = True

    # The episode.

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts an episode on a window drawn from the seed (options
        {"first": i} chooses it)."""
        gymnasium.Env.reset(self, seed=seed)  # not SchedulingEnv's: the episode is taken here
        first, run_seed = self._window(options)
        self._request(first, self.window, run_seed)
        self._episode = {"first": first, "seed": run_seed, "steps": 0, "calls": 0}
        self._reserved: Job | None = None
        done, summary = self._advance(None)
        if done:
            # A window no decision could change (never the case with
            # waiting jobs); the episode is over before it began.
            self._episode["summary"] = summary
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Starts the picked job now if it fits, else as soon as it does,
        and runs the engine to the next decision."""
        if not self._running:
            raise RuntimeError("step before reset, or after the episode ended")
        self._episode["steps"] += 1
        waiting = self._waiting
        a = int(action)
        if a == self.queue_rows and self._event_ahead():
            # Wait for the next event: there is one.
            done, summary = self._advance(self._decisions)
            if done:
                return self._observe(), self._reward(summary), True, False, self._info(summary)
            return self._observe(), 0.0, False, False, self._info()
        job = waiting[a] if 0 <= a < min(len(waiting), self.queue_rows) else waiting[0]
        if self._fits(job):
            self._take(job)
            if self._waiting:
                return self._observe(), 0.0, False, False, self._info()
            done, summary = self._advance(self._decisions)
        else:
            self._reserved = job
            if self.backfill:
                self._backfill(job)
            done, summary = self._advance(self._decisions)
        if done:
            return self._observe(), self._reward(summary), True, False, self._info(summary)
        return self._observe(), 0.0, False, False, self._info()

    # Calls of the engine.

    def _advance(self, answer: list[Decision] | None) -> tuple[bool, dict[str, Any]]:
        """Answers the current call with answer (None: no call is under
        way, at the start), then takes calls until one needs the agent
        (True and the summary when the episode ends)."""
        assert self._session is not None
        service = self._service
        while True:
            if answer is not None:
                service.send(_wire.MSG_DECISIONS, _wire.encode_decisions(answer))
            typ, p = self._read()
            if typ == _wire.MSG_END:
                typ, p = self._read()
                self._running = False
                doc = json.loads(p)
                if doc.get("error"):
                    raise RuntimeError(f"schedlab refused the episode: {doc['error']}")
                summary: dict[str, Any] = doc["summary"]
                self._episode["starts"] = doc.get("starts", [])
                self._episode["ends"] = doc.get("ends", [])
                return True, summary
            if typ != _wire.MSG_STATE:
                raise RuntimeError(f"schedlab serve-env sent a frame of type {typ} during an episode")
            self._episode["calls"] += 1
            state = self._session.update(p)
            self._now = state.now
            self._free = list(state.free[0])
            if self._layout is not None:
                assert state.nodes is not None and state.nodes[0] is not None
                self._nodes = FreeNodes.of(self._layout, state.nodes[0])
                self._fits_cache.clear()
            self._waiting = list(state.queue)
            self._started: list[_Start] = []  # this call's starts
            self._decisions: list[Decision] = []
            self._state = state
            r = self._reserved
            if r is not None:
                if not self._fits(r):
                    if self.backfill:
                        self._backfill(r)
                    answer = self._decisions
                    continue
                self._reserved = None
                self._take(r)
            if self._waiting:
                return False, {}
            answer = self._decisions

    def _totals_fit(self, job: Job) -> bool:
        free = self._free
        return all(x <= free[k] for k, x in enumerate(job.request))

    def _fits(self, job: Job) -> bool:
        """Whether job fits now: its request fits the free totals and, on
        nodes, the cluster's placement rule places it."""
        if job.request[0] > self._free[0]:
            return False
        if self._layout is None:
            return True
        t = job.tasks
        assert t is not None
        key = (t.count, t.cores, t.memory, t.gpus, t.nodes, int(t.exclusive), t.partition, t.features, *job.request)
        hit = self._fits_cache.get(key)
        if hit is None:
            hit = self._totals_fit(job) and self._nodes.fits(t)
            self._fits_cache[key] = hit
        return hit

    def _held(self, job: Job, alloc: Alloc | None) -> list[int]:
        """What job holds of each resource on alloc: its request, with what
        it holds on the nodes in place of its tasks' (more when exclusive)."""
        held = list(job.request)
        if alloc is None or self._layout is None:
            return held
        assert job.tasks is not None
        c = m = g = 0
        for k, n in zip(alloc.nodes, alloc.tasks, strict=True):
            h = self._layout.held(job.tasks, k, n)
            c, m, g = c + h[0], m + h[1], g + h[2]
        held[0] = c
        if self._mem >= 0:
            held[self._mem] = m
        if self._gpu >= 0:
            held[self._gpu] = g
        return held

    def _take(self, job: Job, alloc: Alloc | None = None, named: bool = False) -> None:
        """Starts job, which fits: on nodes where the placement rule (or
        alloc, which is the rule's) places it, as the engine will; on
        alloc, named in the decision, when named."""
        if self._layout is not None:
            assert job.tasks is not None
            if alloc is None:
                alloc = self._nodes.place(job.tasks)
                assert alloc is not None, "a job that fits has a placement"
            self._nodes.take(job.tasks, alloc)
            self._fits_cache.clear()
        held = self._held(job, alloc)
        for k, x in enumerate(held):
            self._free[k] -= x
        self._waiting.remove(job)
        self._started.append(_Start(self._now + job.walltime, job, alloc, held))
        self._decisions.append(start(job, alloc=alloc) if named else start(job))

    def _backfill(self, head: Job) -> None:
        """Starts the waiting jobs that fit now and do not delay head, as
        EASY does: ending by its shadow time, or within the processors
        left over then (on nodes: the cores, memory and GPUs left over on
        the nodes of head's partition, EASY's count reading)."""
        if self._layout is not None:
            self._backfill_nodes(head)
            return
        avail = self._free[0]
        shadow = -1
        releases = merge(
            ((r.expected_end, r.job.request[0]) for r in self._state.running),
            sorted((s.end, s.held[0]) for s in self._started),
        )
        for t, procs in releases:
            if shadow >= 0 and t > shadow:
                break
            avail += procs
            if shadow < 0 and head.request[0] <= avail:
                shadow = t
        if shadow < 0:
            return
        extra = avail - head.request[0]
        for job in list(self._waiting):
            if job is head or not self._fits(job):
                continue
            if self._now + job.walltime <= shadow:
                self._take(job)
            elif job.request[0] <= extra:
                extra -= job.request[0]
                self._take(job)

    def _backfill_nodes(self, head: Job) -> None:
        """_backfill on nodes, as the Go easy under the reservation setting
        (schedlab.placement.Reservation): the shadow time is the first
        expected end at which head fits the free totals and is placed on
        the nodes as the running jobs and this call's starts give theirs
        back; a job that does not end by it starts when the reservation
        admits it."""
        assert head.tasks is not None
        running = ((r.expected_end, 0, r.job.index, r.job, r.alloc) for r in self._state.running)
        started = sorted((s.end, 1, s.index, s.job, s.alloc) for s in self._started)

        def releases() -> Iterator[Release]:
            for end, _, _, job, alloc in merge(running, started):
                assert job.tasks is not None and alloc is not None
                yield end, job.tasks, alloc, self._held(job, alloc)

        res = Reservation(self._nodes, self._free, releases(), head.tasks, head.request, self.reservation)
        shadow = res.shadow
        if shadow < 0:
            # Head does not fit even once every running job has ended:
            # nodes out of service hold what it needs, until a repair. As
            # the Go easy, it gets no reservation, and every job that
            # fits starts.
            for job in list(self._waiting):
                if job is not head and self._totals_fit(job) and self._fits(job):
                    self._take(job)
            return
        now = self._now
        for job in list(self._waiting):
            t = job.tasks
            if job is head or t is None or not self._totals_fit(job):
                continue
            if now + job.walltime <= shadow:
                if self._fits(job):
                    self._take(job)
                continue
            alloc = res.admit(self._nodes, t)
            if alloc is not None:
                self._take(job, alloc, named=self.reservation == BATSCHED)

    # What the agent sees.

    def _observe(self) -> np.ndarray:
        obs = self._obs
        obs.fill(0.0)
        if not self._running or self._session is None:
            return np.array(obs)
        self._learn_jobs()
        rows = self._waiting[: self.queue_rows]
        k = len(rows)
        if k:
            idx = np.fromiter((j.index for j in rows), dtype=np.int64, count=k)
            static = self._static[idx]
            obs[:k, 0] = np.minimum(1.0, (self._now - static[:, 0]) / _WAIT_SCALE)
            obs[:k, 1:3] = static[:, 1:3]
            if self._layout is None:
                obs[:k, 3] = static[:, 3] <= self._free[0]
            else:
                obs[:k, 3] = [self._fits(j) for j in rows]
            obs[:k, 4] = static[:, 4]
            obs[:k, 5] = 1.0
        cap = self._cap
        last = obs[self.queue_rows]
        last[0] = self._free[0] / cap
        last[1] = min(1.0, (len(self._state.running) + len(self._started)) / cap)
        last[2] = min(1.0, len(self._waiting) / self.queue_rows)
        if self._layout is not None:
            n = self._nodes
            caps = self._layout.caps
            whole = sum(map(eq, zip(n.cores, n.memory, n.gpus, strict=True), caps))
            last[3] = whole / len(caps)
            last[4] = max(n.cores) / self._most_cores
        last[5] = 1.0
        if self.observe_nodes:
            self._observe_nodes(obs[self.queue_rows + 1 :])
        return np.array(obs)

    def _observe_nodes(self, rows: np.ndarray) -> None:
        """Fills a row per node: what it has free over what it has (cores,
        memory, GPUs; 0 for what it has none of), whether it is in service,
        whether it is wholly free, and 1."""
        assert self._layout is not None
        n, caps = self._nodes, self._caps
        free = np.array([n.cores, n.memory, n.gpus], dtype=np.float64).T
        np.divide(free, caps, out=rows[:, 0:3], where=caps > 0)
        rows[:, 3] = 1.0
        for o in self._state.outages:
            if o.start <= self._now and o.cluster == 0:
                rows[list(o.all(len(caps))), 3] = 0.0
        rows[:, 4] = np.all(free == caps, axis=1) & (rows[:, 3] == 1.0)
        rows[:, 5] = 1.0

    def _learn_jobs(self) -> None:
        """Adds the rows of the jobs submitted since the last call to the
        table of what does not change about a job: submit time, walltime
        and processors scaled, processors, user."""
        assert self._session is not None
        jobs = self._session.jobs
        n = self._static_count
        if n == len(jobs):
            return
        cap = self._cap
        table = self._static
        for j in jobs[n:]:
            table[j.index] = (
                j.submit,
                min(1.0, j.walltime / _WALLTIME_SCALE),
                min(1.0, j.request[0] / cap),
                j.request[0],
                (j.user % 256) / 255.0,
            )
        self._static_count = len(jobs)

    def action_masks(self) -> np.ndarray:
        """The actions a masked agent may take (mask, one of MASKS): the
        rows of waiting jobs, all of them ("any") or those that fit now
        ("fits"; on nodes, those the placement rule places), and waiting
        when something runs or an outage is in effect (its end is an
        event)."""
        m = np.zeros(self.queue_rows + 1, dtype=bool)
        if self._running:
            rows = self._waiting[: self.queue_rows]
            if self.mask == "fits":
                m[: len(rows)] = [self._fits(j) for j in rows]
            else:
                m[: len(rows)] = True
            m[self.queue_rows] = self._event_ahead()
        return m

    def _event_ahead(self) -> bool:
        """Whether an event will come without a start: a running job's end,
        or the end of an outage in effect (a repair, a window's end)."""
        s = self._state
        return bool(s.running or self._started) or any(o.start <= s.now for o in s.outages)

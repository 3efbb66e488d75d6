"""The policy side of the call protocol (Go's sdk/internal/calls): frames
on a stream socket, a State frame per scheduling point carrying what
changed since the previous one, a Decisions frame in answer. A Session
keeps the state of one run from frame to frame."""

from __future__ import annotations

import json
import struct
from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from typing import cast

from ._io import IO, IOPhase, JobIO
from ._model import (
    Action,
    Alloc,
    Completion,
    Decision,
    Env,
    Job,
    Platform,
    Policy,
    Refusal,
    Running,
    State,
    Tasks,
    parse_value,
)
from ._outage import Outage, OutageKind
from ._power import Power, PowerMode, PowerState
from .rand import Rand

VERSION = 101
"""The go-plugin protocol version of the call protocol."""

MSG_INIT = ord("I")
MSG_STATE = ord("S")
MSG_END = ord("X")
MSG_READY = ord("R")
MSG_DECISIONS = ord("D")
MSG_ERROR = ord("E")
MSG_OUTPUT = ord("O")
MSG_NOTES = ord("N")

_HEAD = struct.Struct("<q5I")
_LEFT = struct.Struct("<iiqI")
_U32 = struct.Struct("<I")
_COMPLETED = struct.Struct("<iiqqB")
_REFUSED = struct.Struct("<iiq")
_NODE = struct.Struct("<iiqqq")
_DECISION = struct.Struct("<BiiqdI")
_DECISION_PLAIN = struct.Struct("<BiiqdII")
_COMPLETED_OUT = struct.Struct("<iiqqBBB")
_POWER = struct.Struct("<dddI")
_OUTAGE = struct.Struct("<iiqqBI")
_REQUEUED = struct.Struct("<ii")
_U32x2 = struct.Struct("<II")
_POWER_CHANGE = struct.Struct("<iiBq")
_TASKS = "iiqiiBiQ"
_JOB_IO = struct.Struct("<iBIIdd")


# Job's constructor, for the rows of a frame (whose length a type checker
# cannot count).
_new_job = cast(Callable[..., Job], Job)


def _running_key(r: Running) -> tuple[int, int]:
    return (r.expected_end, r.job.index)


def _job_key(j: Job) -> int:
    return j.index


class ProtocolError(Exception):
    """A frame that breaks the protocol."""


class Session:
    """One run of a policy: the state rebuilt from the host's frames."""

    def __init__(self, policy: Policy, init: bytes) -> None:
        doc = json.loads(init)
        if doc.get("protocol") != VERSION:
            raise ProtocolError(f"the host speaks call protocol {doc.get('protocol')}, this package {VERSION}")
        self.platform = Platform.from_json(doc["platform"])
        declared = {p.name: p for p in type(policy).params}
        given = doc.get("params") or {}
        params = {}
        for name, p in declared.items():
            params[name] = parse_value(p, given.get(name, p.default))
        unknown = sorted(set(given) - set(declared))
        if unknown:
            raise ValueError(f"unknown parameters {', '.join(unknown)} (declared: {', '.join(declared) or 'none'})")
        seed = int(doc.get("seed", 0))
        # A run with a power model says so in its Init, and its State
        # frames end with the power section (Go's calls.Encoder).
        power = doc.get("power")
        self.env = Env(
            platform=self.platform,
            params=params,
            seed=seed,
            rand=Rand(seed),
            exact_estimates=bool(doc.get("exact_estimates", False)),
            power=None if power is None else Power.from_json(power, self.platform),
            io=None if doc.get("io") is None else IO.from_json(doc["io"]),
        )
        self.policy = policy
        self.state = State(self.platform)
        if power is not None:
            self.state.power = PowerState(self.platform)
        # A run with outages of nodes says so too: its completions tell
        # interruptions, and its State frames end with the outages section.
        self.outages = bool(doc.get("outages", False))
        # A run with an I/O model ends its State frames with where each
        # running job is in its data phases.
        if self.env.io is not None:
            self.state.io = {}
        # The jobs shown, in the order they arrived (by index, but for jobs
        # submitted during the run: a workload's feedback), and by index.
        self.jobs: list[Job] = []
        self._by_index: list[Job | None] = []
        self.dims = self.platform.dims
        self.nclusters = len(self.platform.clusters)
        nodes = self.platform.has_nodes
        self.job_struct = struct.Struct("<iqqqiiiiidiq" + "q" * self.dims + (_TASKS if nodes else ""))
        self.nodes = nodes
        self.free_struct = struct.Struct("<" + "q" * (self.nclusters * self.dims))
        self.units_count = [c.unit_count for c in self.platform.clusters]
        self.units_struct = struct.Struct("<" + "q" * sum(self.units_count))
        self.unit_stride = [c.unit_count for c in self.platform.clusters]
        policy.init(self.env)

    def schedule(self, p: bytes) -> Sequence[Decision]:
        """Applies a State frame's payload and asks the policy."""
        return self.policy.schedule(self.update(p))

    def update(self, p: bytes) -> State:
        """Applies a State frame's payload to the state and returns it."""
        s = self.state
        now, n_arrived, n_left, n_completed, n_refused, n_nodes = _HEAD.unpack_from(p, 0)
        s.now = now
        off = _HEAD.size
        dims = self.dims
        free = self.free_struct.unpack_from(p, off)
        off += self.free_struct.size
        for c in range(self.nclusters):
            s.free[c] = list(free[c * dims : (c + 1) * dims])
        if s.free_units is not None:
            units = self.units_struct.unpack_from(p, off)
            off += self.units_struct.size
            k = 0
            for c, n in enumerate(self.units_count):
                s.free_units[c] = list(units[k : k + n])
                k += n
        queue = s.queue
        running = s.running
        for _ in range(n_left):
            idx, cluster, start, nu = _LEFT.unpack_from(p, off)
            off += _LEFT.size
            units_t = None
            if nu:
                units_t = struct.unpack_from(f"<{nu}i", p, off)
                off += 4 * nu
            (na,) = _U32.unpack_from(p, off)
            off += 4
            alloc = None
            if na:
                v = struct.unpack_from(f"<{2 * na}i", p, off)
                off += 8 * na
                alloc = Alloc(v[:na], v[na:])
            k = bisect_left(queue, idx, key=_job_key)
            if k == len(queue) or queue[k].index != idx:
                # A job requeued to the end of the queue leaves it out of
                # index order.
                k = self._find(queue, idx)
            del queue[k]
            if cluster >= 0:
                j = self._job(idx)
                insort(running, Running(j, cluster, start, start + j.walltime, units_t, alloc), key=_running_key)
        completed = s.completed
        completed.clear()
        if n_completed and self.outages:
            off = self._completed_outages(p, off, n_completed)
        elif n_completed:
            for idx, cluster, start, end, killed in _COMPLETED.iter_unpack(
                p[off : off + n_completed * _COMPLETED.size]
            ):
                j = self._job(idx)
                key = (start + j.walltime, idx)
                k = bisect_left(running, key, key=_running_key)
                alloc = None
                if k < len(running) and running[k].job is j:
                    alloc = running[k].alloc
                    del running[k]
                completed.append(Completion(j, cluster, start, end, killed == 1, alloc))
            off += n_completed * _COMPLETED.size
        refused = s.refused
        refused.clear()
        if n_refused:
            for idx, cluster, at in _REFUSED.iter_unpack(p[off : off + n_refused * _REFUSED.size]):
                refused.append(Refusal(self._job(idx), cluster, at))
            off += n_refused * _REFUSED.size
        if s.nodes is not None:
            for group in s.nodes:
                if group is not None:
                    group.changed = []
        if n_nodes:
            nodes = s.nodes
            assert nodes is not None
            for c, k, cores, memory, gpus in _NODE.iter_unpack(p[off : off + n_nodes * _NODE.size]):
                group = nodes[c]
                assert group is not None
                group.cores[k] = cores
                group.memory[k] = memory
                group.gpus[k] = gpus
                group.changed.append(k)
            off += n_nodes * _NODE.size
        if n_arrived:
            size = self.job_struct.size
            end = off + n_arrived * size
            if self.nodes:
                d = dims
                for v in self.job_struct.iter_unpack(p[off:end]):
                    t = v[12 + d :]
                    j = _new_job(*v[:12], v[12 : 12 + d], Tasks(t[0], t[1], t[2], t[3], t[4], t[5] == 1, t[6], t[7]))
                    self._add(j)
                    queue.append(j)
            else:
                for v in self.job_struct.iter_unpack(p[off:end]):
                    j = _new_job(*v[:12], v[12:])
                    self._add(j)
                    queue.append(j)
            off = end
        if s.power is not None:
            off = self._power(s.power, p, off)
        if self.outages:
            off = self._outages(p, off)
        if s.io is not None:
            off = self._io(s.io, p, off)
        if off != len(p):
            raise ProtocolError(f"state frame: {len(p) - off} bytes left over")
        return s

    def _add(self, j: Job) -> None:
        """Notes job j, which arrived."""
        i, by = j.index, self._by_index
        if i < len(by):
            if by[i] is not None:
                raise ProtocolError(f"job index {i} arrived twice")
            by[i] = j
        else:
            if i > len(by):
                by.extend([None] * (i - len(by)))
            by.append(j)
        self.jobs.append(j)

    def _job(self, idx: int) -> Job:
        """The job of index idx, which was shown."""
        j = self._by_index[idx] if 0 <= idx < len(self._by_index) else None
        if j is None:
            raise ProtocolError(f"job index {idx}, which was never shown")
        return j

    def _find(self, queue: list[Job], idx: int) -> int:
        """The position of job index idx in queue, which is not sorted: a
        job requeued to the end, or submitted during the run, breaks the
        order of indexes."""
        for k, j in enumerate(queue):
            if j.index == idx:
                return k
        raise ProtocolError(f"job index {idx} left the queue, where it was not")

    def _completed_outages(self, p: bytes, off: int, n: int) -> int:
        """Applies the completions of a State on a run with outages, each
        with the outage that interrupted it and whether it was requeued."""
        running, completed = self.state.running, self.state.completed
        end_off = off + n * _COMPLETED_OUT.size
        for idx, cluster, start, end, killed, cause, requeued in _COMPLETED_OUT.iter_unpack(p[off:end_off]):
            j = self._job(idx)
            k = bisect_left(running, (start + j.walltime, idx), key=_running_key)
            alloc = None
            if k < len(running) and running[k].job is j:
                alloc = running[k].alloc
                del running[k]
            kind = OutageKind(cause) if cause else None
            completed.append(Completion(j, cluster, start, end, killed == 1, alloc, kind, requeued == 1))
        return end_off

    def _outages(self, p: bytes, off: int) -> int:
        """Applies a State's outages section: the outages removed, those
        added, each at its place in the list, then the jobs requeued, each
        at its place in the queue. Returns the offset after it."""
        outages = self.state.outages
        n_removed, n_added = _U32x2.unpack_from(p, off)
        off += _U32x2.size
        if n_removed:
            removed = struct.unpack_from(f"<{n_removed}i", p, off)
            off += 4 * n_removed
            for k in reversed(removed):
                if not 0 <= k < len(outages):
                    raise ProtocolError(f"outage {k} removed of {len(outages)}")
                del outages[k]
        for _ in range(n_added):
            at, cluster, start, end, kind, nn = _OUTAGE.unpack_from(p, off)
            off += _OUTAGE.size
            nodes = struct.unpack_from(f"<{nn}i", p, off) if nn else ()
            off += 4 * nn
            if not 0 <= at <= len(outages):
                raise ProtocolError(f"outage added at {at} of {len(outages)}")
            outages.insert(at, Outage(cluster, nodes, start, end, OutageKind(kind)))
        (n_requeued,) = _U32.unpack_from(p, off)
        off += 4
        queue = self.state.queue
        for _ in range(n_requeued):
            idx, at = _REQUEUED.unpack_from(p, off)
            off += _REQUEUED.size
            j = self._by_index[idx] if 0 <= idx < len(self._by_index) else None
            if j is None or not 0 <= at <= len(queue):
                raise ProtocolError(f"job index {idx} requeued at {at} of {len(queue)}")
            queue.insert(at, j)
        return off

    def _io(self, io: dict[int, JobIO], p: bytes, off: int) -> int:
        """Applies a State's io section, from offset off, to io (by job
        index, the running jobs only) and returns the offset after it."""
        n: int = _U32.unpack_from(p, off)[0]
        off += 4
        end: int = off + n * _JOB_IO.size
        if end > len(p):
            raise ProtocolError(f"state frame: {n} running jobs' phases in {len(p) - off} bytes")
        io.clear()
        for idx, phase, done, phases, left, at in _JOB_IO.iter_unpack(p[off:end]):
            io[idx] = JobIO(IOPhase(phase), done, phases, left, at)
        return end

    def _power(self, ps: PowerState, p: bytes, off: int) -> int:
        """Applies a State's power section, from offset off, to ps and
        returns the offset after it."""
        ps.draw, ps.committed, ps.cap, n = _POWER.unpack_from(p, off)
        off += _POWER.size
        for ch in ps.changed:
            ch.clear()
        if n:
            end = off + n * _POWER_CHANGE.size
            if end > len(p):
                raise ProtocolError(f"state frame: {n} power changes in {len(p) - off} bytes")
            modes, until = ps.modes, ps.until
            for c, k, mode, t in _POWER_CHANGE.iter_unpack(p[off:end]):
                m, u = modes[c], until[c]
                if m is None or u is None:
                    raise ProtocolError(f"power: node {k} of cluster {c}, which has no nodes")
                m[k] = PowerMode(mode)
                u[k] = t
                ps.changed[c].append(k)
            off = end
        return off


def encode_decisions(ds: Sequence[Decision]) -> bytes:
    """The Decisions payload of ds."""
    if not isinstance(ds, (list, tuple)):
        if isinstance(ds, (str, bytes)) or not isinstance(ds, Sequence):
            raise TypeError(f"schedule returned {type(ds).__name__} {ds!r:.80}, not a sequence of decisions")
    parts = [_U32.pack(len(ds))]
    plain = _DECISION_PLAIN.pack
    for d in ds:
        if not isinstance(d, Decision):
            raise TypeError(f"schedule returned {type(d).__name__} {d!r} among its decisions, not a schedlab.Decision")
        job = d.job
        idx = -1 if job is None else job.index
        action = d.action
        if d.units is None and d.alloc is None and d.nodes is None:
            parts.append(plain(action, idx, d.cluster, d.time, d.cost, 0, 0))
            continue
        # The nodes of a drain, a resume or a switch of power travel where
        # a start's units do.
        units = d.nodes if d.nodes is not None else d.units or ()
        parts.append(_DECISION.pack(action, idx, d.cluster, d.time, d.cost, len(units)))
        if units:
            parts.append(struct.pack(f"<{len(units)}i", *units))
        a = d.alloc
        if a is None:
            parts.append(_U32.pack(0))
        else:
            if len(a.nodes) != len(a.tasks):
                raise ValueError(
                    f"decision for job index {idx}: an alloc of {len(a.nodes)} nodes and {len(a.tasks)} task counts"
                )
            parts.append(_U32.pack(len(a.nodes)))
            parts.append(struct.pack(f"<{2 * len(a.nodes)}i", *a.nodes, *a.tasks))
    return b"".join(parts)


__all__ = ["Session", "encode_decisions", "ProtocolError", "VERSION", "Action"]

"""Outages of nodes in Python (schedlab.Outage, window_nodes) and the
outages section of the call protocol's frames, fed frames built by hand:
the outages a policy sees, the jobs an outage ends and the place in the
queue of those it requeues."""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence

import pytest

import schedlab
from schedlab._wire import VERSION, ProtocolError, Session

PLATFORM = schedlab.nodes_platform("m", [schedlab.NodeGroup("a", 2, 4), schedlab.NodeGroup("b", 1, 2)])
MAINT, FAIL = schedlab.OutageKind.MAINTENANCE, schedlab.OutageKind.FAILURE


def job(index: int, submit: int, walltime: int, count: int) -> bytes:
    # The job's fields, its request of processors, then its tasks: count,
    # cores, memory, gpus, nodes, exclusive, partition, features.
    head = struct.pack("<iqqqiiiiidiq", index, 100 + index, submit, walltime, 1, 0, 0, 0, 0, 0.0, -1, 0)
    return head + struct.pack("<q", count) + struct.pack("<iiqiiBiQ", count, 1, 0, 0, 0, 0, 0, 0)


Added = tuple[int, int, Sequence[int], int, int, int]  # position, cluster, nodes, start, end, kind


def state(
    now: int,
    free: int,
    arrived: Sequence[bytes] = (),
    left: Sequence[tuple[int, int, int]] = (),
    completed: Sequence[tuple[int, int, int, int, int, bool]] = (),
    removed: Sequence[int] = (),
    added: Sequence[Added] = (),
    requeued: Sequence[tuple[int, int]] = (),
) -> bytes:
    out = struct.pack("<q5I", now, len(arrived), len(left), len(completed), 0, 0) + struct.pack("<q", free)
    for idx, cluster, start in left:
        out += struct.pack("<iiqI", idx, cluster, start, 0) + struct.pack("<I", 0)
    for idx, cluster, start, end, cause, again in completed:
        out += struct.pack("<iiqqBBB", idx, cluster, start, end, 0, cause, int(again))
    out += b"".join(arrived)
    out += struct.pack("<II", len(removed), len(added)) + b"".join(struct.pack("<i", k) for k in removed)
    for at, cluster, nodes, start, end, kind in added:
        out += struct.pack("<iiqqBI", at, cluster, start, end, kind, len(nodes))
        out += b"".join(struct.pack("<i", k) for k in nodes)
    out += struct.pack("<I", len(requeued)) + b"".join(struct.pack("<ii", i, at) for i, at in requeued)
    return out


class Watcher(schedlab.Policy):
    name = "watcher"

    def __init__(self) -> None:
        self.seen: list[tuple[list[schedlab.Outage], list[int], list[tuple[int, object, bool]], list[int]]] = []

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        self.seen.append(
            (
                list(state.outages),
                [j.index for j in state.queue],
                [(c.job.index, c.interrupted, c.requeued) for c in state.completed],
                sorted(schedlab.window_nodes(state, 0, 150)),
            )
        )
        return []


def init() -> bytes:
    doc = {"protocol": VERSION, "platform": PLATFORM.to_json(), "params": {}, "seed": 1, "outages": True}
    return json.dumps(doc).encode()


def test_outages_follow_the_frames() -> None:
    pol = Watcher()
    s = Session(pol, init())
    window = schedlab.Outage(0, (), 100, 200, MAINT)
    failure = schedlab.Outage(0, (1,), 10, -1, FAIL)
    # Three jobs arrive, and the machine's maintenance window is known.
    s.schedule(
        state(0, 10, arrived=[job(0, 0, 50, 1), job(1, 0, 60, 2), job(2, 0, 70, 4)], added=[(0, 0, (), 100, 200, 3)])
    )
    # Jobs 0 and 1 started at 0; node 1 fails at 10, ending job 1, which
    # goes back to the end of the queue, after job 3 that just arrived.
    s.schedule(
        state(
            10,
            4,
            arrived=[job(3, 10, 20, 1)],
            left=[(0, 0, 0), (1, 0, 0)],
            completed=[(1, 0, 0, 10, 1, True)],
            added=[(0, 0, (1,), 10, -1, 1)],
            requeued=[(1, 2)],
        )
    )
    # Job 1 starts (the queue is out of index order); the failure is over.
    s.schedule(state(60, 6, left=[(1, 0, 10)], removed=[0]))
    assert pol.seen == [
        ([window], [0, 1, 2], [], [0, 1, 2]),
        ([failure, window], [2, 3, 1], [(1, FAIL, True)], [0, 1, 2]),
        ([window], [2, 3], [], [0, 1, 2]),
    ]
    assert [r.job.index for r in s.state.running] == [0, 1]


def test_window_nodes_and_covers() -> None:
    st = schedlab.State(PLATFORM)
    st.now = 50
    st.outages = [
        schedlab.Outage(0, (0, 2), 60, 100, MAINT),
        schedlab.Outage(0, (), 200, 300, MAINT),
        schedlab.Outage(0, (1,), 55, -1, FAIL),  # not a window
        schedlab.Outage(0, (1,), 40, 80, MAINT),  # begun: not ahead
    ]
    # A window reaches a job that would still run at its start.
    assert list(schedlab.window_nodes(st, 0, 10)) == []
    assert list(schedlab.window_nodes(st, 0, 11)) == [0, 2]
    assert list(schedlab.window_nodes(st, 0, 151)) == [0, 2, 0, 1, 2]
    assert list(schedlab.window_nodes(st, 1, 151)) == []
    o = st.outages[0]
    assert o.covers(2) and not o.covers(1) and st.outages[1].covers(1)
    assert list(st.outages[1].all(3)) == [0, 1, 2]


def test_outage_frames_that_break_the_protocol() -> None:
    s = Session(Watcher(), init())
    with pytest.raises(ProtocolError, match="removed"):
        s.schedule(state(0, 10, removed=[0]))
    s = Session(Watcher(), init())
    with pytest.raises(ProtocolError, match="requeued"):
        s.schedule(state(0, 10, requeued=[(5, 0)]))

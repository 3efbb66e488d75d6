"""The policy side of the call protocol, fed frames built by hand: what the
policy sees at each call, and the bytes of its answer."""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence

import pytest

import schedlab
from schedlab._wire import VERSION, ProtocolError, Session, encode_decisions

PLATFORM = {"name": "p", "resources": ["procs"], "clusters": [{"name": "c", "capacity": [10]}]}


def init(params: dict[str, str] | None = None, seed: int = 7) -> bytes:
    return json.dumps({"protocol": VERSION, "platform": PLATFORM, "params": params or {}, "seed": seed}).encode()


def job(index: int, id: int, submit: int, walltime: int, procs: int, user: int = 1) -> bytes:
    # index, id, submit, walltime, user, group, app, queue, partition,
    # priority, home, transfer, then the request of each resource.
    return struct.pack("<iqqqiiiiidiqq", index, id, submit, walltime, user, 0, 0, 0, 0, 0.0, -1, 0, procs)


def state(
    now: int,
    free: int,
    arrived: Sequence[bytes] = (),
    left: Sequence[tuple[int, int, int]] = (),
    completed: Sequence[tuple[int, int, int, int, bool]] = (),
) -> bytes:
    out = struct.pack("<q5I", now, len(arrived), len(left), len(completed), 0, 0) + struct.pack("<q", free)
    for idx, cluster, start in left:
        out += struct.pack("<iiqI", idx, cluster, start, 0) + struct.pack("<I", 0)
    for idx, cluster, start, end, killed in completed:
        out += struct.pack("<iiqqB", idx, cluster, start, end, int(killed))
    return out + b"".join(arrived)


class Recorder(schedlab.Policy):
    name = "recorder"
    params = (schedlab.Param("k", "int", "1"),)

    def __init__(self) -> None:
        self.seen: list[tuple[int, list[int], list[tuple[int, int]], list[int], list[int]]] = []
        self.k = 0

    def init(self, env: schedlab.Env) -> None:
        self.k = int(env.params["k"])
        self.first = env.rand.uint64()

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        self.seen.append(
            (
                state.now,
                [j.id for j in state.queue],
                [(r.job.id, r.expected_end) for r in state.running],
                [c.job.id for c in state.completed],
                list(state.free[0]),
            )
        )
        return [schedlab.start(j) for j in state.queue[: self.k]]


def test_state_follows_the_frames() -> None:
    pol = Recorder()
    s = Session(pol, init({"k": "2"}))
    assert pol.k == 2
    s.schedule(state(0, 10, arrived=[job(0, 100, 0, 50, 4), job(1, 101, 0, 20, 4), job(2, 102, 0, 10, 8)]))
    # The host says jobs 0 and 1 started at 0, job 2 waits; 2 processors free.
    s.schedule(state(5, 2, left=[(0, 0, 0), (1, 0, 0)], arrived=[job(3, 103, 5, 30, 1)]))
    # Job 1 ended at 12: it completes, its processors return.
    s.schedule(state(12, 6, completed=[(1, 0, 0, 12, False)]))
    assert pol.seen == [
        (0, [100, 101, 102], [], [], [10]),
        (5, [102, 103], [(101, 20), (100, 50)], [], [2]),
        (12, [102, 103], [(100, 50)], [101], [6]),
    ]


def test_jobs_submitted_during_the_run() -> None:
    """A job submitted during the run (a workload's feedback) arrives after
    jobs of higher indexes: it joins the queue's end, is known by its
    index, and a job that arrives twice breaks the protocol."""
    pol = Recorder()
    s = Session(pol, init({"k": "0"}))
    s.schedule(state(0, 10, arrived=[job(0, 100, 0, 50, 4), job(2, 102, 0, 10, 8)]))
    s.schedule(state(3, 10, arrived=[job(1, 101, 3, 20, 4)]))
    s.schedule(state(4, 6, left=[(1, 0, 3)]))
    assert [j.index for j in s.jobs] == [0, 2, 1]
    assert pol.seen[1][1] == [100, 102, 101]
    assert pol.seen[2][1:3] == ([100, 102], [(101, 23)])
    with pytest.raises(ProtocolError, match="job index 2 arrived twice"):
        s.schedule(state(5, 6, arrived=[job(2, 102, 5, 10, 8)]))


def test_the_seed_reaches_the_stream() -> None:
    a, b, c = Recorder(), Recorder(), Recorder()
    Session(a, init(seed=3))
    Session(b, init(seed=3))
    Session(c, init(seed=4))
    assert a.first == b.first != c.first


def test_unknown_params_and_bad_values_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown parameters zz"):
        Session(Recorder(), init({"zz": "1"}))
    with pytest.raises(ValueError, match="x"):
        Session(Recorder(), init({"k": "x"}))


def test_frames_that_break_the_protocol() -> None:
    s = Session(Recorder(), init())
    with pytest.raises(ProtocolError, match="left the queue"):
        s.schedule(state(0, 10, left=[(4, 0, 0)]))
    with pytest.raises(ProtocolError, match="bytes left over"):
        s.schedule(state(0, 10) + b"\0")
    with pytest.raises(ProtocolError, match="protocol"):
        Session(Recorder(), json.dumps({"protocol": 6, "platform": PLATFORM}).encode())


def test_answer_bytes() -> None:
    s = Session(Recorder(), init())
    s.schedule(state(0, 10, arrived=[job(0, 100, 0, 50, 4)]))
    j = s.state.queue[0]
    got = encode_decisions([schedlab.start(j), schedlab.promise(j, 40), schedlab.wake_at(90)])
    want = struct.pack("<I", 3)
    want += struct.pack("<BiiqdII", 1, 0, 0, 0, 0.0, 0, 0)
    want += struct.pack("<BiiqdII", 2, 0, 0, 40, 0.0, 0, 0)
    want += struct.pack("<BiiqdII", 3, -1, 0, 90, 0.0, 0, 0)
    assert got == want
    with pytest.raises(TypeError, match="not a sequence of decisions"):
        encode_decisions(7)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a schedlab.Decision"):
        encode_decisions(["start"])  # type: ignore[list-item]


def test_drain_bytes() -> None:
    # A drain's and a resume's nodes travel where a start's units do; they
    # name no job. The actions are Go's sdk.ActionDrain and ActionResume.
    got = encode_decisions([schedlab.drain_nodes(0, [1, 3]), schedlab.resume_nodes(2, [0])])
    want = struct.pack("<I", 2)
    want += struct.pack("<BiiqdI", 10, -1, 0, 0, 0.0, 2) + struct.pack("<2i", 1, 3) + struct.pack("<I", 0)
    want += struct.pack("<BiiqdI", 11, -1, 2, 0, 0.0, 1) + struct.pack("<i", 0) + struct.pack("<I", 0)
    assert got == want

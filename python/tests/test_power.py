"""The power model in Python (schedlab.Power, NodePower, under_cap), worked
by hand against Go's sdk/power.go, and the power section of the call
protocol's frames: what a policy sees of the nodes' power, and the bytes of
its switches."""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from typing import Any

import pytest

import schedlab
from schedlab._wire import VERSION, ProtocolError, Session, encode_decisions

# Two node groups: 2 nodes of 4 cores (linear model), 1 node of 2 cores
# with a busy table.
GROUPS = [
    schedlab.NodeGroup("a", 2, 4),
    schedlab.NodeGroup("b", 1, 2),
]
PLATFORM = schedlab.nodes_platform("m", GROUPS)
GROUP_A: dict[str, Any] = {"off": 10, "idle": 100, "full": 180, "on_seconds": 20, "on_joules": 3000, "off_seconds": 10}
GROUP_B: dict[str, Any] = {"off": 5, "idle": 50, "full": 90, "busy": [70, 90]}
POWER_JSON: dict[str, Any] = {
    "groups": [[GROUP_A, GROUP_B]],
    "caps": [{"from": 100, "watts": 1000}, {"from": 500, "watts": 0}],
}


def test_node_power_by_hand() -> None:
    a = schedlab.NodePower.from_json(GROUP_A)
    assert a.core_watts(4) == 20.0  # (180 - 100) / 4
    assert a.busy_watts(0, 4) == 100.0
    assert a.busy_watts(3, 4) == 160.0  # 100 + 3 * 20
    assert a.switch_on_watts() == 150.0  # 3000 J over 20 s
    assert a.switch_off_watts() == 0.0  # 0 J over 10 s, as Go's SwitchOffWatts
    b = schedlab.NodePower.from_json(GROUP_B)
    assert b.busy == (70.0, 90.0)
    assert b.busy_watts(1, 2) == 70.0  # the table, not the line
    assert b.switch_on_watts() == 50.0  # an instant switch draws idle
    assert b.switch_off_watts() == 5.0


def test_power_by_hand() -> None:
    p = schedlab.Power.from_json(POWER_JSON, PLATFORM)
    assert [p.cap_at(t) for t in (0, 99, 100, 499, 500, 10**9)] == [0.0, 0.0, 1000.0, 1000.0, 0.0, 0.0]
    assert p.model(0, 1).idle == 100.0 and p.model(0, 2).idle == 50.0
    t = schedlab.Tasks(3, 2, 0, 0, 0, False, 0, 0)
    # 2 tasks of 2 cores on node 1 (20 W a core), 1 on node 2 (20 W a core
    # by the line from idle to full, which the cap is checked with).
    assert p.start_watts(0, t, schedlab.Alloc((1, 2), (2, 1))) == 2 * 2 * 20.0 + 1 * 2 * 20.0
    assert p.power_on_watts(0, 0) == 150.0 - 10.0  # max(switching on, idle) - off
    assert p.power_on_watts(0, 2) == 50.0 - 5.0
    assert p.power_off_watts(0, 0) == 10.0 - 100.0  # max(switching off, off) - idle
    assert p.idle_watts() == 2 * 100.0 + 50.0


def test_under_cap() -> None:
    assert schedlab.under_cap(1e9, 0)
    assert schedlab.under_cap(1000.0, 1000.0)
    assert schedlab.under_cap(1000.0 * (1 + schedlab.CAP_SLACK / 2), 1000.0)
    assert not schedlab.under_cap(1000.0 * (1 + 2 * schedlab.CAP_SLACK), 1000.0)


class Watcher(schedlab.Policy):
    name = "watcher"

    def __init__(self) -> None:
        self.env: schedlab.Env | None = None
        self.seen: list[tuple[list[int], list[int], list[int], float, float, float]] = []

    def init(self, env: schedlab.Env) -> None:
        self.env = env

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        ps = state.power
        assert ps is not None and ps.modes[0] is not None and ps.until[0] is not None
        self.seen.append(
            (list(ps.modes[0]), list(ps.until[0]), list(ps.changed[0]), ps.draw, ps.committed, ps.cap),
        )
        return []


def power_init(power: object) -> bytes:
    doc = {"protocol": VERSION, "platform": PLATFORM.to_json(), "params": {}, "seed": 1}
    if power is not None:
        doc["power"] = power
    return json.dumps(doc).encode()


def state(now: int, changes: Sequence[tuple[int, int, int, int]] | None, draw: float = 0.0) -> bytes:
    # No job, no node changed: the head, then the free cores; on a run with
    # a power model, its section.
    out = struct.pack("<q5I", now, 0, 0, 0, 0, 0) + struct.pack("<q", 10)
    if changes is None:
        return out
    out += struct.pack("<dddI", draw, draw + 1, 1000.0, len(changes))
    for c, k, mode, until in changes:
        out += struct.pack("<iiBq", c, k, mode, until)
    return out


def test_power_follows_the_frames() -> None:
    pol = Watcher()
    s = Session(pol, power_init(POWER_JSON))
    assert pol.env is not None and pol.env.power is not None
    assert pol.env.power.groups[0][1].busy == (70.0, 90.0) and pol.env.power.caps[0] == schedlab.CapStep(100, 1000.0)
    s.schedule(state(0, [], 250.0))
    # Node 2 switches off until 30 and node 0 is off; then node 2 is off.
    s.schedule(state(20, [(0, 2, 3, 30), (0, 0, 1, 0)], 180.0))
    s.schedule(state(30, [(0, 2, 1, 0)], 140.0))
    s.schedule(state(40, [], 140.0))
    on, off, sw_off = schedlab.PowerMode.ON, schedlab.PowerMode.OFF, schedlab.PowerMode.SWITCHING_OFF
    assert pol.seen == [
        ([on, on, on], [0, 0, 0], [], 250.0, 251.0, 1000.0),
        ([off, on, sw_off], [0, 0, 30], [2, 0], 180.0, 181.0, 1000.0),
        ([off, on, off], [0, 0, 0], [2], 140.0, 141.0, 1000.0),
        ([off, on, off], [0, 0, 0], [], 140.0, 141.0, 1000.0),
    ]
    assert isinstance(pol.seen[1][0][0], schedlab.PowerMode)


def test_no_power_model_no_power() -> None:
    # Without a power model the state has no power, and a power section is
    # bytes the frame should not have.
    seen: list[object] = []

    class P(schedlab.Policy):
        name = "p"

        def init(self, env: schedlab.Env) -> None:
            seen.append(env.power)

        def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
            seen.append(state.power)
            return []

    s = Session(P(), power_init(None))
    s.schedule(state(0, None))
    assert seen == [None, None]
    with pytest.raises(ProtocolError, match="left over"):
        s.schedule(state(1, []))


def test_power_frames_that_break_the_protocol() -> None:
    s = Session(Watcher(), power_init(POWER_JSON))
    with pytest.raises(ProtocolError, match="power changes"):
        s.schedule(state(0, [(0, 1, 1, 0)])[:-4])


def test_switch_bytes() -> None:
    # A switch's nodes travel where a start's units do; it names no job.
    # The actions are Go's sdk.ActionPowerOn and ActionPowerOff.
    got = encode_decisions([schedlab.power_on(0, [1, 2]), schedlab.power_off(0, [0])])
    want = struct.pack("<I", 2)
    want += struct.pack("<BiiqdI", 8, -1, 0, 0, 0.0, 2) + struct.pack("<2i", 1, 2) + struct.pack("<I", 0)
    want += struct.pack("<BiiqdI", 9, -1, 0, 0, 0.0, 1) + struct.pack("<i", 0) + struct.pack("<I", 0)
    assert got == want
    assert schedlab.power_on(0, [1]).action == schedlab.Action.POWER_ON


def test_add_watts_by_hand() -> None:
    """Go's TestAddWatts, in Python: nodes of 4 cores idle at 100 W, the
    line to 200 W (25 W a core) and the table 190, 200, 205, 210 W."""
    line = schedlab.NodePower(off=0, idle=100, full=200)
    table = schedlab.NodePower(off=0, idle=100, full=210, busy=(190, 200, 205, 210))
    cases = [
        (line, 0, 2, 50.0, 50.0, 50.0),
        (line, 2, 2, 50.0, 50.0, 50.0),
        (table, 0, 1, 90.0, 5.0, 90.0),
        (table, 1, 2, 15.0, 10.0, 100.0),
        (table, 0, 4, 110.0, 110.0, 110.0),
        (table, 3, 0, 0.0, 0.0, 0.0),
    ]
    for m, in_use, more, want, least, most in cases:
        assert m.add_watts(in_use, more, 4) == want
        assert m.add_watts_range(more, 4) == (least, most)


def test_start_watts_on_and_cores_in_use() -> None:
    """Go's TestStartWattsOn: two nodes under a table, one on the line; the
    cores in use come from the running jobs' allocations."""
    groups = [schedlab.NodeGroup("t", 2, 4), schedlab.NodeGroup("l", 1, 4)]
    platform = schedlab.nodes_platform("m", groups)
    power = schedlab.Power.from_json(
        {
            "groups": [
                [
                    {"off": 0, "idle": 100, "full": 210, "busy": [190, 200, 205, 210], "down": "off"},
                    {"off": 0, "idle": 100, "full": 200},
                ]
            ]
        },
        platform,
    )
    assert power.groups[0][0].down == "off" and power.groups[0][1].down == ""
    state = schedlab.State(platform)

    def job(index: int, tasks: schedlab.Tasks) -> schedlab.Job:
        return schedlab.Job(index, index + 1, 0, 10, 0, 0, 0, 0, 0, 0.0, 0, 0, (tasks.count * tasks.cores,), tasks)

    two = job(0, schedlab.Tasks(2, 1, 0, 0, 0, False, 0, 0))
    three = job(1, schedlab.Tasks(1, 3, 0, 0, 0, False, 0, 0))
    state.running = [
        schedlab.Running(two, 0, 0, 10, alloc=schedlab.Alloc((0,), (2,))),
        schedlab.Running(three, 0, 0, 10, alloc=schedlab.Alloc((2,), (1,))),
    ]
    in_use = schedlab.cores_in_use(state, 0)
    assert in_use == [2, 0, 3]
    tasks = schedlab.Tasks(3, 1, 0, 0, 0, False, 0, 0)
    alloc = schedlab.Alloc((0, 1, 2), (1, 1, 1))
    # Node 0 from 2 to 3 cores (+5 W), node 1 from 0 to 1 (+90 W), node 2
    # by the line (+25 W).
    assert power.start_watts_on(0, tasks, alloc, in_use) == 120.0
    assert power.start_watts(0, tasks, alloc) == 80.0

"""The power model of a run and the power a policy sees: the Python mirror
of the Go SDK's sdk.Power, sdk.NodePower and sdk.PowerState (sdk/power.go),
so that a policy computes the watts of a start or a switch as the engine
does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._model import Alloc, Platform, State, Tasks

CAP_SLACK = 1e-9
"""The relative slack with which the engine checks the cap: a draw within
cap x (1 + CAP_SLACK) is under it (Go's sdk.CapSlack)."""


def under_cap(watts: float, cap: float) -> bool:
    """Whether a committed draw of `watts` is within `cap` (0: no cap), as
    the engine checks it (Go's sdk.UnderCap)."""
    return cap == 0 or watts <= cap * (1 + CAP_SLACK)


class PowerMode(IntEnum):
    """The power state of a node (Go's sdk.PowerMode). Only a node ON is in
    service; one off or switching shows nothing free in `state.nodes`."""

    ON = 0
    OFF = 1
    SWITCHING_ON = 2
    SWITCHING_OFF = 3


@dataclass(frozen=True)
class NodePower:
    """The power model of the nodes of a node group, in watts and joules
    (Go's sdk.NodePower). A node on draws `idle` plus (full - idle) / cores
    for each of its cores in use, or, with a `busy` table, busy[u - 1] with
    u cores in use; `off` when off; while switching, on_joules / on_seconds
    (switching on) or off_joules / off_seconds (switching off). A switch of
    0 seconds is instantaneous and costs nothing."""

    off: float
    idle: float
    full: float
    on_seconds: int = 0
    on_joules: float = 0.0
    off_seconds: int = 0
    off_joules: float = 0.0
    busy: tuple[float, ...] | None = None
    down: str = ""
    """What a node on draws while out of service for a failure or a
    maintenance window: "" (its idle power) or "off" (its off power); Go's
    sdk.NodePower.Down."""

    def busy_watts(self, in_use: int, cores: int) -> float:
        """What a node of `cores` cores that is on draws with `in_use` of its
        cores in use (Go's BusyWatts)."""
        if in_use == 0:
            return self.idle
        if self.busy is not None:
            return self.busy[in_use - 1]
        return self.idle + in_use * self.core_watts(cores)

    def core_watts(self, cores: int) -> float:
        """The power one core in use adds to a node of `cores` cores (Go's
        CoreWatts)."""
        return (self.full - self.idle) / cores

    def add_watts(self, in_use: int, more: int, cores: int) -> float:
        """What `more` cores in use add to the draw of a node of `cores`
        cores that has `in_use` in use (Go's AddWatts)."""
        if self.busy is None:
            return more * self.core_watts(cores)
        return self.busy_watts(in_use + more, cores) - self.busy_watts(in_use, cores)

    def add_watts_range(self, more: int, cores: int) -> tuple[float, float]:
        """The least and the most that `more` cores in use add to the draw
        of a node of `cores` cores, whatever it has in use (Go's
        AddWattsRange): what planning ahead is bounded by."""
        if self.busy is None or more == 0:
            w = self.add_watts(0, more, cores)
            return w, w
        ws = [self.add_watts(u, more, cores) for u in range(cores - more + 1)]
        return min(ws), max(ws)

    def switch_on_watts(self) -> float:
        """The power a node draws while it switches on (Go's SwitchOnWatts)."""
        return self.idle if self.on_seconds == 0 else self.on_joules / self.on_seconds

    def switch_off_watts(self) -> float:
        """The power a node draws while it switches off (Go's SwitchOffWatts)."""
        return self.off if self.off_seconds == 0 else self.off_joules / self.off_seconds

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> NodePower:
        """Reads the JSON form of a node group's model (Go's sdk.NodePower)."""
        busy = d.get("busy")
        return cls(
            float(d.get("off", 0.0)),
            float(d.get("idle", 0.0)),
            float(d.get("full", 0.0)),
            int(d.get("on_seconds", 0)),
            float(d.get("on_joules", 0.0)),
            int(d.get("off_seconds", 0)),
            float(d.get("off_joules", 0.0)),
            None if busy is None else tuple(float(x) for x in busy),
            str(d.get("down", "")),
        )


@dataclass(frozen=True)
class CapStep:
    """The platform's power cap from time `at` on: `watts`, or no cap when
    0 (Go's sdk.CapStep, whose JSON calls `at` "from")."""

    at: int
    watts: float


class Power:
    """The power model of a run on a platform of nodes (Go's sdk.Power):
    `groups[c][g]` is the model of node group g of cluster c (empty for a
    cluster without nodes), `caps` the power cap as steps in increasing
    order of time. The engine refuses a start or a power-on that would take
    the committed draw over the cap in effect. `env.power` holds it, None
    on a run without a power model."""

    __slots__ = ("platform", "groups", "caps", "_group", "_cores")

    def __init__(self, platform: Platform, groups: Sequence[Sequence[NodePower]], caps: Sequence[CapStep] = ()) -> None:
        self.platform = platform
        self.groups = tuple(tuple(g) for g in groups)
        self.caps = tuple(caps)
        # Each node's group and cores, by cluster, so that a node's model
        # is one lookup.
        self._group: list[list[int]] = []
        self._cores: list[list[int]] = []
        for c in platform.clusters:
            group: list[int] = []
            cores: list[int] = []
            for g, ng in enumerate(c.nodes):
                group += [g] * ng.count
                cores += [ng.cores] * ng.count
            self._group.append(group)
            self._cores.append(cores)

    @classmethod
    def from_json(cls, d: dict[str, Any], platform: Platform) -> Power:
        """Reads the JSON form of a power model (Go's sdk.Power) of a run on
        `platform`."""
        groups = [[NodePower.from_json(g) for g in gs or ()] for gs in d.get("groups") or ()]
        caps = [CapStep(int(s.get("from", 0)), float(s.get("watts", 0.0))) for s in d.get("caps") or ()]
        return cls(platform, groups, caps)

    def cap_at(self, t: int) -> float:
        """The power cap in effect at time t, 0 for none (Go's CapAt)."""
        w = 0.0
        for s in self.caps:
            if s.at > t:
                break
            w = s.watts
        return w

    def model(self, cluster: int, node: int) -> NodePower:
        """The model of node `node` of cluster `cluster` (Go's Model)."""
        return self.groups[cluster][self._group[cluster][node]]

    def start_watts(self, cluster: int, tasks: Tasks, alloc: Alloc) -> float:
        """The power a job of `tasks` would add on `alloc` of `cluster`: for
        each node, its cores in use times the node's core_watts: what the
        engine checks a start against the cap with on nodes without a busy
        power table (start_watts_on is exact on every node; Go's
        StartWatts)."""
        w = 0.0
        for k, n in zip(alloc.nodes, alloc.tasks, strict=True):
            w += n * tasks.cores * self.model(cluster, k).core_watts(self._cores[cluster][k])
        return w

    def start_watts_on(self, cluster: int, tasks: Tasks, alloc: Alloc, in_use: Sequence[int]) -> float:
        """The power a job of `tasks` would add on `alloc` of `cluster`,
        node k having in_use[k] cores in use (cores_in_use): exact under a
        busy power table too, as the engine checks a start against the cap
        (Go's StartWattsOn)."""
        w = 0.0
        for k, n in zip(alloc.nodes, alloc.tasks, strict=True):
            w += self.model(cluster, k).add_watts(in_use[k], n * tasks.cores, self._cores[cluster][k])
        return w

    def power_on_watts(self, cluster: int, node: int) -> float:
        """What switching node `node` of `cluster` on adds to the committed
        draw (Go's PowerOnWatts)."""
        m = self.model(cluster, node)
        return max(m.switch_on_watts(), m.idle) - m.off

    def power_off_watts(self, cluster: int, node: int) -> float:
        """What switching node `node` of `cluster` off adds to the committed
        draw while it switches (negative when it saves power at once), as
        the engine counts it against the cap."""
        m = self.model(cluster, node)
        return max(m.switch_off_watts(), m.off) - m.idle

    def idle_watts(self) -> float:
        """What every node draws when all are on and idle (Go's IdleWatts)."""
        w = 0.0
        for c, cl in enumerate(self.platform.clusters):
            for g, ng in enumerate(cl.nodes):
                w += ng.count * self.groups[c][g].idle
        return w


class PowerState:
    """The power a policy sees on a run with a power model (`state.power`;
    Go's sdk.PowerState): `modes[c][k]` the mode of node k of cluster c
    and `until[c][k]`, for a switching node, when its switch ends (None for
    a cluster without nodes); `draw` the platform's power now, `committed`
    the draw with each switching node counted at the larger of its switching
    power and the power it switches to (what the cap is checked against),
    `cap` the cap in effect now (0: none). `changed[c]` lists the nodes of
    cluster c whose mode changed since the previous call. The host updates
    it in place; a policy must not change it."""

    __slots__ = ("modes", "until", "draw", "committed", "cap", "changed")

    def __init__(self, platform: Platform) -> None:
        self.modes: list[list[PowerMode] | None] = [
            [PowerMode.ON] * c.node_count if c.nodes else None for c in platform.clusters
        ]
        self.until: list[list[int] | None] = [[0] * c.node_count if c.nodes else None for c in platform.clusters]
        self.draw = 0.0
        self.committed = 0.0
        self.cap = 0.0
        self.changed: list[list[int]] = [[] for _ in platform.clusters]


def cores_in_use(state: State, cluster: int) -> list[int]:
    """Each node's cores in use by the jobs running on `cluster` (their
    tasks' cores; an exclusive job's idle cores are not): what a start adds
    under a busy power table depends on it (Power.start_watts_on; Go shows
    it as State.Power.InUse)."""
    c = state.platform.clusters[cluster]
    use = [0] * c.node_count
    for r in state.running:
        if r.cluster != cluster or r.alloc is None or r.job.tasks is None:
            continue
        for k, n in zip(r.alloc.nodes, r.alloc.tasks, strict=True):
            use[k] += n * r.job.tasks.cores
    return use

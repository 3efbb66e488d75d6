"""What a policy sees and what it decides: the Python mirror of the Go SDK's
jobs, state and decisions (package sdk)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, ClassVar

from ._io import IO, JobIO
from ._notes import Notes
from ._outage import Outage, OutageKind
from ._power import Power, PowerState
from .rand import Rand

PROCESSORS = "procs"
"""The name of the resource at index 0 of every platform."""


@dataclass(frozen=True)
class NodeGroup:
    """Identical nodes: how many, and what each has (memory in bytes)."""

    name: str
    count: int
    cores: int
    memory: int = 0
    gpus: int = 0
    features: tuple[str, ...] = ()


@dataclass(frozen=True)
class Partition:
    """A named set of a cluster's node groups, with limits on its jobs."""

    name: str
    groups: tuple[str, ...]
    max_walltime: int = 0
    max_nodes: int = 0
    default: bool = False


@dataclass(frozen=True)
class Units:
    """A resource of a cluster made of separate units (a burst buffer)."""

    resource: int
    pieces_by: int
    capacity: tuple[int, ...]


@dataclass(frozen=True)
class Cluster:
    """Resources one job may use together: a pool, or nodes."""

    name: str
    capacity: tuple[int, ...]
    units: tuple[Units, ...] = ()
    price_factor: float = 0.0
    nodes: tuple[NodeGroup, ...] = ()
    partitions: tuple[Partition, ...] = ()
    placement: str = ""

    @property
    def has_nodes(self) -> bool:
        """Whether the cluster is made of nodes."""
        return bool(self.nodes)

    @property
    def node_count(self) -> int:
        """The number of nodes (0 for a pool)."""
        return sum(g.count for g in self.nodes)

    @property
    def unit_count(self) -> int:
        """The number of units of all divided resources."""
        return sum(len(u.capacity) for u in self.units)


@dataclass(frozen=True)
class Platform:
    """The simulated machine: clusters sharing one list of resource names."""

    name: str
    resources: tuple[str, ...]
    clusters: tuple[Cluster, ...]

    @property
    def dims(self) -> int:
        """The number of resources."""
        return len(self.resources)

    @property
    def has_nodes(self) -> bool:
        """Whether some cluster is made of nodes."""
        return any(c.nodes for c in self.clusters)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Platform:
        """Reads the JSON form of a platform (Go's sdk.Platform)."""
        clusters = []
        for c in d.get("clusters") or []:
            clusters.append(
                Cluster(
                    name=c.get("name", ""),
                    capacity=tuple(c.get("capacity") or ()),
                    units=tuple(
                        Units(u.get("resource", 0), u.get("pieces_by", 0), tuple(u.get("capacity") or ()))
                        for u in c.get("units") or ()
                    ),
                    price_factor=c.get("price_factor", 0.0),
                    nodes=tuple(
                        NodeGroup(
                            g.get("name", ""),
                            g.get("count", 0),
                            g.get("cores", 0),
                            g.get("memory", 0),
                            g.get("gpus", 0),
                            tuple(g.get("features") or ()),
                        )
                        for g in c.get("nodes") or ()
                    ),
                    partitions=tuple(
                        Partition(
                            p.get("name", ""),
                            tuple(p.get("groups") or ()),
                            p.get("max_walltime", 0),
                            p.get("max_nodes", 0),
                            p.get("default", False),
                        )
                        for p in c.get("partitions") or ()
                    ),
                    placement=c.get("placement", ""),
                )
            )
        return cls(d.get("name", ""), tuple(d.get("resources") or ()), tuple(clusters))

    def to_json(self) -> dict[str, Any]:
        """The JSON form of the platform (Go's sdk.Platform), which from_json reads."""
        clusters: list[dict[str, Any]] = []
        for c in self.clusters:
            d: dict[str, Any] = {"name": c.name, "capacity": list(c.capacity)}
            if c.units:
                d["units"] = [
                    {"resource": u.resource, "pieces_by": u.pieces_by, "capacity": list(u.capacity)} for u in c.units
                ]
            if c.price_factor:
                d["price_factor"] = c.price_factor
            if c.nodes:
                d["nodes"] = [
                    {
                        "name": g.name,
                        "count": g.count,
                        "cores": g.cores,
                        "memory": g.memory,
                        "gpus": g.gpus,
                        "features": list(g.features),
                    }
                    for g in c.nodes
                ]
            if c.partitions:
                d["partitions"] = [
                    {
                        "name": p.name,
                        "groups": list(p.groups),
                        "max_walltime": p.max_walltime,
                        "max_nodes": p.max_nodes,
                        "default": p.default,
                    }
                    for p in c.partitions
                ]
            if c.placement:
                d["placement"] = c.placement
            clusters.append(d)
        return {"name": self.name, "resources": list(self.resources), "clusters": clusters}


def nodes_platform(
    name: str, groups: Sequence[NodeGroup], partitions: Sequence[Partition] = (), placement: str = ""
) -> Platform:
    """A platform of one cluster of the given node groups and partitions,
    with the resources its nodes need (memory and GPUs only when some group
    has them) and the capacities they add up to (Go's sdk.NodesPlatform)."""
    cores = sum(g.count * g.cores for g in groups)
    memory = sum(g.count * g.memory for g in groups)
    gpus = sum(g.count * g.gpus for g in groups)
    resources = [PROCESSORS]
    capacity = [cores]
    if memory > 0:
        resources.append("mem")
        capacity.append(memory)
    if gpus > 0:
        resources.append("gpus")
        capacity.append(gpus)
    cluster = Cluster(name, tuple(capacity), nodes=tuple(groups), partitions=tuple(partitions), placement=placement)
    return Platform(name, tuple(resources), (cluster,))


class Tasks:
    """How a job's request lies on nodes: count tasks of cores, memory
    (bytes) and GPUs each, every task within one node; exactly `nodes` nodes
    when positive; held whole when exclusive; partition is 1 + the index of
    the job's partition (0: the default); features a mask over the
    cluster's sorted feature names."""

    __slots__ = ("count", "cores", "memory", "gpus", "nodes", "exclusive", "partition", "features")

    def __init__(
        self,
        count: int,
        cores: int,
        memory: int,
        gpus: int,
        nodes: int,
        exclusive: bool,
        partition: int,
        features: int,
    ) -> None:
        self.count = count
        self.cores = cores
        self.memory = memory
        self.gpus = gpus
        self.nodes = nodes
        self.exclusive = exclusive
        self.partition = partition
        self.features = features

    def __repr__(self) -> str:
        return (
            f"Tasks(count={self.count}, cores={self.cores}, memory={self.memory}, gpus={self.gpus}, "
            f"nodes={self.nodes}, exclusive={self.exclusive}, partition={self.partition}, features={self.features})"
        )


class Job:
    """What a policy knows about a job: everything the user declared at
    submission, never its actual runtime. `index` is its dense position in
    the run's workload (submit order); `walltime` the requested walltime,
    the only estimate a policy gets; `request` the amount of each resource,
    processors first."""

    __slots__ = (
        "index",
        "id",
        "submit",
        "walltime",
        "user",
        "group",
        "app",
        "queue",
        "partition",
        "priority",
        "home",
        "transfer",
        "request",
        "tasks",
    )

    def __init__(
        self,
        index: int,
        id: int,
        submit: int,
        walltime: int,
        user: int,
        group: int,
        app: int,
        queue: int,
        partition: int,
        priority: float,
        home: int,
        transfer: int,
        request: tuple[int, ...],
        tasks: Tasks | None = None,
    ) -> None:
        self.index = index
        self.id = id
        self.submit = submit
        self.walltime = walltime
        self.user = user
        self.group = group
        self.app = app
        self.queue = queue
        self.partition = partition
        self.priority = priority
        self.home = home
        self.transfer = transfer
        self.request = request
        self.tasks = tasks

    @property
    def procs(self) -> int:
        """The number of processors the job requests."""
        return self.request[0]

    @property
    def home_cluster(self) -> int | None:
        """The cluster whose local stream the job belongs to, or None."""
        return self.home - 1 if self.home > 0 else None

    def __repr__(self) -> str:
        return (
            f"Job(index={self.index}, id={self.id}, submit={self.submit}, "
            f"walltime={self.walltime}, request={self.request})"
        )


class Running:
    """A job that holds resources, until at most `expected_end`
    (start + walltime). `units` is its placement on divided resources,
    `alloc` its nodes and tasks per node, where the cluster has them."""

    __slots__ = ("job", "cluster", "start", "expected_end", "units", "alloc")

    def __init__(
        self,
        job: Job,
        cluster: int,
        start: int,
        expected_end: int,
        units: tuple[int, ...] | None = None,
        alloc: Alloc | None = None,
    ) -> None:
        self.job = job
        self.cluster = cluster
        self.start = start
        self.expected_end = expected_end
        self.units = units
        self.alloc = alloc

    def __repr__(self) -> str:
        return (
            f"Running(job={self.job.index}, cluster={self.cluster}, start={self.start}, "
            f"expected_end={self.expected_end})"
        )


class Completion:
    """A job that has ended (killed: at its walltime). On a run with
    outages of nodes, `interrupted` is the kind of outage that ended it at
    `end` (None: none; end - start is then not its runtime), and `requeued`
    says that it went back to the queue to start again."""

    __slots__ = ("job", "cluster", "start", "end", "killed", "alloc", "interrupted", "requeued")

    def __init__(
        self,
        job: Job,
        cluster: int,
        start: int,
        end: int,
        killed: bool,
        alloc: Alloc | None,
        interrupted: OutageKind | None = None,
        requeued: bool = False,
    ) -> None:
        self.job = job
        self.cluster = cluster
        self.start = start
        self.end = end
        self.killed = killed
        self.alloc = alloc
        self.interrupted = interrupted
        self.requeued = requeued


class Refusal:
    """An advance reservation (reserve) the engine refused."""

    __slots__ = ("job", "cluster", "at")

    def __init__(self, job: Job, cluster: int, at: int) -> None:
        self.job = job
        self.cluster = cluster
        self.at = at


@dataclass(frozen=True)
class Alloc:
    """Where a job runs on a cluster of nodes: tasks[k] of its tasks on node
    nodes[k], nodes in increasing order."""

    nodes: tuple[int, ...]
    tasks: tuple[int, ...]


class Nodes:
    """What each node of a cluster has free: cores, memory (bytes) and
    GPUs, lists indexed by node. The host updates them in place; a policy
    must not change them. `changed` lists the nodes changed since the
    previous call."""

    __slots__ = ("cores", "memory", "gpus", "changed")

    def __init__(self, cluster: Cluster) -> None:
        self.cores: list[int] = []
        self.memory: list[int] = []
        self.gpus: list[int] = []
        for g in cluster.nodes:
            self.cores += [g.cores] * g.count
            self.memory += [g.memory] * g.count
            self.gpus += [g.gpus] * g.count
        self.changed: list[int] = []


class State:
    """What the engine shows a policy at a scheduling point. `queue` holds
    the waiting jobs in submit order, `running` the running jobs by
    (expected_end, index), `free` the free amount of each resource of each
    cluster; `completed` and `refused` what happened since the previous
    call; `power` the nodes' power modes and the draw, on a run with a power
    model (None otherwise); `outages`, on a run with outages of nodes, the
    outages the policy knows of in Go's sdk.CompareOutages order: every
    maintenance window not yet over, the failures and drains in effect and
    the nodes the policy drained (empty on a run without outages); `io`, on
    a run with an I/O model, where each running job is in its data phases,
    by job index (None otherwise; a running job's expected end stays its
    start plus its walltime, the latest it can end). It stays
    valid after the call, but changes at the next: copy what you keep, and
    change nothing."""

    __slots__ = (
        "now",
        "platform",
        "queue",
        "running",
        "free",
        "free_units",
        "nodes",
        "completed",
        "refused",
        "power",
        "outages",
        "io",
    )

    def __init__(self, platform: Platform) -> None:
        self.now = 0
        self.platform = platform
        self.queue: list[Job] = []
        self.running: list[Running] = []
        self.free: list[list[int]] = [list(c.capacity) for c in platform.clusters]
        self.free_units: list[list[int]] | None = None
        if any(c.units for c in platform.clusters):
            self.free_units = [[x for u in c.units for x in u.capacity] for c in platform.clusters]
        self.nodes: list[Nodes | None] | None = None
        if platform.has_nodes:
            self.nodes = [Nodes(c) if c.nodes else None for c in platform.clusters]
        self.completed: list[Completion] = []
        self.refused: list[Refusal] = []
        self.power: PowerState | None = None
        self.outages: list[Outage] = []
        self.io: dict[int, JobIO] | None = None


class Action(IntEnum):
    """What a Decision asks the engine to do (Go's sdk.Action)."""

    START = 1
    PROMISE = 2
    WAKE = 3
    SHIP = 4
    RESERVE = 5
    CHARGE = 6
    REJECT = 7
    POWER_ON = 8
    POWER_OFF = 9
    DRAIN = 10
    RESUME = 11


class Decision:
    """One thing a policy asks of the engine. Build it with start, promise,
    wake_at, ship, reserve, charge, reject, drain_nodes, resume_nodes,
    power_on or power_off."""

    __slots__ = ("action", "job", "cluster", "time", "cost", "units", "alloc", "nodes")

    def __init__(
        self,
        action: Action,
        job: Job | None,
        cluster: int = 0,
        time: int = 0,
        cost: float = 0.0,
        units: Sequence[int] | None = None,
        alloc: Alloc | None = None,
        nodes: Sequence[int] | None = None,
    ) -> None:
        self.action = action
        self.job = job
        self.cluster = cluster
        self.time = time
        self.cost = cost
        self.units = units
        self.alloc = alloc
        self.nodes = nodes

    def __repr__(self) -> str:
        j = None if self.job is None else self.job.index
        return f"Decision({self.action.name}, job={j}, cluster={self.cluster}, time={self.time})"


def start(job: Job, cluster: int = 0, *, units: Sequence[int] | None = None, alloc: Alloc | None = None) -> Decision:
    """Starts job on cluster now; units or alloc choose its placement (else
    the engine places it by the cluster's rule)."""
    return Decision(Action.START, job, cluster, 0, 0.0, units, alloc)


def promise(job: Job, at: int) -> Decision:
    """Records a reservation: job should start no later than at."""
    return Decision(Action.PROMISE, job, 0, at)


def wake_at(t: int) -> Decision:
    """Asks for a call at time t, later than now."""
    return Decision(Action.WAKE, None, 0, t)


def ship(job: Job, cluster: int) -> Decision:
    """Ships job to cluster now: it may start there job.transfer seconds later."""
    return Decision(Action.SHIP, job, cluster)


def reserve(job: Job, cluster: int, at: int) -> Decision:
    """Reserves job's request on cluster from time at for its walltime."""
    return Decision(Action.RESERVE, job, cluster, at)


def charge(job: Job, cost: float) -> Decision:
    """Records what job's allocation costs."""
    return Decision(Action.CHARGE, job, 0, 0, cost)


def reject(job: Job) -> Decision:
    """Takes job out of the queue unstarted, for good."""
    return Decision(Action.REJECT, job)


def drain_nodes(cluster: int, nodes: Sequence[int]) -> Decision:
    """Drains nodes of cluster, a cluster of nodes, in increasing order: from
    now they take no new job, and the jobs on them run to their end (Go's
    sdk.DrainNodes). A node the policy drained already is refused."""
    return Decision(Action.DRAIN, None, cluster, nodes=nodes)


def resume_nodes(cluster: int, nodes: Sequence[int]) -> Decision:
    """Returns nodes of cluster, which the policy drained, to service (Go's
    sdk.ResumeNodes); an outage of the platform in effect keeps its own rule."""
    return Decision(Action.RESUME, None, cluster, nodes=nodes)


def power_on(cluster: int, nodes: Sequence[int]) -> Decision:
    """Switches nodes of cluster on, in increasing order (Go's sdk.PowerOn):
    each must be off; it switches on (out of service) for its group's
    on_seconds, then is on. Only on a run with a power model
    (`state.power`); the engine refuses one that would take the committed
    draw over the cap."""
    return Decision(Action.POWER_ON, None, cluster, nodes=nodes)


def power_off(cluster: int, nodes: Sequence[int]) -> Decision:
    """Switches nodes of cluster off, in increasing order (Go's
    sdk.PowerOff): each must be on, in service and idle; it switches off
    for its group's off_seconds, then is off. Only on a run with a power
    model (`state.power`)."""
    return Decision(Action.POWER_OFF, None, cluster, nodes=nodes)


PARAM_TYPES = ("int", "float", "string", "bool")


@dataclass(frozen=True)
class Param:
    """A declared parameter: its type (int, float, string or bool), default
    (as a string, as in a manifest), documentation and allowed values."""

    name: str
    type: str
    default: str
    doc: str = ""
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.type not in PARAM_TYPES:
            raise ValueError(f"parameter {self.name!r}: type {self.type!r} is not one of {', '.join(PARAM_TYPES)}")
        if not isinstance(self.default, str):
            raise ValueError(f"parameter {self.name!r}: the default must be written as a string, as in a manifest")
        parse_value(self, self.default)

    def to_json(self) -> dict[str, Any]:
        """The JSON form a host reads (Go's sdk.Param)."""
        d: dict[str, Any] = {"name": self.name, "type": self.type, "default": self.default}
        if self.doc:
            d["doc"] = self.doc
        if self.choices:
            d["choices"] = list(self.choices)
        return d


def parse_value(p: Param, v: str) -> int | float | str | bool:
    """Reads value v of parameter p by its type, checking its choices."""
    out: int | float | str | bool
    try:
        if p.type == "int":
            out = int(v, 10)
        elif p.type == "float":
            out = float(v)
        elif p.type == "bool":
            low = v.lower()
            if low in ("1", "t", "true"):
                out = True
            elif low in ("0", "f", "false"):
                out = False
            else:
                raise ValueError(v)
        else:
            out = v
    except ValueError:
        raise ValueError(f"parameter {p.name!r}: {v!r} is not a valid {p.type}") from None
    if p.choices and v not in p.choices:
        raise ValueError(f"parameter {p.name!r}: {v!r} is not one of {', '.join(p.choices)}")
    return out


@dataclass
class Env:
    """What a policy learns once, at the start of a run: the platform, its
    parameters (typed values by name), the run's seed, a random stream
    seeded from it (draw all randomness from it), whether walltimes are
    exact runtimes, and the run's power and I/O models (None without)."""

    platform: Platform
    params: dict[str, int | float | str | bool]
    seed: int
    rand: Rand
    exact_estimates: bool = False
    power: Power | None = None
    io: IO | None = None
    """The run's I/O model (jobs that move data through the burst buffer);
    None without one."""


@dataclass
class Info:
    """What a policy says of itself."""

    name: str
    version: str
    description: str = ""
    params: list[Param] = field(default_factory=list)


class Policy:
    """A scheduling policy. Subclass it, name it, declare its parameters,
    and write schedule. The host makes one instance per run, calls init
    once, then schedule at every event time at which a job waits; the
    decisions are applied in order and the run fails on the first that is
    not feasible.

    `files` lists files beside the policy's source (its weights, a table)
    whose content is part of its identity: a change to any gives new run
    keys."""

    name: ClassVar[str] = ""
    version: ClassVar[str] = "0.0.0"
    description: ClassVar[str] = ""
    params: ClassVar[Sequence[Param]] = ()
    files: ClassVar[Sequence[str]] = ()

    def init(self, env: Env) -> None:
        """Prepares the policy for a run."""

    def schedule(self, state: State) -> Sequence[Decision]:
        """Returns the decisions for state."""
        raise NotImplementedError

    def notes(self) -> Notes | None:
        """Returns the policy's notes per job, or None for none: asked once,
        after the run's last call, of a policy class that defines it. Like
        the schedule, notes must depend only on the run's inputs, so that a
        rerun gives the same ones."""
        return None

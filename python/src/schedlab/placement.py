"""Placing a job's tasks on a cluster's nodes by the engine's rules: the
Python mirror of the Go SDK's sdk.Layout and sdk.Nodes (sdk/place.go,
sdk/nodes.go, sdk/nodestate.go), so that a Python policy (or the Gymnasium
environment) knows where the engine would place a job it starts without an
allocation, and whether it fits at all.

    from schedlab.placement import FreeNodes, Layout

    layout = Layout(state.platform.clusters[0])
    free = FreeNodes.of(layout, state.nodes[0])    # a copy to plan on
    alloc = free.place(job.tasks)                  # None: it does not fit now
    if alloc is not None:
        free.take(job.tasks, alloc)

The rules (sdk.Placement): without a node count, the rule's nodes take, one
after the other, as many tasks as fit on them until all are placed; with a
node count N, Count mod N nodes take ceil(Count/N) tasks and the others
floor(Count/N). first-fit goes in node order; best-fit in increasing order
of free cores, ties by index; contiguous takes the run of consecutive nodes
that starts lowest. Under a partition's max_nodes, when the rule's nodes
would be too many, the max_nodes nodes with the most room take the tasks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._model import Alloc, Cluster, Nodes, Tasks

FIRST_FIT = "first-fit"
BEST_FIT = "best-fit"
CONTIGUOUS = "contiguous"
PLACEMENTS = (FIRST_FIT, BEST_FIT, CONTIGUOUS)
"""The placement rules, the default (a cluster that names none) first."""

_NO_LIMIT = 1 << 30

Amount = tuple[int, int, int]
"""An amount of a node's resources: cores, memory (bytes), GPUs."""


class Layout:
    """What placing jobs needs to know of a cluster's nodes: each node's
    capacity and features, each partition's nodes and limits, the rule.
    Partition p is numbered as Tasks.partition numbers it: 0 is the
    default partition, p > 0 the cluster's partition p - 1; a cluster
    without partitions has partition 0 only, every node."""

    def __init__(self, cluster: Cluster) -> None:
        if not cluster.nodes:
            raise ValueError(f"cluster {cluster.name!r} has no nodes")
        rule = cluster.placement or FIRST_FIT
        if rule not in PLACEMENTS:
            raise ValueError(f"cluster {cluster.name!r}: placement {rule!r} is not one of {', '.join(PLACEMENTS)}")
        self.rule = rule
        self.features: tuple[str, ...] = tuple(sorted({f for g in cluster.nodes for f in g.features}))
        self.caps: list[Amount] = []
        self.feat: list[int] = []
        first = [0]
        for g in cluster.nodes:
            mask = 0
            for f in g.features:
                mask |= 1 << self.features.index(f)
            self.caps += [(g.cores, g.memory, g.gpus)] * g.count
            self.feat += [mask] * g.count
            first.append(first[-1] + g.count)
        self.parts: list[list[int]] = []
        self.in_part: list[list[bool]] = []
        self.max_nodes: list[int] = []
        self.max_walltime: list[int] = []
        self.uniform: list[bool] = []
        self._part_groups: list[list[int]] = []
        self._first = first
        names = [g.name for g in cluster.nodes]

        def add(groups: list[int], max_nodes: int, max_walltime: int) -> None:
            groups = sorted(groups)
            nodes = [k for gi in groups for k in range(first[gi], first[gi + 1])]
            inside = [False] * len(self.caps)
            for k in nodes:
                inside[k] = True
            self.parts.append(nodes)
            self.in_part.append(inside)
            self._part_groups.append(groups)
            alike = [(cluster.nodes[i].cores, cluster.nodes[i].memory, cluster.nodes[i].gpus) for i in groups]
            self.uniform.append(all(a == alike[0] for a in alike))
            self.max_nodes.append(max_nodes)
            self.max_walltime.append(max_walltime)

        if not cluster.partitions:
            add(list(range(len(cluster.nodes))), 0, 0)
        else:
            default = next((i for i, p in enumerate(cluster.partitions) if p.default), 0)
            for k in range(-1, len(cluster.partitions)):
                p = cluster.partitions[default if k < 0 else k]
                add([names.index(g) for g in p.groups], p.max_nodes, p.max_walltime)
        self.total: Amount = (
            sum(c[0] for c in self.caps),
            sum(c[1] for c in self.caps),
            sum(c[2] for c in self.caps),
        )

    def __len__(self) -> int:
        return len(self.caps)

    def fit(self, t: Tasks, k: int, free: Amount) -> int:
        """How many tasks of t node k takes with free free: 0 when it lacks
        a feature of t, or t is exclusive and the node not wholly free
        (Go's Layout.fit; partitions are not looked at)."""
        if self.feat[k] & t.features != t.features:
            return 0
        if t.exclusive and free != self.caps[k]:
            return 0
        x = free[0] // t.cores
        if t.memory > 0:
            x = min(x, free[1] // t.memory)
        if t.gpus > 0:
            x = min(x, free[2] // t.gpus)
        return x

    def held(self, t: Tasks, k: int, n: int) -> Amount:
        """What a job of tasks t holds on node k where it runs n tasks: the
        whole node when exclusive."""
        if t.exclusive:
            return self.caps[k]
        return (n * t.cores, n * t.memory, n * t.gpus)

    def demand(self, t: Tasks) -> Amount:
        """What a job of tasks t holds in all: its tasks' worth when shared;
        when exclusive, its nodes whole, each at the least any eligible
        node of its partition has (exact on nodes all alike)."""
        if not t.exclusive:
            return (t.count * t.cores, t.count * t.memory, t.count * t.gpus)
        least: Amount | None = None
        for gi in self._part_groups[t.partition]:
            k = self._first[gi]
            if self.feat[k] & t.features != t.features:
                continue
            c = self.caps[k]
            least = c if least is None else (min(least[0], c[0]), min(least[1], c[1]), min(least[2], c[2]))
        if least is None:
            least = (0, 0, 0)
        return (t.nodes * least[0], t.nodes * least[1], t.nodes * least[2])

    def holds_request(self, t: Tasks) -> bool:
        """Whether a job of tasks t holds demand(t) wherever it is placed:
        shared, or exclusive on a partition of nodes all alike."""
        return not t.exclusive or self.uniform[t.partition]

    def check(self, t: Tasks, walltime: int = 0) -> str | None:
        """Why tasks t cannot run on the cluster (None: they can), as Go's
        Layout.Check and CheckWalltime say: a malformed request, an unknown
        partition or feature, a node limit exceeded, more than the
        partition's nodes hold when all are free, or a walltime over the
        partition's limit."""
        if t.count < 1 or t.cores < 1 or t.memory < 0 or t.gpus < 0:
            return f"{t.count} tasks of {t.cores} cores, {t.memory} bytes and {t.gpus} GPUs: want at least one task"
        if t.nodes < 0 or t.nodes > t.count:
            return f"{t.nodes} nodes for {t.count} tasks"
        if t.exclusive and t.nodes == 0:
            return "an exclusive job names its number of nodes"
        if not 0 <= t.partition < len(self.parts):
            return f"partition {t.partition} of {len(self.parts) - 1}"
        if t.features >> len(self.features):
            return f"feature bits {t.features:#x}, the cluster has {len(self.features)} features"
        if self.max_nodes[t.partition] > 0 and t.nodes > self.max_nodes[t.partition]:
            return f"{t.nodes} nodes over the partition's limit of {self.max_nodes[t.partition]}"
        if FreeNodes(self).place(t) is None:
            return f"{t} does not fit partition {t.partition} even when every node is free"
        w = self.max_walltime[t.partition]
        if walltime and w > 0 and walltime > w:
            return f"walltime {walltime} s over the partition's limit of {w} s"
        return None


class _Share:
    """Hands out a job's tasks to nodes offered one after the other: all
    it can to each without a node count; with one, the balanced shares."""

    __slots__ = ("rem", "q", "hi", "lo", "by_nodes")

    def __init__(self, t: Tasks) -> None:
        self.by_nodes = t.nodes > 0
        if self.by_nodes:
            self.rem = 0
            self.q = t.count // t.nodes
            self.hi = t.count % t.nodes
            self.lo = t.nodes - self.hi
        else:
            self.rem = t.count
            self.q = self.hi = self.lo = 0

    def take(self, x: int) -> int:
        if not self.by_nodes:
            k = min(x, self.rem)
            self.rem -= k
            return k
        if x < self.q:
            return 0
        if self.hi > 0 and x > self.q:
            self.hi -= 1
            return self.q + 1
        if self.lo > 0:
            self.lo -= 1
            return self.q
        return 0

    def done(self) -> bool:
        return self.rem == 0 and self.hi == 0 and self.lo == 0


def _sorted_alloc(nodes: list[int], tasks: list[int]) -> Alloc:
    order = sorted(range(len(nodes)), key=nodes.__getitem__)
    return Alloc(tuple(nodes[i] for i in order), tuple(tasks[i] for i in order))


class FreeNodes:
    """What each node of a layout has free (cores, memory, GPUs lists by
    node index), to place jobs on, take what they hold and give it back.
    Built all free, or as a copy of the state's nodes (of)."""

    __slots__ = ("layout", "cores", "memory", "gpus")

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.cores = [c[0] for c in layout.caps]
        self.memory = [c[1] for c in layout.caps]
        self.gpus = [c[2] for c in layout.caps]

    @classmethod
    def of(cls, layout: Layout, nodes: Nodes | FreeNodes) -> FreeNodes:
        """A copy of what nodes (the state's, or another FreeNodes) have free."""
        n = cls.__new__(cls)
        n.layout = layout
        n.cores = list(nodes.cores)
        n.memory = list(nodes.memory)
        n.gpus = list(nodes.gpus)
        return n

    def free(self, k: int) -> Amount:
        """What node k has free."""
        return (self.cores[k], self.memory[k], self.gpus[k])

    def fit(self, t: Tasks, k: int) -> int:
        """How many tasks of t node k can take now (Go's Nodes.Fit)."""
        return self.layout.fit(t, k, (self.cores[k], self.memory[k], self.gpus[k]))

    def candidates(self, t: Tasks, within: FreeNodes | None = None) -> list[tuple[int, int]]:
        """The nodes of t's partition with room for a task of t, in index
        order, with what each takes; with within (nodes of the same
        layout), the room of each node is the lesser of the two's."""
        lay = self.layout
        caps, feat, need = lay.caps, lay.feat, t.features
        cores, memory, gpus = self.cores, self.memory, self.gpus
        out: list[tuple[int, int]] = []
        for k in lay.parts[t.partition]:
            if feat[k] & need != need:
                continue
            c = cores[k]
            if t.exclusive and (c, memory[k], gpus[k]) != caps[k]:
                continue
            x = c // t.cores
            if t.memory > 0:
                x = min(x, memory[k] // t.memory)
            if t.gpus > 0:
                x = min(x, gpus[k] // t.gpus)
            if x > 0 and within is not None:
                x = min(x, within.fit(t, k))
            if x > 0:
                out.append((k, x))
        return out

    def fits(self, t: Tasks, rule: str | None = None) -> bool:
        """Whether tasks t can be placed now by rule (the layout's by
        default): place(t, rule) is not None. Under first-fit and best-fit
        without a partition node limit the counts decide it, as Go's
        Watch.Fits says, without a placement."""
        rule = rule or self.layout.rule
        if rule == CONTIGUOUS or self.layout.max_nodes[t.partition] > 0:
            return self.place(t, rule) is not None
        cand = self.candidates(t)
        if t.nodes > 0:
            q = t.count // t.nodes
            lo = sum(1 for _, x in cand if x >= q)
            hi = sum(1 for _, x in cand if x > q)
            return lo >= t.nodes and hi >= t.count % t.nodes
        return sum(x for _, x in cand) >= t.count

    def place(self, t: Tasks, rule: str | None = None, within: FreeNodes | None = None) -> Alloc | None:
        """Where rule (the layout's by default) places tasks t now, nodes in
        increasing order; None when they do not fit (Go's Nodes.Place).
        With within, nodes of the same layout, each node's room is the
        lesser of what it has here and there (Go's PlaceWithin: where a
        job may run now without taking what a reservation holds later,
        within being the nodes as they will be then, the reservation
        taken)."""
        rule = rule or self.layout.rule
        max_nodes = self.layout.max_nodes[t.partition] or _NO_LIMIT
        if t.nodes > max_nodes:
            return None
        cand = self.candidates(t, within)
        if rule == CONTIGUOUS:
            return self._contiguous(t, cand, max_nodes)
        if rule == BEST_FIT:
            cores = self.cores
            cand.sort(key=lambda kx: (cores[kx[0]], kx[0]))
            a = self._in_order(t, cand, max_nodes)
            return None if a is None else _sorted_alloc(list(a.nodes), list(a.tasks))
        if rule != FIRST_FIT:
            raise ValueError(f"placement {rule!r} is not one of {', '.join(PLACEMENTS)}")
        return self._in_order(t, cand, max_nodes)

    def _in_order(self, t: Tasks, order: Sequence[tuple[int, int]], max_nodes: int) -> Alloc | None:
        s = _Share(t)
        nodes: list[int] = []
        tasks: list[int] = []
        for k, x in order:
            take = s.take(x)
            if take == 0:
                continue
            if len(nodes) + 1 > max_nodes:
                return self._capped(t, order, max_nodes)
            nodes.append(k)
            tasks.append(take)
            if s.done():
                return Alloc(tuple(nodes), tuple(tasks))
        return None

    def _capped(self, t: Tasks, order: Sequence[tuple[int, int]], max_nodes: int) -> Alloc | None:
        """t (no node count) on at most max_nodes of order's nodes: those
        with the most room (ties in order), filled in order."""
        best = sorted(range(len(order)), key=lambda pos: -order[pos][1])[:max_nodes]
        if sum(order[pos][1] for pos in best) < t.count:
            return None
        best.sort()
        rem = t.count
        nodes: list[int] = []
        tasks: list[int] = []
        for pos in best:
            if rem == 0:
                break
            k, x = order[pos]
            take = min(x, rem)
            nodes.append(k)
            tasks.append(take)
            rem -= take
        return _sorted_alloc(nodes, tasks)

    def _contiguous(self, t: Tasks, cand: list[tuple[int, int]], max_nodes: int) -> Alloc | None:
        need = t.count // t.nodes if t.nodes > 0 else 1
        run: list[tuple[int, int]] = []
        for k, x in cand:
            if x < need or (run and run[-1][0] != k - 1):
                a = self._try_run(t, run, max_nodes)
                if a is not None:
                    return a
                run = []
            if x >= need:
                run.append((k, x))
        return self._try_run(t, run, max_nodes)

    def _try_run(self, t: Tasks, run: list[tuple[int, int]], max_nodes: int) -> Alloc | None:
        """t on the lowest window of run (consecutive nodes) that holds it."""
        if not run:
            return None
        if t.nodes > 0:
            w = t.nodes
            q = t.count // t.nodes
            hi_need = t.count % t.nodes
            his = 0
            for b in range(len(run)):
                if run[b][1] > q:
                    his += 1
                if b >= w and run[b - w][1] > q:
                    his -= 1
                if b >= w - 1 and his >= hi_need:
                    return self._in_order(t, run[b - w + 1 : b + 1], max_nodes)
            return None
        rem = t.count
        total = 0
        b = 0
        for a in range(len(run)):
            while b < len(run) and total < rem:
                total += run[b][1]
                b += 1
            if total < rem:
                return None
            if b - a <= max_nodes:
                nodes: list[int] = []
                tasks: list[int] = []
                for i in range(a, b):
                    take = min(run[i][1], rem)
                    nodes.append(run[i][0])
                    tasks.append(take)
                    rem -= take
                return Alloc(tuple(nodes), tuple(tasks))
            total -= run[a][1]
        return None

    def take(self, t: Tasks, a: Alloc) -> Amount:
        """Takes what a job of tasks t holds on allocation a; returns the
        total taken. It does not check (place first)."""
        return self._move(t, a, -1)

    def release(self, t: Tasks, a: Alloc) -> Amount:
        """Gives back what a job of tasks t holds on allocation a; returns
        the total given back."""
        return self._move(t, a, 1)

    def _move(self, t: Tasks, a: Alloc, sign: int) -> Amount:
        held = self.layout.held
        c = m = g = 0
        for k, n in zip(a.nodes, a.tasks, strict=True):
            h = held(t, k, n)
            self.cores[k] += sign * h[0]
            self.memory[k] += sign * h[1]
            self.gpus[k] += sign * h[2]
            c += h[0]
            m += h[1]
            g += h[2]
        return (c, m, g)

    def free_in(self, partition: int) -> Amount:
        """What the nodes of a partition have free in all."""
        nodes = self.layout.parts[partition]
        return (
            sum(self.cores[k] for k in nodes),
            sum(self.memory[k] for k in nodes),
            sum(self.gpus[k] for k in nodes),
        )


def held_on(layout: Layout, t: Tasks, a: Alloc, partition: int | None = None) -> Amount:
    """What a job of tasks t holds on allocation a in all, or on the nodes
    of partition only."""
    c = m = g = 0
    for k, n in zip(a.nodes, a.tasks, strict=True):
        if partition is None or layout.in_part[partition][k]:
            h = layout.held(t, k, n)
            c, m, g = c + h[0], m + h[1], g + h[2]
    return (c, m, g)


COUNT = "count"
BATSCHED = "batsched"
READINGS = (COUNT, BATSCHED)
"""The readings of EASY's reservation on nodes, the Go easy's reservation
parameter: count (the capacity free at the shadow time on the nodes of the
head's partition beyond what the head holds is the extra capacity, which
jobs running past the shadow time consume; the classic rule) or batsched
(the head is placed at the shadow time, and a job running past it may
start only where that placement leaves room, as Batsim's batsched
easy_bf)."""

Release = tuple[int, Tasks, Alloc, Sequence[int]]
"""A job giving back what it holds: the time (its expected end), its
tasks, its allocation, and what it holds of each of the platform's
resources."""


class Reservation:
    """EASY's reservation for the first job that does not fit (the head) on
    a cluster of nodes, as the Go easy makes it: the shadow time is the
    first release time at which the head's request fits the free totals
    and its tasks are placed on the nodes, every release at that time
    counted; admit then says where a job that does not end by the shadow
    time may start without delaying the head, by the reading (READINGS).

    nodes and free are what is free now (this call's starts taken), in
    nodes and in totals; releases are the running jobs' and this call's
    starts', in order of time (running jobs first at one time). shadow is
    -1 when the head never fits (nodes out of service)."""

    def __init__(
        self,
        nodes: FreeNodes,
        free: Sequence[int],
        releases: Iterable[Release],
        tasks: Tasks,
        request: Sequence[int],
        reading: str = COUNT,
    ) -> None:
        if reading not in READINGS:
            raise ValueError(f"reading {reading!r} is not one of {', '.join(READINGS)}")
        layout = nodes.layout
        self.reading = reading
        self.partition = tasks.partition
        then = FreeNodes.of(layout, nodes)
        avail = list(free)
        shadow = -1
        for at, t, a, held in releases:
            if shadow >= 0 and at > shadow:
                break
            for k, x in enumerate(held):
                avail[k] += x
            then.release(t, a)
            if shadow < 0 and all(x <= avail[k] for k, x in enumerate(request)) and then.fits(tasks):
                shadow = at
        self.shadow = shadow
        self.then = then
        """The nodes at the shadow time (under batsched, with the head and
        the jobs admitted past the shadow time taken)."""
        self.extra: Amount = (0, 0, 0)
        """Under count, the extra capacity left on the head's partition."""
        if shadow < 0:
            return
        if reading == BATSCHED:
            at_shadow = then.place(tasks)
            assert at_shadow is not None
            then.take(tasks, at_shadow)
            return
        if layout.holds_request(tasks):
            held_head = layout.demand(tasks)
        else:
            at_shadow = then.place(tasks)
            assert at_shadow is not None
            held_head = held_on(layout, tasks, at_shadow)
        f = then.free_in(tasks.partition)
        self.extra = (f[0] - held_head[0], f[1] - held_head[1], f[2] - held_head[2])

    def admit(self, nodes: FreeNodes, t: Tasks) -> Alloc | None:
        """Where a job of tasks t that does not end by the shadow time may
        start now (nodes: what is free now) without delaying the head, or
        None; it consumes what the job takes from the reservation. Under
        batsched the allocation must be named in the start (the engine's
        own placement may differ); under count it is the rule's."""
        layout = nodes.layout
        if self.reading == BATSCHED:
            a = nodes.place(t, within=self.then)
            if a is not None:
                self.then.take(t, a)
            return a
        x = self.extra
        if t.partition == self.partition and layout.holds_request(t):
            d = layout.demand(t)
            if d[0] > x[0] or d[1] > x[1] or d[2] > x[2]:
                return None
        a = nodes.place(t)
        if a is None:
            return None
        inside = held_on(layout, t, a, self.partition)
        if inside[0] > x[0] or inside[1] > x[1] or inside[2] > x[2]:
            return None
        self.extra = (x[0] - inside[0], x[1] - inside[1], x[2] - inside[2])
        return a


__all__ = [
    "BATSCHED",
    "BEST_FIT",
    "CONTIGUOUS",
    "COUNT",
    "FIRST_FIT",
    "PLACEMENTS",
    "READINGS",
    "Amount",
    "FreeNodes",
    "Layout",
    "Release",
    "Reservation",
    "held_on",
]

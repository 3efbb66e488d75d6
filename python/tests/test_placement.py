"""schedlab.placement, the Python mirror of the SDK's placement rules:
hand-worked placements under each rule, and on random nodes the count
test (fits) agreeing with the placement, which holds what it says."""

from __future__ import annotations

import pytest

from schedlab import Alloc, Cluster, NodeGroup, Partition, Rand, Tasks
from schedlab.placement import BEST_FIT, CONTIGUOUS, FIRST_FIT, PLACEMENTS, FreeNodes, Layout


def cluster(groups: list[NodeGroup], partitions: tuple[Partition, ...] = (), rule: str = "") -> Cluster:
    cores = sum(g.count * g.cores for g in groups)
    return Cluster("c", (cores,), nodes=tuple(groups), partitions=partitions, placement=rule)


def tasks(count: int, cores: int = 1, *, nodes: int = 0, exclusive: bool = False, memory: int = 0,
          partition: int = 0, features: int = 0) -> Tasks:  # fmt: skip
    return Tasks(count, cores, memory, 0, nodes, exclusive, partition, features)


def test_rules_by_hand() -> None:
    lay = Layout(cluster([NodeGroup("n", 3, 4)]))
    free = FreeNodes(lay)
    free.take(tasks(2), free.place(tasks(2)) or pytest.fail("2 tasks on 12 free cores"))
    assert free.cores == [2, 4, 4]
    # First fit: node 0's 2 free cores, then 3 on node 1.
    a = free.place(tasks(5))
    assert a is not None and (a.nodes, a.tasks) == ((0, 1), (2, 3))
    # Best fit: the node with the fewest free cores first.
    a = free.place(tasks(2), BEST_FIT)
    assert a is not None and (a.nodes, a.tasks) == ((0,), (2,))
    # A node count balances the shares: 5 tasks on 2 nodes are 3 and 2;
    # node 0 holds only the smaller share.
    a = free.place(tasks(5, nodes=2))
    assert a is not None and (a.nodes, a.tasks) == ((0, 1), (2, 3))
    # Exclusive: whole nodes only.
    a = free.place(tasks(2, nodes=2, exclusive=True))
    assert a is not None and a.nodes == (1, 2)
    assert free.place(tasks(3, nodes=3, exclusive=True)) is None
    assert not free.fits(tasks(3, nodes=3, exclusive=True))


def test_contiguous_by_hand() -> None:
    lay = Layout(cluster([NodeGroup("n", 4, 1)], rule=CONTIGUOUS))
    free = FreeNodes(lay)
    free.take(tasks(1), Alloc((1,), (1,)))
    a = free.place(tasks(2))
    assert a is not None and a.nodes == (2, 3)
    free.take(tasks(1), Alloc((2,), (1,)))
    # Nodes 0 and 3 are free: two cores, but not two consecutive nodes.
    assert free.place(tasks(2)) is None and not free.fits(tasks(2))
    a = free.place(tasks(2), FIRST_FIT)
    assert a is not None and a.nodes == (0, 3)


def test_partition_limits_features_and_memory() -> None:
    groups = [NodeGroup("a", 3, 4, memory=8), NodeGroup("b", 2, 8, memory=8, features=("fast",))]
    parts = (Partition("all", ("a", "b"), default=True), Partition("small", ("a",), max_nodes=2, max_walltime=60))
    lay = Layout(cluster(groups, parts))
    assert lay.parts == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2]]
    assert lay.uniform == [False, False, True]
    free = FreeNodes(lay)
    free.take(tasks(3, partition=2), Alloc((0,), (3,)))
    free.take(tasks(1, partition=2), Alloc((1,), (1,)))
    # Partition "small" at most 2 nodes: first fit would take 1 + 3 + 4
    # cores on three nodes; the two with the most room (2 and 1) take 7.
    a = free.place(tasks(7, partition=2))
    assert a is not None and (a.nodes, a.tasks) == ((1, 2), (3, 4))
    assert free.place(tasks(8, partition=2)) is None
    # The feature keeps a job on group b's nodes.
    a = free.place(tasks(9, features=1))
    assert a is not None and a.nodes == (3, 4)
    # Memory: 3 bytes a task, 8 a node: at most 2 tasks a node. Node 0
    # has 1 core free, nodes 1 and 2 take 2 each, node 3 the last.
    a = free.place(tasks(6, memory=3))
    assert a is not None and (a.nodes, a.tasks) == ((0, 1, 2, 3), (1, 2, 2, 1))
    assert lay.demand(tasks(2, nodes=2, exclusive=True)) == (8, 16, 0)
    assert lay.check(tasks(13, partition=2)) is not None
    assert lay.check(tasks(1, partition=2), walltime=61) is not None
    assert lay.check(tasks(1, partition=2), walltime=60) is None


@pytest.mark.parametrize("rule", PLACEMENTS)
def test_fits_agrees_with_place(rule: str) -> None:
    """On random nodes partly taken, fits(t) is place(t) is not None, and a
    placement holds the tasks: node count, the partition's limit, room on
    each node, nodes in order and in the partition."""
    r = Rand(11, 0xF17)
    tried = placed = 0
    for _ in range(60):
        groups = []
        for i in range(1 + r.int_n(3)):
            memory = r.int_n(2) * (1 + r.int_n(16))
            groups.append(NodeGroup(f"g{i}", 1 + r.int_n(8), 1 + r.int_n(8), memory, features=("f",) * r.int_n(2)))
        parts: tuple[Partition, ...] = ()
        if r.int_n(2):
            parts = (
                Partition("all", tuple(g.name for g in groups)),
                Partition("one", ("g0",), max_nodes=1 + r.int_n(3)),
            )
        lay = Layout(cluster(groups, parts, rule))
        free = FreeNodes(lay)
        for _ in range(40):
            p = r.int_n(len(lay.parts))
            t = tasks(
                1 + r.int_n(12),
                1 + r.int_n(4),
                nodes=r.int_n(3),
                exclusive=r.int_n(4) == 0,
                memory=r.int_n(3),
                partition=p,
                features=r.int_n(2) if lay.features else 0,
            )
            if t.exclusive and t.nodes == 0 or t.nodes > t.count:
                continue
            tried += 1
            a = free.place(t)
            assert free.fits(t) == (a is not None), t
            if a is None:
                continue
            placed += 1
            assert sum(a.tasks) == t.count and list(a.nodes) == sorted(set(a.nodes))
            assert t.nodes == 0 or len(a.nodes) == t.nodes
            assert lay.max_nodes[p] == 0 or len(a.nodes) <= lay.max_nodes[p]
            for k, n in zip(a.nodes, a.tasks, strict=True):
                assert lay.in_part[p][k] and 1 <= n <= free.fit(t, k)
            free.take(t, a)
            assert min(free.cores) >= 0 and min(free.memory) >= 0
    assert tried > 1000 and 0.1 < placed / tried < 0.9


def test_within_by_hand() -> None:
    """place(within=) bounds each node's room by another state's, as Go's
    PlaceWithin: now node 0 has 4 cores free and node 1 has 2; then node 0
    has 1 and node 1 has 4. Two tasks take a core on each."""
    lay = Layout(cluster([NodeGroup("n", 2, 4)]))
    now, then = FreeNodes(lay), FreeNodes(lay)
    now.take(tasks(2), Alloc((1,), (2,)))
    then.take(tasks(3), Alloc((0,), (3,)))
    a = now.place(tasks(2), within=then)
    assert a is not None and (a.nodes, a.tasks) == ((0, 1), (1, 1))
    assert now.place(tasks(4), within=then) is None
    assert now.place(tasks(1, nodes=1, exclusive=True), within=then) is None
    a = now.place(tasks(4))
    assert a is not None and (a.nodes, a.tasks) == ((0,), (4,))

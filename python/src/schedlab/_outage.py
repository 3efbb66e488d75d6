"""Outages of nodes as a policy sees them: the Python mirror of the Go
SDK's sdk.Outage, sdk.OutageKind and sdk.WindowNodes (sdk/outage.go,
sdk/windows.go)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._model import State


class OutageKind(IntEnum):
    """Why nodes are out of service (Go's sdk.OutageKind)."""

    FAILURE = 1
    """The nodes failed at start, ending the jobs on them; when they come
    back is not known (end is -1 while the failure lasts)."""
    DRAIN = 2
    """From start to end the nodes take no new job; the jobs on them run
    to their end."""
    MAINTENANCE = 3
    """From start to end the nodes are out of service, known from the
    run's start, as a Slurm maintenance reservation is."""
    POLICY_DRAIN = 4
    """The policy drained the node (drain_nodes) until it resumes it (end
    is -1)."""


class Outage:
    """A span of time [start, end) during which nodes of a cluster of nodes
    are out of service (Go's sdk.Outage): `nodes` in increasing order, none
    meaning every node of the cluster; `end` -1 when not known (a failure
    in effect, a node the policy drained)."""

    __slots__ = ("cluster", "nodes", "start", "end", "kind")

    def __init__(self, cluster: int, nodes: tuple[int, ...], start: int, end: int, kind: OutageKind) -> None:
        self.cluster = cluster
        self.nodes = nodes
        self.start = start
        self.end = end
        self.kind = kind

    def covers(self, k: int) -> bool:
        """Whether node k is one of the outage's (Go's Covers)."""
        if not self.nodes:
            return True
        i = bisect_left(self.nodes, k)
        return i < len(self.nodes) and self.nodes[i] == k

    def all(self, n: int) -> Iterator[int]:
        """The outage's nodes on a cluster of n nodes, in increasing order
        (Go's All)."""
        if self.nodes:
            yield from self.nodes
        else:
            yield from range(n)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outage):
            return NotImplemented
        return (self.cluster, self.nodes, self.start, self.end, self.kind) == (
            other.cluster,
            other.nodes,
            other.start,
            other.end,
            other.kind,
        )

    def __hash__(self) -> int:
        return hash((self.cluster, self.nodes, self.start, self.end, self.kind))

    def __repr__(self) -> str:
        return (
            f"Outage(cluster={self.cluster}, nodes={self.nodes}, start={self.start}, end={self.end}, "
            f"kind={self.kind.name})"
        )


def window_nodes(state: State, cluster: int, walltime: int) -> Iterator[int]:
    """The nodes of `cluster` that a maintenance window ahead in
    `state.outages` (one that begins after now) reaches before a job
    starting now with `walltime` would end: the nodes a policy sets aside
    for that job, as the engine's hard maintenance rule requires (a node
    under several such windows comes once for each; Go's sdk.WindowNodes)."""
    nodes = state.nodes
    if nodes is None or cluster < 0 or cluster >= len(nodes) or nodes[cluster] is None:
        return
    n = state.platform.clusters[cluster].node_count
    now = state.now
    for o in state.outages:
        if o.kind != OutageKind.MAINTENANCE or o.cluster != cluster or o.start <= now or o.start >= now + walltime:
            continue
        yield from o.all(n)

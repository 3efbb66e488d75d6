"""Testing a Python policy through schedlab's real host, as the Go SDK's
policytest does for Go policies: hand scenarios with the starts they must
get, random workloads with invariants, no state carried between runs.

    from schedlab import policytest

    def test_backfills(host):          # host: a policytest.Host fixture
        sc = policytest.Scenario(procs=10, jobs=[
            policytest.Job(1, submit=0, runtime=10, walltime=20, procs=6),
            policytest.Job(2, submit=1, runtime=5, walltime=10, procs=6),
            policytest.Job(3, submit=2, runtime=3, walltime=5, procs=2),
        ])
        runs = host.run("my_policy.py", sc)
        assert runs[3].start == 2

On nodes, a scenario has a platform (schedlab.nodes_platform) and each job
its tasks; random_node_scenario draws both from a seed.

Every run is a run of the engine in a `schedlab serve-env` process (the
`schedlab` command on PATH, or $SCHEDLAB), the policy in a plugin process of
its own, served by this package, and its schedule verified as any run's is:
what passes here passes in a campaign.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._model import NodeGroup, Partition, Platform, Tasks, nodes_platform
from ._service import Service
from .placement import PLACEMENTS, Layout
from .rand import Rand


@dataclass(frozen=True)
class Job:
    """A job of a scenario: what its user declared, and its actual runtime.
    On a platform of nodes, tasks says how it lies on them (its request is
    then what they hold, and procs is not read)."""

    id: int
    submit: int
    runtime: int
    walltime: int
    procs: int
    user: int = 0
    tasks: Tasks | None = None


@dataclass
class Scenario:
    """A small workload on a pool of procs processors, or on platform, one
    cluster of nodes (nodes_platform; procs is then not read), where
    every job gives its tasks."""

    procs: int
    jobs: list[Job]
    name: str = ""
    platform: Platform | None = None


@dataclass(frozen=True)
class Record:
    """What became of a job in a run: its start and end, its first promised
    start (None without one), and whether it reached its walltime."""

    id: int
    start: int
    end: int
    promised: int | None
    killed: bool


@dataclass
class Run:
    """A run's records by job id, and the engine's summary (mean_wait,
    mean_bsld, utilisation, ...)."""

    records: dict[int, Record]
    summary: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, job_id: int) -> Record:
        return self.records[job_id]

    def starts(self) -> dict[int, int]:
        """Each job's start, by id."""
        return {i: r.start for i, r in self.records.items()}


class RunError(AssertionError):
    """A run that failed: the host refused the schedule, or the policy
    failed; the message is the host's."""


def _ref(policy: str | os.PathLike[str]) -> str:
    """A policy as serve-env resolves it: a file by its absolute path (the
    process's folder is not the caller's), a reference policy by name."""
    p = os.fspath(policy)
    return os.path.abspath(p) if os.path.exists(p) else p


class Host:
    """Runs policies on scenarios through a schedlab serve-env process,
    which keeps a policy's plugin process from run to run (as campaigns do)
    unless a run asks for a fresh one. Close it when done (or use it as a
    context manager)."""

    def __init__(self, schedlab: str | None = None) -> None:
        self._service = Service(schedlab)

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Ends the serve-env process, and the policies' processes."""
        self._service.close()

    def run(
        self,
        policy: str | os.PathLike[str],
        scenario: Scenario,
        params: Mapping[str, str] | None = None,
        *,
        seed: int = 1,
        exact: bool = False,
        fresh: bool = False,
    ) -> Run:
        """Runs policy (a Python file, a plugin binary or a reference
        policy's name) on scenario; raises RunError when the run fails."""
        policy = _ref(policy)
        jobs = []
        for j in scenario.jobs:
            job: dict[str, Any] = {
                "id": j.id,
                "submit": j.submit,
                "runtime": j.runtime,
                "walltime": j.walltime,
                "procs": j.procs,
                "user": j.user,
            }
            if j.tasks is not None:
                t = j.tasks
                job["tasks"] = {
                    "count": t.count,
                    "cores": t.cores,
                    "memory": t.memory,
                    "gpus": t.gpus,
                    "nodes": t.nodes,
                    "exclusive": t.exclusive,
                    "partition": t.partition,
                    "features": t.features,
                }
            jobs.append(job)
        req: dict[str, Any] = {
            "policy": policy,
            "params": dict(params or {}),
            "procs": scenario.procs,
            "jobs": jobs,
            "seed": seed,
            "exact": exact,
            "fresh": fresh,
        }
        if scenario.platform is not None:
            req["platform"] = scenario.platform.to_json()
        doc = self._service.ask(req)
        return self._records(policy, f"scenario {scenario.name}".rstrip(), doc)

    @staticmethod
    def _records(policy: str, what: str, doc: dict[str, Any]) -> Run:
        if doc.get("error"):
            raise RunError(f"{policy} on {what}: {doc['error']}")
        recs = {}
        for i, job_id in enumerate(doc["ids"]):
            p = doc["promised"][i]
            recs[job_id] = Record(job_id, doc["starts"][i], doc["ends"][i], None if p < 0 else p, doc["killed"][i])
        return Run(recs, doc.get("summary") or {})

    def run_trace(
        self,
        policy: str | os.PathLike[str],
        first: int,
        count: int,
        trace: str | os.PathLike[str] = "",
        params: Mapping[str, str] | None = None,
        *,
        seed: int = 1,
        exact: bool = False,
        nodes: Mapping[str, Any] | None = None,
    ) -> Run:
        """Runs policy on the jobs first to first+count-1 of a trace (with
        schedlab's default cleaning; "" is the KTH-SP2 log schedlab ships),
        the windows of schedlab.gym's episodes. nodes, when given, makes
        the platform one of nodes as `schedlab sim`'s node flags do, with
        the same names: {"nodes": 25, "cores_per_node": 4, "allocation":
        "shared"} or {"machine": "SDSC-BLUE"}; the window is then of the
        jobs the mapping onto the nodes keeps."""
        policy = _ref(policy)
        req: dict[str, Any] = {
            "policy": policy,
            "params": dict(params or {}),
            "trace": os.path.abspath(trace) if trace else "",
            "first": first,
            "count": count,
            "seed": seed,
            "exact": exact,
        }
        if nodes is not None:
            req["nodes"] = dict(nodes)
        doc = self._service.ask(req)
        return self._records(policy, f"jobs {first} to {first + count - 1}", doc)

    def check(
        self,
        policy: str | os.PathLike[str],
        scenario: Scenario,
        *invariants: Callable[[Scenario, Run], None],
        params: Mapping[str, str] | None = None,
        exact: bool = False,
    ) -> Run:
        """Runs policy on scenario and checks each invariant on the run."""
        run = self.run(policy, scenario, params, exact=exact)
        for inv in invariants:
            inv(scenario, run)
        return run

    def no_state_between_runs(
        self,
        policy: str | os.PathLike[str],
        scenarios: Sequence[Scenario],
        params: Mapping[str, str] | None = None,
    ) -> None:
        """Each scenario run in a fresh process, then all of them one after
        the other in one process, twice: every run must give the records of
        the fresh one. A policy that keeps state in its module, or from one
        run to the next, fails."""
        fresh = [self.run(policy, sc, params, fresh=True).records for sc in scenarios]
        for rnd in range(2):
            for k, sc in enumerate(scenarios):
                got = self.run(policy, sc, params).records
                if got != fresh[k]:
                    diff = [i for i in fresh[k] if fresh[k][i] != got.get(i)]
                    raise AssertionError(
                        f"scenario {sc.name or k} in a process that served runs before (round {rnd + 1}): "
                        f"jobs {diff[:10]} differ from a fresh process's run"
                    )


def expect_starts(want: Mapping[int, int]) -> Callable[[Scenario, Run], None]:
    """An invariant: each job of want starts at its time."""

    def check(sc: Scenario, run: Run) -> None:
        for job_id, at in want.items():
            got = run[job_id].start
            if got != at:
                raise AssertionError(f"scenario {sc.name}: job {job_id} starts at {got}, want {at}")

    return check


def starts_in_submit_order(sc: Scenario, run: Run) -> None:
    """An invariant: no job starts before one submitted before it (FCFS)."""
    order = sorted(sc.jobs, key=lambda j: (j.submit, j.id))
    last = None
    for j in order:
        start = run[j.id].start
        if last is not None and start < last[1]:
            raise AssertionError(f"scenario {sc.name}: job {j.id} starts at {start}, before job {last[0]} at {last[1]}")
        last = (j.id, start)


def promises_kept(sc: Scenario, run: Run) -> None:
    """An invariant: every job promised a start started by it (with exact
    estimates, EASY's and conservative backfilling's promise)."""
    for r in run.records.values():
        if r.promised is not None and r.start > r.promised:
            raise AssertionError(f"scenario {sc.name}: job {r.id} promised {r.promised}, started {r.start}")


def random_scenario(seed: int, jobs: int = 100, procs: int = 64, name: str = "") -> Scenario:
    """A random workload drawn from seed: arrivals every 0 to 99 s, runtimes
    of 1 s to 2 h, requests of 1 processor to the whole pool (half of them
    powers of two), walltimes from the runtime to three times it (one in
    ten shorter: killed), ten users."""
    r = Rand(seed, 0x90_11C7)
    out: list[Job] = []
    t = 0
    for i in range(jobs):
        t += r.int_n(100)
        runtime = 1 + r.int_n(7200)
        if r.int_n(2) == 0:
            size = 1 << r.int_n(max(1, procs.bit_length() - 1))
        else:
            size = 1 + r.int_n(procs)
        walltime = runtime + r.int_n(2 * runtime + 1)
        if r.int_n(10) == 0:
            walltime = max(1, runtime // 2)
        out.append(Job(i + 1, t, runtime, walltime, min(size, procs), r.int_n(10)))
    return Scenario(procs, out, name or f"random-{seed}")


def scenarios(seeds: Iterable[int], jobs: int = 100, procs: int = 64) -> list[Scenario]:
    """random_scenario for each seed."""
    return [random_scenario(s, jobs, procs) for s in seeds]


GiB = 1 << 30


def random_nodes(seed: int) -> Platform:
    """A platform of nodes drawn from seed, as the Go policytest's
    RandomNodes draws one (not the same draws): one to three groups of 1 to
    12 nodes of 1 to 16 cores, memory (1 to 64 GiB a node) on all of them
    half the time, 1 to 4 GPUs on a group a third of the time, a feature
    (f0 or f1) on a group a third of the time; half the time two
    partitions, "all" (the default, every group) and "one" (the first group,
    at most 50 to 249 s of walltime and 1 to all its nodes a job); a
    placement rule drawn among the three."""
    r = Rand(seed, 0x0DE5)
    memory = r.int_n(2) == 0
    groups = []
    for g in range(1 + r.int_n(3)):
        count, cores = 1 + r.int_n(12), 1 + r.int_n(16)
        mem = (1 + r.int_n(64)) * GiB if memory else 0
        gpus = 1 + r.int_n(4) if r.int_n(3) == 0 else 0
        features = (f"f{r.int_n(2)}",) if r.int_n(3) == 0 else ()
        groups.append(NodeGroup(f"g{g}", count, cores, mem, gpus, features))
    parts: tuple[Partition, ...] = ()
    if r.int_n(2) == 0:
        parts = (
            Partition("all", tuple(g.name for g in groups), default=True),
            Partition("one", (groups[0].name,), max_walltime=50 + r.int_n(200), max_nodes=1 + r.int_n(groups[0].count)),
        )
    return nodes_platform(f"random-nodes-{seed}", groups, parts, PLACEMENTS[r.int_n(len(PLACEMENTS))])


def random_tasks(r: Rand, layout: Layout, walltime: int) -> Tasks:
    """Tasks drawn from r that fit the nodes of layout when all are free
    and whose partition allows walltime, as the Go policytest's draw: a
    partition; one core a task half the time, else 1 to a node's cores;
    memory and GPUs half the time where the nodes have them; a feature a
    third of the time where there are some; one node half the time, else
    up to half the partition's; shared, shared on a node count, or
    exclusive on one, a third of the time each. Draws again until
    layout.check accepts them."""
    while True:
        part = r.int_n(len(layout.parts))
        nodes_of = layout.parts[part]
        cap = layout.caps[nodes_of[r.int_n(len(nodes_of))]]
        cores = 1 + r.int_n(cap[0]) if r.int_n(2) == 0 else 1
        memory = 1 + r.int_n(cap[1] // cores) if cap[1] > 0 and r.int_n(2) == 0 else 0
        gpus = 1 + r.int_n(cap[2]) if cap[2] > 0 and r.int_n(2) == 0 else 0
        features = 1 << r.int_n(len(layout.features)) if layout.features and r.int_n(3) == 0 else 0
        per_node = cap[0] // cores
        nodes = 1 + r.int_n(max(1, len(nodes_of) // 2))
        if r.int_n(2) == 0:
            nodes = 1
        count = max(1, r.int_n(per_node * nodes + 1))
        kind = r.int_n(3)
        t = Tasks(count, cores, memory, gpus, min(count, nodes) if kind < 2 else 0, kind == 0, part, features)
        if layout.check(t, walltime) is None:
            return t


def random_node_scenario(seed: int, jobs: int = 100, platform: Platform | None = None, name: str = "") -> Scenario:
    """A random workload on nodes drawn from seed: on platform, or on
    random_nodes(seed); arrivals every 0 to 99 s, runtimes of 1 s to 2 h,
    walltimes from the runtime to three times it (one in ten shorter:
    killed), ten users, and random_tasks (of a partition whose limit
    allows the walltime);
    one job in three repeats the previous job's tasks and walltime, as an
    array job's do."""
    plat = platform or random_nodes(seed)
    if len(plat.clusters) != 1 or not plat.clusters[0].nodes:
        raise ValueError(f"platform {plat.name!r}: random_node_scenario draws on one cluster of nodes")
    layout = Layout(plat.clusters[0])
    r = Rand(seed, 0x90_11C7)
    out: list[Job] = []
    t = 0
    tasks: Tasks | None = None
    walltime = 0
    for i in range(jobs):
        t += r.int_n(100)
        runtime = 1 + r.int_n(7200)
        if tasks is None or r.int_n(3) != 0:
            walltime = runtime + r.int_n(2 * runtime + 1)
            if r.int_n(10) == 0:
                walltime = max(1, runtime // 2)
            tasks = random_tasks(r, layout, walltime)
        out.append(Job(i + 1, t, runtime, walltime, tasks.count * tasks.cores, r.int_n(10), tasks))
    return Scenario(int(plat.clusters[0].capacity[0]), out, name or f"random-nodes-{seed}", plat)


def node_scenarios(seeds: Iterable[int], jobs: int = 100) -> list[Scenario]:
    """random_node_scenario for each seed, each on its own random_nodes."""
    return [random_node_scenario(s, jobs) for s in seeds]


__all__ = [
    "Host",
    "Job",
    "Record",
    "Run",
    "RunError",
    "Scenario",
    "expect_starts",
    "node_scenarios",
    "promises_kept",
    "random_node_scenario",
    "random_nodes",
    "random_scenario",
    "random_tasks",
    "scenarios",
    "starts_in_submit_order",
]

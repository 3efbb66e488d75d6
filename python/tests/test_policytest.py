"""policytest through the real host: hand scenarios, invariants, state
between runs, and failures that name their cause."""

from __future__ import annotations

from pathlib import Path

import pytest

import schedlab
from schedlab import policytest

HAND = policytest.Scenario(
    procs=10,
    name="hand",
    jobs=[
        policytest.Job(1, submit=0, runtime=10, walltime=20, procs=6),
        policytest.Job(2, submit=1, runtime=5, walltime=10, procs=6),
        policytest.Job(3, submit=2, runtime=3, walltime=5, procs=2),
        policytest.Job(4, submit=2, runtime=4, walltime=4, procs=4),
        policytest.Job(5, submit=3, runtime=40, walltime=30, procs=10),
    ],
)


def test_hand_scenario(host: policytest.Host, examples: Path) -> None:
    # By hand, FCFS on 10 processors: job 2 waits for job 1's end, job 3
    # starts with it, job 4 at job 3's end, job 5 (all 10) at job 4's end,
    # killed at its walltime.
    run = host.check(examples / "fcfs.py", HAND, policytest.expect_starts({1: 0, 2: 10, 3: 10, 4: 13, 5: 17}))
    assert run[5].killed and run[5].end == 47
    # EASY promises job 2 the end of job 1's walltime, 20, and backfills
    # job 3 at its submission: it ends by its walltime (7) before that;
    # job 1 ends at 10, and job 2 starts then.
    run = host.check(examples / "easy.py", HAND, policytest.expect_starts({1: 0, 2: 10, 3: 2}))
    assert run[2].promised == 20


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_invariants_on_random_workloads(host: policytest.Host, examples: Path, seed: int) -> None:
    sc = policytest.random_scenario(seed, jobs=150, procs=32)
    host.check(examples / "fcfs.py", sc, policytest.starts_in_submit_order)
    easy = host.check(examples / "easy.py", sc, policytest.promises_kept, exact=True)
    # The Python EASY is the Go one, start for start.
    assert easy.starts() == host.run("easy", sc, exact=True).starts()


def test_no_state_between_runs(host: policytest.Host, examples: Path, tmp_path: Path) -> None:
    scs = policytest.scenarios([4, 5], jobs=60, procs=16)
    host.no_state_between_runs(examples / "easy.py", scs)
    leaky = tmp_path / "leaky.py"
    leaky.write_text(
        "import schedlab\n\nCALLS = [0]\n\n"
        "class Leaky(schedlab.Policy):\n"
        "    name = 'leaky'\n\n"
        "    def schedule(self, state):\n"
        "        CALLS[0] += 1\n"
        "        if CALLS[0] > 300 and state.queue:\n"
        "            return [schedlab.start(j) for j in state.queue[-1:] if j.request[0] <= state.free[0][0]]\n"
        "        out, free = [], state.free[0][0]\n"
        "        for j in state.queue:\n"
        "            if j.request[0] > free:\n"
        "                break\n"
        "            free -= j.request[0]\n"
        "            out.append(schedlab.start(j))\n"
        "        return out\n"
    )
    with pytest.raises(AssertionError, match="served runs before"):
        host.no_state_between_runs(leaky, scs)


def test_failures_name_their_cause(host: policytest.Host, tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import schedlab\n\nclass Bad(schedlab.Policy):\n    name = 'bad'\n\n"
        "    def schedule(self, state):\n        return [schedlab.start(j) for j in state.queue]\n"
    )
    with pytest.raises(policytest.RunError, match="does not fit|free"):
        host.run(bad, HAND)
    with pytest.raises(policytest.RunError, match='unknown parameter "zz"'):
        host.run(Path(__file__).parent.parent / "examples" / "fcfs.py", HAND, {"zz": "1"})


def test_run_trace_on_nodes(host: policytest.Host) -> None:
    """A window of KTH-SP2 on nodes: as 100 exclusive nodes of one core,
    EASY starts every job when it does on the pool; on 25 shared nodes of 4
    cores it still runs every job; a spec the host refuses says why."""
    pool = host.run_trace("easy", 1000, 200)
    one = host.run_trace("easy", 1000, 200, nodes={"nodes": 100, "cores_per_node": 1})
    assert one.starts() == pool.starts()
    shared = host.run_trace("easy", 1000, 200, nodes={"nodes": 25, "cores_per_node": 4, "allocation": "shared"})
    assert len(shared.records) == 200
    with pytest.raises(policytest.RunError, match="cores_per_node"):
        host.run_trace("easy", 1000, 10, nodes={"nodes": 25})


def test_node_scenarios_from_the_seed() -> None:
    """One seed, one scenario; the draws cover the platforms' kinds, and
    every job's tasks fit its platform when all nodes are free."""
    from schedlab.placement import Layout

    a, b = policytest.random_node_scenario(3, jobs=50), policytest.random_node_scenario(3, jobs=50)
    assert a.platform == b.platform
    assert [(j.submit, j.runtime, j.walltime, repr(j.tasks)) for j in a.jobs] == [
        (j.submit, j.runtime, j.walltime, repr(j.tasks)) for j in b.jobs
    ]
    scs = policytest.node_scenarios(range(1, 21), jobs=50)
    rules, parted, exclusive = set(), 0, 0
    for sc in scs:
        assert sc.platform is not None
        cluster = sc.platform.clusters[0]
        layout = Layout(cluster)
        rules.add(layout.rule)
        parted += bool(cluster.partitions)
        for j in sc.jobs:
            assert j.tasks is not None and layout.check(j.tasks, j.walltime) is None
            exclusive += j.tasks.exclusive
    assert rules == {"first-fit", "best-fit", "contiguous"} and 0 < parted < 20 and exclusive > 0
    assert len({repr(sc.platform) for sc in scs}) == 20


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_fcfs_on_random_nodes(host: policytest.Host, examples: Path, seed: int) -> None:
    """The Python FCFS places jobs by schedlab.placement: on random nodes
    (every rule, partitions with node limits, features, memory, GPUs,
    exclusive jobs) it starts every job when the Go fcfs does, in submit
    order. The Go EASY keeps its promises there with exact estimates when
    its reservation holds the head's nodes (reservation=batsched); the
    classic count reading does not promise that on nodes."""
    sc = policytest.random_node_scenario(seed, jobs=120)
    py = host.check(examples / "fcfs.py", sc, policytest.starts_in_submit_order)
    assert py.starts() == host.run("fcfs", sc).starts()
    host.check("easy", sc, policytest.promises_kept, params={"reservation": "batsched"}, exact=True)


@pytest.mark.parametrize("reservation", ["count", "batsched"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_easy_on_random_nodes(host: policytest.Host, examples: Path, seed: int, reservation: str) -> None:
    """The Python EASY (schedlab.placement.Reservation) is the Go easy on
    random nodes under each reading of its reservation, start for start
    and promise for promise."""
    sc = policytest.random_node_scenario(seed, jobs=120)
    params = {"reservation": reservation}
    py = host.run(examples / "easy.py", sc, params)
    go = host.run("easy", sc, params)
    assert py.records == go.records


def test_no_state_between_runs_on_nodes(host: policytest.Host, examples: Path) -> None:
    scs = policytest.node_scenarios([7, 8], jobs=60)
    host.no_state_between_runs(examples / "fcfs.py", scs)
    host.no_state_between_runs(examples / "easy.py", scs, {"reservation": "batsched"})


def test_node_scenario_errors_name_the_job(host: policytest.Host) -> None:
    sc = policytest.random_node_scenario(2, jobs=5)
    jobs = list(sc.jobs)
    jobs[3] = policytest.Job(jobs[3].id, jobs[3].submit, 10, 10, 1)
    with pytest.raises(policytest.RunError, match=f"job {jobs[3].id}: a job on nodes needs tasks"):
        host.run("fcfs", policytest.Scenario(sc.procs, jobs, "no tasks", sc.platform))
    with pytest.raises(ValueError, match="one cluster of nodes"):
        policytest.random_node_scenario(1, platform=schedlab.nodes_platform("none", []))

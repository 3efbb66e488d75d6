"""The Gymnasium environment against schedlab's engine: Gymnasium's own
checks, determinism, and episodes whose picks make FCFS and EASY giving
those policies' schedules."""

from __future__ import annotations

from typing import Any

import pytest

gymnasium = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from schedlab.gym import ENV_ID, SchedulingEnv  # noqa: E402


def test_check_env(schedlab_cmd: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = SchedulingEnv(window=64, queue=16, schedlab=schedlab_cmd)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_registered(schedlab_cmd: str) -> None:
    env = gymnasium.make(ENV_ID, schedlab=schedlab_cmd)
    try:
        obs, info = env.reset(seed=3)
        assert obs.shape == (65, 6)
        assert info["settings"]["window"] == 256
    finally:
        env.close()


def trajectory(env: SchedulingEnv, seed: int, episodes: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    obs, info = env.reset(seed=seed)
    out.append((obs.tobytes(), info["first_job"]))
    done = 0
    while done < episodes:
        obs, r, term, trunc, info = env.step(int(rng.integers(0, env.queue_rows + 1)))
        out.append((obs.tobytes(), r, term))
        if term:
            done += 1
            out.append(info["starts"])
            obs, info = env.reset()
            out.append((obs.tobytes(), info["first_job"]))
    return out


def first_job_episode(env: SchedulingEnv, seed: int) -> tuple[Any, dict[str, Any]]:
    """Runs an episode of seed picking the first waiting job at every step;
    returns the last reward and info."""
    env.reset(seed=seed)
    term = False
    reward: Any = 0.0
    info: dict[str, Any] = {}
    while not term:
        _, reward, term, _, info = env.step(0)
    return reward, info


def test_one_seed_one_trajectory(schedlab_cmd: str) -> None:
    a = SchedulingEnv(window=128, schedlab=schedlab_cmd, backfill=True)
    b = SchedulingEnv(window=128, schedlab=schedlab_cmd, backfill=True)
    try:
        ta, tb = trajectory(a, 11, 3), trajectory(b, 11, 3)
        assert ta == tb
        assert trajectory(a, 12, 1) != ta[: len(trajectory(b, 12, 1))]
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize(("backfill", "policy"), [(False, "fcfs"), (True, "easy")])
def test_first_job_always_is_a_reference_policy(schedlab_cmd: str, backfill: bool, policy: str) -> None:
    """Picking the first waiting job every time is FCFS; with backfilling
    around a job that does not fit, EASY: every start equals the Go
    policy's on the same window."""
    env = SchedulingEnv(window=256, schedlab=schedlab_cmd, backfill=backfill)
    try:
        for seed in (1, 2, 3):
            reward, info = first_job_episode(env, seed)
            base = env.baseline(policy)
            assert info["starts"] == base["starts"], f"seed {seed}: window from job {info['first_job']}"
            assert reward == pytest.approx(-base["summary"]["mean_bsld"])
    finally:
        env.close()


def test_cleaning_settings(schedlab_cmd: str) -> None:
    # Clamping the 8 jobs of KTH-SP2 without a runtime, which the default
    # drops, keeps 28,475 jobs, the last window ending there.
    env = SchedulingEnv(schedlab=schedlab_cmd, clean={"nonpositive-runtime": "clamp"})
    try:
        _, info = env.reset(seed=1, options={"first": 28475 - 256})
        assert info["settings"]["clean"] == {"nonpositive-runtime": "clamp"}
        with pytest.raises(ValueError, match="the trace has 28475 jobs"):
            env.reset(seed=1, options={"first": 28475 - 255})
    finally:
        env.close()


def test_bad_settings(schedlab_cmd: str, tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="reward 'speed'"):
        SchedulingEnv(reward="speed", schedlab=schedlab_cmd)
    env = SchedulingEnv(trace=str(tmp_path / "absent.swf"), schedlab=schedlab_cmd)
    try:
        with pytest.raises(ValueError, match="absent.swf"):
            env.reset(seed=1)
    finally:
        env.close()


def test_doc_example(schedlab_cmd: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The example of docs/python.md runs as written."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "python.md").read_text()
    section = doc[doc.index("## Learning schedulers") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    monkeypatch.setenv("SCHEDLAB", schedlab_cmd)
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/python.md", "exec"), scope)
    scope["env"].close()
    printed = capsys.readouterr().out.split()
    assert len(printed) == 3
    reward, bsld, easy = map(float, printed)
    assert reward == -bsld
    assert easy >= 1.0


# Platforms of nodes.

SHARED = {"nodes": 25, "cores_per_node": 4, "allocation": "shared"}
GiB_KB = 1 << 20  # a GiB in the SWF's kilobytes (1 KB = 1,024 bytes)


def write_swf(path: Any, rows: list[tuple[int, int, int, int, int, int]], procs: int) -> str:
    """An SWF file of jobs (submit, runtime, processors, requested walltime,
    requested memory per processor in KB, user), numbered from 1."""
    lines = [f"; MaxProcs: {procs}"]
    for i, (submit, runtime, n, walltime, mem, user) in enumerate(rows):
        lines.append(f"{i + 1} {submit} -1 {runtime} {n} -1 -1 {n} {walltime} {mem} 1 {user} 1 -1 1 1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def memory_trace(path: Any, seed: int, jobs: int = 400) -> str:
    """A random trace drawn from seed whose jobs ask for 1 to 16 processors
    of 0.19 to 3 GiB each: on nodes of 8 cores and 16 GiB, memory leaves
    cores free that no task can use, so that fitting the free totals is
    not fitting a node."""
    rng = np.random.default_rng(seed)
    rows = []
    t = 0
    for _ in range(jobs):
        t += int(rng.integers(0, 120))
        runtime = int(rng.integers(1, 3600))
        walltime = runtime + int(rng.integers(0, 2 * runtime + 1))
        if rng.integers(10) == 0:
            walltime = max(1, runtime // 2)
        mem = int(rng.integers(3 * GiB_KB // 16, 3 * GiB_KB + 1))
        rows.append((t, runtime, int(rng.integers(1, 17)), walltime, mem, int(rng.integers(1, 11))))
    return write_swf(path, rows, 128)


def test_check_env_on_nodes(schedlab_cmd: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = SchedulingEnv(window=64, queue=16, nodes=SHARED, schedlab=schedlab_cmd)
    try:
        check_env(env, skip_render_check=True)
        obs, info = env.reset(seed=5)
        assert info["settings"]["nodes"] == SHARED
        # All 25 nodes are free before the first start: the summary says so.
        assert obs[16, 3] == 1.0 and obs[16, 4] == 1.0
    finally:
        env.close()


NODE_CASES = {
    "KTH-SP2 on 25 shared nodes": ("", SHARED),
    "KTH-SP2 on 25 exclusive nodes, contiguous": ("", {"nodes": 25, "cores_per_node": 4, "placement": "contiguous"}),
    "memory on 16 shared nodes": (
        "memory",
        {"nodes": 16, "cores_per_node": 8, "memory_per_node": "16GiB", "allocation": "shared"},
    ),
    "memory on 16 shared nodes, best-fit": (
        "memory",
        {"nodes": 16, "cores_per_node": 8, "memory_per_node": "16GiB", "allocation": "shared", "placement": "best-fit"},
    ),
}


@pytest.mark.parametrize("case", sorted(NODE_CASES))
@pytest.mark.parametrize(
    ("backfill", "reservation", "policy"),
    [(False, "count", "fcfs"), (True, "count", "easy"), (True, "batsched", "easy")],
)
def test_first_job_always_on_nodes(
    schedlab_cmd: str, tmp_path: Any, case: str, backfill: bool, reservation: str, policy: str
) -> None:
    """On nodes, picking the first waiting job every time is the Go FCFS
    and, with backfilling, the Go EASY under each reading of its
    reservation, start for start: the fit test and the backfilling place
    jobs as the engine does. The traces with memory make fitting the free
    totals differ from fitting a node."""
    trace, nodes = NODE_CASES[case]
    if trace == "memory":
        trace = memory_trace(tmp_path / "memory.swf", 7)
    env = SchedulingEnv(
        trace=trace, window=200, nodes=nodes, backfill=backfill, reservation=reservation, schedlab=schedlab_cmd
    )
    try:
        for seed in (1, 2):
            reward, info = first_job_episode(env, seed)
            base = env.baseline(policy, {"reservation": reservation} if backfill else None)
            assert info["starts"] == base["starts"], f"seed {seed}: window from job {info['first_job']}"
            assert reward == pytest.approx(-base["summary"]["mean_bsld"])
    finally:
        env.close()


def test_fits_the_cores_but_no_node(schedlab_cmd: str, tmp_path: Any) -> None:
    """Two nodes of 4 cores and 4 GiB, shared. Jobs 1 and 2 (1 processor,
    3 GiB, 100 s) take a node each, leaving 3 cores and 1 GiB on each.
    Job 3 (1 processor, 1.5 GiB) fits the free totals (6 cores, 2 GiB) but
    no node: its row reads 0 and the mask forbids it, while job 4 (0.5
    GiB) fits node 0. Job 3 starts at 100, when job 1 ends; on a pool of
    8 processors it would start at once."""
    trace = write_swf(
        tmp_path / "hand.swf",
        [
            (0, 100, 1, 100, 3 * GiB_KB, 1),
            (0, 100, 1, 100, 3 * GiB_KB, 1),
            (0, 10, 1, 10, 3 * GiB_KB // 2, 1),
            (0, 10, 1, 10, GiB_KB // 2, 1),
        ],
        8,
    )
    nodes = {"nodes": 2, "cores_per_node": 4, "memory_per_node": "4GiB", "allocation": "shared"}
    env = SchedulingEnv(trace=trace, window=4, queue=4, nodes=nodes, mask="fits", schedlab=schedlab_cmd)
    try:
        obs, _ = env.reset(seed=1)
        assert list(env.action_masks()) == [True, True, True, True, False]  # nothing runs: no waiting
        env.step(0)
        obs, *_ = env.step(0)
        assert list(obs[:2, 3]) == [0.0, 1.0]
        assert list(env.action_masks()) == [False, True, False, False, True]
        assert obs[4, 3] == 0.0  # no node is wholly free
        assert obs[4, 4] == 0.75  # 3 of a node's 4 cores at most
        obs, _, term, _, info = env.step(1)
        while not term:
            obs, _, term, _, info = env.step(0)
        assert info["starts"] == [0, 0, 100, 0]
    finally:
        env.close()
    pool = SchedulingEnv(trace=trace, window=4, queue=4, schedlab=schedlab_cmd)
    try:
        pool.reset(seed=1)
        term = False
        while not term:
            _, _, term, _, info = pool.step(0)
        assert info["starts"] == [0, 0, 0, 0]
    finally:
        pool.close()


def test_bad_node_settings(schedlab_cmd: str) -> None:
    with pytest.raises(ValueError, match="unknown setting 'cores'"):
        SchedulingEnv(nodes={"nodes": 4, "cores": 4}, schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="cores_per_node must be an int"):
        SchedulingEnv(nodes={"nodes": 4, "cores_per_node": "4"}, schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="procs"):
        SchedulingEnv(nodes=SHARED, procs=100, schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="mask 'some'"):
        SchedulingEnv(mask="some", schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="reservation 'both'"):
        SchedulingEnv(nodes=SHARED, reservation="both", schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="a pool has none"):
        SchedulingEnv(reservation="batsched", schedlab=schedlab_cmd)
    bad: list[tuple[dict[str, Any], str]] = [
        ({"nodes": 4, "cores_per_node": 4, "placement": "worst"}, "nodes.placement"),
        ({"nodes": 4}, "nodes.cores_per_node"),
    ]
    for nodes, key in bad:
        env = SchedulingEnv(nodes=nodes, schedlab=schedlab_cmd)
        try:
            with pytest.raises(ValueError, match=key):
                env.reset(seed=1)
        finally:
            env.close()


@pytest.mark.parametrize("reservation", ["count", "batsched"])
def test_easy_on_partitions(schedlab_cmd: str, tmp_path: Any, reservation: str) -> None:
    """On CEA-Curie's nodes (5,040 thin of 16 cores, 360 fat of 32, 144
    hybrid of 8, a partition each), a random trace whose jobs ask for up
    to a third of their partition's cores, exclusive: picking the first
    job with backfilling is the Go EASY, start for start, the extra
    capacity being that of the head's partition."""
    rng = np.random.default_rng(3)
    caps = {10: 80640, 4: 11520, 8: 1152}  # the trace's partition numbers (machine's table): cores
    lines = ["; MaxProcs: 93312"]
    t = 0
    for i in range(400):
        t += int(rng.integers(0, 60))
        part = [10, 4, 8][int(rng.integers(3))]
        n = int(rng.integers(1, caps[part] // 3))
        runtime = int(rng.integers(1, 3600))
        walltime = runtime + int(rng.integers(0, 2 * runtime + 1))
        lines.append(f"{i + 1} {t} -1 {runtime} {n} -1 -1 {n} {walltime} -1 1 1 1 -1 1 {part} -1 -1")
    trace = tmp_path / "curie.swf"
    trace.write_text("\n".join(lines) + "\n")
    nodes = {"machine": "CEA-Curie", "partitions": "machine"}
    env = SchedulingEnv(
        trace=str(trace), window=150, nodes=nodes, backfill=True, reservation=reservation, schedlab=schedlab_cmd
    )
    try:
        _, info = first_job_episode(env, 1)
        base = env.baseline("easy", {"reservation": reservation})
        assert info["starts"] == base["starts"]
        # A busy window: most jobs start by backfilling, without a pick.
        assert info["steps"] < 75
    finally:
        env.close()


OUTAGES = {"failure_model": "exponential", "mtbf": "3d", "mttr": "6h", "on_failure": "requeue"}
SHARED = {"nodes": 25, "cores_per_node": 4, "allocation": "shared"}


def test_outages(schedlab_cmd: str) -> None:
    """Episodes on nodes that fail: Gymnasium's checks pass, one seed gives
    one trajectory, failures end and requeue jobs (the episode's summary
    counts them), and, jobs killed rather than requeued (a requeued job
    takes its place ahead of the job the agent picked, which the agent
    then still starts first), picking the first waiting job gives the Go
    fcfs's schedule under the same failures."""
    from gymnasium.utils.env_checker import check_env

    env = SchedulingEnv(window=128, queue=16, nodes=SHARED, outages=OUTAGES, schedlab=schedlab_cmd)
    twin = SchedulingEnv(window=128, queue=16, nodes=SHARED, outages=OUTAGES, schedlab=schedlab_cmd)
    killing = SchedulingEnv(window=128, nodes=SHARED, outages=dict(OUTAGES, on_failure="kill"), schedlab=schedlab_cmd)
    try:
        check_env(env, skip_render_check=True)
        assert trajectory(env, 5, 2) == trajectory(twin, 5, 2)
        for e in (env, killing):
            ended = 0
            for seed in (1, 2, 3):
                _, info = first_job_episode(e, seed)
                assert info["settings"]["outages"] == e.outages
                ended += info["summary"]["attempts"]
                assert info["summary"]["availability"] < 1
                if e is killing:
                    base = e.baseline("fcfs")
                    assert info["starts"] == base["starts"], f"seed {seed}: window from job {info['first_job']}"
            assert ended > 0, "no failure ended a job: the test tests too little"
    finally:
        env.close()
        twin.close()
        killing.close()


def test_outages_backfill(schedlab_cmd: str) -> None:
    """With backfilling, picking the first waiting job is the Go easy under
    the same failures, also while the picked job needs nodes out of
    service (no reservation then: every job that fits starts)."""
    env = SchedulingEnv(
        window=128,
        nodes=SHARED,
        outages=dict(OUTAGES, mtbf="12h", on_failure="kill"),
        backfill=True,
        schedlab=schedlab_cmd,
    )
    try:
        for seed in (1, 2, 3, 4):
            _, info = first_job_episode(env, seed)
            base = env.baseline("easy")
            assert info["starts"] == base["starts"], f"seed {seed}: window from job {info['first_job']}"
    finally:
        env.close()


def test_bad_outages(schedlab_cmd: str) -> None:
    with pytest.raises(ValueError, match="outages are of nodes"):
        SchedulingEnv(outages=OUTAGES, schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="unknown setting 'mtfb'"):
        SchedulingEnv(nodes=SHARED, outages={"mtfb": "3d"}, schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="windows must be a list"):
        SchedulingEnv(nodes=SHARED, outages={"windows": "0,4h"}, schedlab=schedlab_cmd)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"windows": ["10d,4h,7d"]}, 'maintenance windows need maintenance = "soft"'),
        ({"failure_model": "exponential", "mtbf": "soon"}, 'outages.mtbf: "soon" is not a time'),
    ]
    for outages, want in cases:
        env = SchedulingEnv(window=64, nodes=SHARED, outages=outages, schedlab=schedlab_cmd)
        try:
            with pytest.raises(ValueError, match=want):
                env.reset(seed=1)
        finally:
            env.close()
    with pytest.raises(ValueError, match=r"seed must be from 0 to 2\*\*64 - 1"):
        SchedulingEnv(nodes=SHARED, outages={"seed": -1}, schedlab=schedlab_cmd)
    # Windows under the soft rule: the jobs running into one are ended.
    env = SchedulingEnv(
        window=64, nodes=SHARED, outages={"windows": ["10d,4h,7d"], "maintenance": "soft"}, schedlab=schedlab_cmd
    )
    try:
        _, info = first_job_episode(env, 1)
        assert info["summary"]["availability"] < 1
        assert info["summary"]["attempts"] > 0
    finally:
        env.close()


POWER = {"off": "9.75", "idle": "95", "full": "190"}


def test_power(schedlab_cmd: str) -> None:
    """Episodes with a power model: the reward "energy" is minus the energy
    the summary counts, in kWh, and picking the first waiting job, which is
    the Go fcfs's schedule, draws the energy fcfs draws on the same window."""
    env = SchedulingEnv(window=128, nodes=SHARED, power=POWER, reward="energy", schedlab=schedlab_cmd)
    try:
        for seed in (1, 2):
            reward, info = first_job_episode(env, seed)
            s = info["summary"]
            assert s["energy"] > 0
            assert reward == pytest.approx(-s["energy"] / 3.6e6)
            assert info["settings"]["power"] == POWER
            base = env.baseline("fcfs")
            assert info["starts"] == base["starts"]
            assert s["energy"] == pytest.approx(base["summary"]["energy"])
    finally:
        env.close()


def test_bad_power(schedlab_cmd: str) -> None:
    with pytest.raises(ValueError, match="a power model is of nodes"):
        SchedulingEnv(power=POWER, schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="a cap needs a policy that keeps to it"):
        SchedulingEnv(nodes=SHARED, power=dict(POWER, cap="2000"), schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="reward 'energy' needs a power model"):
        SchedulingEnv(nodes=SHARED, reward="energy", schedlab=schedlab_cmd)
    with pytest.raises(ValueError, match="unknown setting 'iddle'"):
        SchedulingEnv(nodes=SHARED, power={"iddle": "95"}, schedlab=schedlab_cmd)
    env = SchedulingEnv(window=64, nodes=SHARED, power={"idle": "95"}, schedlab=schedlab_cmd)
    try:
        with pytest.raises(ValueError, match=r"power.idle and power.full \(or power.busy\) give the model"):
            env.reset(seed=1)
    finally:
        env.close()


def test_observe_nodes(schedlab_cmd: str) -> None:
    """A row per node after the last row: Gymnasium's checks pass; the
    cores the rows show free add up to the free processors of the last
    row; a node out of service shows nothing free and 0 in service; a
    machine's nodes are counted by schedlab."""
    from gymnasium.utils.env_checker import check_env

    env = SchedulingEnv(window=64, queue=16, nodes=SHARED, outages=OUTAGES, observe_nodes=True, schedlab=schedlab_cmd)
    try:
        assert env.observation_space.shape == (16 + 1 + 25, 6)
        check_env(env, skip_render_check=True)
        rng = np.random.default_rng(3)
        down = 0
        for seed in (1, 2):
            obs, _ = env.reset(seed=seed)
            term = False
            while not term:
                last, nodes = obs[16], obs[17:]
                assert nodes[:, 0].sum() * 4 == pytest.approx(last[0] * 100, abs=1e-3)
                assert np.all(nodes[:, 5] == 1)
                out = nodes[:, 3] == 0
                down += int(out.sum())
                assert np.all(nodes[out, 0] == 0) and np.all(nodes[out, 4] == 0)
                assert np.all(nodes[:, 4] == ((nodes[:, 0] == 1) & (nodes[:, 3] == 1)))
                obs, _, term, _, _ = env.step(int(rng.integers(0, 17)))
        assert down > 0, "no node was seen out of service: the test tests too little"
    finally:
        env.close()
    env = SchedulingEnv(window=64, nodes={"machine": "SDSC-BLUE"}, observe_nodes=True, schedlab=schedlab_cmd)
    try:
        assert env.observation_space.shape == (64 + 1 + 144, 6)
    finally:
        env.close()
    with pytest.raises(ValueError, match="observe_nodes shows nodes"):
        SchedulingEnv(observe_nodes=True, schedlab=schedlab_cmd)


def test_serve_env_gone_mid_episode(schedlab_cmd: str) -> None:
    """The serve-env process ending in an episode fails that step with a
    reason; the next reset starts a process and an episode."""
    env = SchedulingEnv(window=64, queue=16, schedlab=schedlab_cmd)
    try:
        env.reset(seed=1)
        proc = env._service._proc
        assert proc is not None
        proc.kill()
        proc.wait()
        with pytest.raises((RuntimeError, OSError)):
            for _ in range(1000):
                env.step(0)
        obs, _ = env.reset(seed=2)
        assert obs.shape == env.observation_space.shape
        done = False
        while not done:
            _, _, done, _, info = env.step(0)
        assert len(info["starts"]) == 64
    finally:
        env.close()

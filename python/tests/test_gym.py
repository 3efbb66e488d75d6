"""The Gymnasium environment against schedlab's engine: Gymnasium's own
checks, determinism, and episodes whose picks make FCFS and EASY giving
those policies' schedules."""

from __future__ import annotations

from typing import Any

import pytest

gymnasium = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from schedlab.gym import ENV_ID, SchedulingEnv, find_schedlab  # noqa: E402


@pytest.fixture(scope="module")
def schedlab_cmd() -> str:
    try:
        return find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))


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
            env.reset(seed=seed)
            term = False
            info: dict[str, Any] = {}
            while not term:
                _, reward, term, _, info = env.step(0)
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

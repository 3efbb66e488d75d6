"""schedlab export read by the field's own tools: evalys loads our Batsim
jobs.csv and draws its Gantt chart; evalys's SWF reader and pyarrow agree
with the jobs file on every job."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import need

from schedlab._service import find_schedlab

TRACE = Path(__file__).resolve().parents[2] / "experiments" / "data" / "KTH-SP2-1996-2.1-cln.swf.gz"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """EASY on KTH-SP2 (committed), exported both ways."""
    try:
        bin_ = find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    d = tmp_path_factory.mktemp("export")
    out = {"jobs": d / "kth.parquet", "csv": d / "jobs.csv", "swf": d / "kth.swf"}
    subprocess.run(
        [bin_, "sim", "--trace", str(TRACE), "--policy", "easy", "--out", str(out["jobs"])],
        check=True,
        capture_output=True,
    )
    for fmt, path in (("batsim", out["csv"]), ("swf", out["swf"])):
        subprocess.run(
            [bin_, "export", str(out["jobs"]), "--format", fmt, "--out", str(path)], check=True, capture_output=True
        )
    return out


def test_evalys_reads_jobs_csv_and_draws(run: dict[str, Path], tmp_path: Path) -> None:
    pq = need("pyarrow.parquet")
    need("matplotlib").use("Agg")
    jobset = need("evalys.jobset")
    gantt = need("evalys.visu.gantt")
    plt = need("matplotlib.pyplot")
    jobs = pq.read_table(run["jobs"]).to_pandas()
    js = jobset.JobSet.from_csv(str(run["csv"]))
    df = js.df
    assert len(df) == len(jobs)
    assert list(df["waiting_time"].astype("int64")) == list(jobs["wait"])
    assert list(df["execution_time"].astype("int64")) == list(jobs["runtime"])
    # Every running job holds as many processors as it used, and at no
    # instant more than the machine's 100 (evalys's own load curve).
    ran = df["execution_time"] > 0
    assert (df.loc[ran, "proc_alloc"].to_numpy() == jobs.loc[ran.to_numpy(), "procs"].to_numpy()).all()
    assert js.MaxProcs <= 100
    assert js.utilisation["load"].max() <= 100
    # evalys's Gantt chart of the first 300 jobs that ran.
    sub = jobset.JobSet(df[ran].head(300).copy(), resource_bounds=(0, 99))
    gantt.plot_gantt(sub, title="EASY on KTH-SP2, exported by schedlab")
    fig = plt.gcf()
    png = tmp_path / "gantt.png"
    fig.savefig(png)
    patches = sum(len(ax.patches) for ax in fig.axes)
    plt.close(fig)
    assert png.stat().st_size > 10_000
    # One rectangle per job and interval of its processors, at least.
    assert patches >= 300


def test_evalys_reads_swf(run: dict[str, Path]) -> None:
    pq = need("pyarrow.parquet")
    workload = need("evalys.workload")
    # evalys 4.0.7 reads an SWF file with pandas' header=0 beside its own
    # column names, so the first job line is taken for a header and
    # dropped, whatever the file: compare from the second job on.
    jobs = pq.read_table(run["jobs"]).to_pandas().iloc[1:].reset_index(drop=True)
    w = workload.Workload.from_csv(str(run["swf"]))
    df = w.df.reset_index(drop=True)
    assert len(df) == len(jobs)
    assert list(df["waiting_time"].astype("int64")) == list(jobs["wait"])
    assert list(df["execution_time"].astype("int64")) == list(jobs["runtime"])
    assert list(df["submission_time"].astype("int64")) == list(jobs["submit"])
    status = df["status"].astype("int64").to_numpy()
    assert ((status == 0) == jobs["killed"].to_numpy()).all()
    assert w.MaxProcs == 100

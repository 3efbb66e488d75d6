"""python -m schedlab.plugin describe and identity, as the host runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

POLICY = """
import schedlab

class P(schedlab.Policy):
    name = "p"
    version = "0.0.1"
    files = ("weights.bin",)

    def schedule(self, state):
        return []
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "schedlab.plugin", *args], capture_output=True, text=True)


def test_describe_an_example(examples: Path) -> None:
    r = run("describe", str(examples / "easy.py"))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["name"] == "easy-py"
    assert [p["name"] for p in d["params"]] == ["order", "reservation"]
    assert d["params"][0]["choices"] == ["submit", "shortest", "smallest", "largest"]
    assert d["params"][1]["choices"] == ["count", "batsched"]


def test_identity_follows_every_file(tmp_path: Path) -> None:
    pol = tmp_path / "p.py"
    pol.write_text(POLICY)
    (tmp_path / "weights.bin").write_bytes(b"\x00\x01")
    first = run("identity", str(pol))
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert set(doc["files"]) == {"p.py", "weights.bin"}
    assert "grpcio" in doc["distributions"]
    assert doc["python"].split()[1] == ".".join(map(str, sys.version_info[:3]))
    assert run("identity", str(pol)).stdout == first.stdout
    (tmp_path / "weights.bin").write_bytes(b"\x00\x02")
    assert run("identity", str(pol)).stdout != first.stdout
    (tmp_path / "weights.bin").unlink()
    r = run("identity", str(pol))
    assert r.returncode == 1
    assert "names file 'weights.bin', which is not there" in r.stderr


def test_a_file_without_one_policy(tmp_path: Path) -> None:
    two = tmp_path / "two.py"
    two.write_text(POLICY + POLICY.replace("class P", "class Q"))
    r = run("describe", str(two))
    assert r.returncode == 1
    assert "defines 2 subclasses of schedlab.Policy (P, Q)" in r.stderr
    r = run("describe", str(tmp_path / "absent.py"))
    assert r.returncode == 1
    assert "no such file" in r.stderr


def test_serving_by_hand_says_what_it_is(examples: Path) -> None:
    r = run(str(examples / "fcfs.py"))
    assert r.returncode == 2
    assert "serves the schedlab policy fcfs-py" in r.stderr


def test_a_host_without_the_call_protocol(examples: Path) -> None:
    env = dict(os.environ, SCHEDLAB_PLUGIN="policy-v1-2d5c8a0e", SCHEDLAB_CALLS_FD="3", PLUGIN_PROTOCOL_VERSIONS="5,6")
    r = subprocess.run(
        [sys.executable, "-m", "schedlab.plugin", str(examples / "fcfs.py")], capture_output=True, text=True, env=env
    )
    assert r.returncode == 1
    assert "schedlab host speaks protocols 5, 6" in r.stderr
    assert "needs the call protocol 101" in r.stderr

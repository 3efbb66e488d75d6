"""Shared helpers of the package's tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schedlab import policytest
from schedlab._service import find_schedlab

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def examples() -> Path:
    """The folder of the shipped example policies."""
    return EXAMPLES


@pytest.fixture(scope="module")
def schedlab_cmd() -> str:
    """The schedlab command; skipped, saying why, without one."""
    try:
        return find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def host() -> Iterator[policytest.Host]:
    """A policytest host (a serve-env process) for a test module; skipped,
    saying why, without a schedlab command."""
    try:
        find_schedlab()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    with policytest.Host() as h:
        yield h


def need(module: str) -> Any:
    """Imports an oracle (pyarrow, evalys...), skipping the test without
    it, failing under CI, which installs python[oracles]."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as e:
        if os.environ.get("CI", "") not in ("", "0", "false"):
            raise
        pytest.skip(f"{module} is not installed ({e}); pip install './python[oracles]'")

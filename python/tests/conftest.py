"""Shared helpers of the package's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def examples() -> Path:
    """The folder of the shipped example policies."""
    return EXAMPLES

"""Jobs that move data (Go's sdk.IO, docs/engine.md): a run's I/O model
and where each running job is in its data phases."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class IOPhase(IntEnum):
    """Where a running job of a run with an I/O model is (Go's sdk.IOPhase),
    in the order of its phases."""

    STAGE_IN = 0
    COMPUTE = 1
    CHECKPOINT = 2
    STAGE_OUT = 3
    DRAINING = 4
    """Its stage-out is done; its last checkpoints still drain to the file
    system."""


@dataclass(frozen=True)
class JobIO:
    """Where a running job is in its data phases (Go's sdk.IOView): its
    phase; the compute phases it has done and has in all; for a job moving
    data, the bytes it has left to move in that phase, all its pieces
    together, and when that phase ends at the current rates (seconds, not
    rounded: rates change when transfers start or end); for a computing
    job, 0 and the end of its compute phase."""

    phase: IOPhase
    done: int
    phases: int
    bytes_left: float
    phase_end: float


@dataclass(frozen=True)
class IO:
    """A run's model of jobs that move data through its burst buffer (Go's
    sdk.IO): the burst buffer's index in the platform's resources, the file
    system's and each unit's bandwidth (bytes a second; split_duplex: as
    much each way), the bound of a piece's checkpoint write (0: none), the
    share of each piece's size a stage-in, a checkpoint and a stage-out
    move, whether checkpoints drain to the file system, and the compute
    phases' target length and most number."""

    resource: int
    fs_bandwidth: float
    unit_bandwidth: float
    split_duplex: bool
    node_bandwidth: float
    stage_in: float
    checkpoint: float
    stage_out: float
    drain: bool
    phase_seconds: int
    max_phases: int

    @staticmethod
    def from_json(d: dict[str, Any]) -> IO:
        """The model from its JSON (Go's sdk.IO)."""
        return IO(
            resource=int(d["resource"]),
            fs_bandwidth=float(d["fs_bandwidth"]),
            unit_bandwidth=float(d["unit_bandwidth"]),
            split_duplex=bool(d.get("split_duplex", False)),
            node_bandwidth=float(d.get("node_bandwidth", 0.0)),
            stage_in=float(d["stage_in"]),
            checkpoint=float(d["checkpoint"]),
            stage_out=float(d["stage_out"]),
            drain=bool(d.get("drain", False)),
            phase_seconds=int(d["phase_seconds"]),
            max_phases=int(d["max_phases"]),
        )

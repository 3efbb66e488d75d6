"""A policy's notes per job (Go's sdk.Notes): named values and reasons to
wait, which the jobs file keeps beside each job's record."""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_U32 = struct.Struct("<I")
_U16 = struct.Struct("<H")
_SPELL = struct.Struct("<qI")


@dataclass(frozen=True)
class WaitSpell:
    """A reason a job waited, from time `since` on: until the next spell's
    time, or the job's start (Go's sdk.WaitSpell)."""

    since: int
    reason: str


@dataclass
class Notes:
    """A policy's values per job, each sequence indexed by `Job.index`
    (Go's sdk.Notes). A policy need not know how many jobs a run has: the
    host pads what is shorter, columns with NaN and waits with none.

    `columns` maps a name (lower-case letters, digits and underscores, at
    most 64 bytes, not beginning with wait_from or wait_reason) to one
    value per job, NaN where the policy has none; the jobs file keeps it as
    the column policy_NAME. `waits`, when not None, lists per job why it
    waited: spells in time order, each from a time before the job's start
    and no earlier than its submission, a reason (at most 255 bytes of
    UTF-8) differing from the one before it. The host checks all of it
    and fails the run, saying why, on notes that break a rule."""

    columns: Mapping[str, Sequence[float]] = field(default_factory=dict)
    waits: Sequence[Sequence[WaitSpell]] | None = None


def encode_notes(n: Notes | None) -> bytes:
    """The payload of a Notes frame (Go's calls.DecodeNotes): the number of
    jobs the notes cover, then the columns' names and values, then the
    waits with their reasons numbered in order of first appearance. Empty
    for no notes (None, or Notes with neither columns nor waits). A name or
    a reason too long to pack raises ValueError; the host checks the rest."""
    if n is None or not n.columns and n.waits is None:
        return b""
    jobs = max([len(v) for v in n.columns.values()] + [len(n.waits) if n.waits is not None else 0])
    out = bytearray(_U32.pack(jobs))
    out += _U32.pack(len(n.columns))
    for name in n.columns:
        b = name.encode()
        if len(b) > 64:
            raise ValueError(f"notes: column name {name!r} of {len(b)} bytes (at most 64)")
        out.append(len(b))
        out += b
    for values in n.columns.values():
        vals = [float(v) for v in values]
        vals += [math.nan] * (jobs - len(vals))
        out += struct.pack(f"<{jobs}d", *vals)
    if n.waits is None:
        out.append(0)
        return bytes(out)
    out.append(1)
    index: dict[str, int] = {}
    for spells in n.waits:
        for s in spells:
            if s.reason not in index:
                index[s.reason] = len(index)
    out += _U32.pack(len(index))
    for reason in index:
        b = reason.encode()
        if len(b) > 255:
            raise ValueError(f"notes: reason {reason[:40]!r}... of {len(b)} bytes (at most 255)")
        out += _U16.pack(len(b))
        out += b
    for i in range(jobs):
        spells = n.waits[i] if i < len(n.waits) else ()
        out += _U32.pack(len(spells))
        for s in spells:
            out += _SPELL.pack(int(s.since), index[s.reason])
    return bytes(out)

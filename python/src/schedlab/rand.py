"""The run's random stream, drawn exactly as Go's math/rand/v2 draws from
the PCG source a Go policy gets (sdk.Env.Rand): a Python policy and its Go
twin given one seed draw the same numbers."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any

_M64 = (1 << 64) - 1
_MUL = (2549297995355413924 << 64) | 4865540595714422341
_INC = (6364136223846793005 << 64) | 1442695040888963407
_CHEAP = 0xDA942042E4DD58B5

# The second seed word of a policy's stream (Go's sim package).
POLICY_STREAM = 0x5EED_0F_7011C7


class Rand:
    """Go's rand.New(rand.NewPCG(seed1, seed2)), method for method."""

    __slots__ = ("_state",)

    def __init__(self, seed1: int, seed2: int = POLICY_STREAM) -> None:
        self._state = ((seed1 & _M64) << 64) | (seed2 & _M64)

    def uint64(self) -> int:
        """A uniform integer in [0, 2**64)."""
        s = (self._state * _MUL + _INC) & ((1 << 128) - 1)
        self._state = s
        hi = s >> 64
        lo = s & _M64
        hi ^= hi >> 32
        hi = (hi * _CHEAP) & _M64
        hi ^= hi >> 48
        return (hi * (lo | 1)) & _M64

    def _uint64n(self, n: int) -> int:
        if n & (n - 1) == 0:
            return self.uint64() & (n - 1)
        x = self.uint64() * n
        hi, lo = x >> 64, x & _M64
        if lo < n:
            thresh = ((1 << 64) - n) % n
            while lo < thresh:
                x = self.uint64() * n
                hi, lo = x >> 64, x & _M64
        return hi

    def int_n(self, n: int) -> int:
        """A uniform integer in [0, n) (Go's IntN and Int64N)."""
        if n <= 0:
            raise ValueError("int_n: n must be positive")
        return self._uint64n(n)

    def float64(self) -> float:
        """A uniform float in [0, 1) (Go's Float64)."""
        return (self.uint64() & ((1 << 53) - 1)) / (1 << 53)

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Shuffles x in place as Go's Shuffle swaps."""
        for i in range(len(x) - 1, 0, -1):
            j = self._uint64n(i + 1)
            x[i], x[j] = x[j], x[i]

    def perm(self, n: int) -> list[int]:
        """A random permutation of range(n) (Go's Perm)."""
        p = list(range(n))
        self.shuffle(p)
        return p

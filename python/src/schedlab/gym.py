"""A Gymnasium environment for learning schedulers, the engine being
schedlab's own (run by a `schedlab serve-env` process this module starts).

    import gymnasium
    import schedlab.gym  # registers schedlab/Scheduling-v0

    env = gymnasium.make("schedlab/Scheduling-v0")  # KTH-SP2, windows of 256 jobs
    obs, info = env.reset(seed=1)

An episode is a window of consecutive jobs of a trace, its first job drawn
from the seed. At each decision the agent picks the waiting job to start
next, as RLScheduler's environment does: one that fits starts at once and
the agent picks again; one that does not is started as soon as it fits
(with `backfill=True`, jobs behind it start meanwhile when they do not
delay it, as EASY's do), and the agent is asked again once it has started.
The reward is 0 until the episode's end, then the named metric of the
whole window (`reward`). Every schedule is checked by the engine's host as
any run's is; a decision it refuses ends the episode with an error.

The steps are taken in the serve-env process, by EASY's own fits,
placements and reservations (Go's runner/episodes, AgentSpec): this
process sends the agent's action and reads the next observation and action
mask, one round trip a step.

The platform is a pool of processors, or nodes (`nodes={...}`, the settings
of `schedlab sim`'s node flags: NODE_KEYS); on nodes a job fits when the
cluster's placement rule places it, as the engine and the Go policies
decide.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from ._service import MSG_FINISHED, MSG_REQUEST, Service, find_schedlab
from .placement import READINGS

ENV_ID = "schedlab/Scheduling-v0"

REWARDS = ("bsld", "wait", "utilisation", "energy")
"""The rewards: minus the mean bounded slowdown, minus the mean wait in
hours, or the utilisation, of the episode's jobs; or, with a power model,
minus the energy the nodes drew over the episode, in kWh."""

FEATURES = 6
"""The columns of an observation's rows."""

RESERVATIONS = READINGS
"""The readings of backfilling's reservation on nodes, the Go easy's
reservation parameter (schedlab.placement.READINGS): count or batsched."""

MASKS = ("any", "fits")
"""What action_masks allows: any waiting job (one that does not fit now is
started as soon as it does), or only those that fit now; waiting, in both,
when something runs or an outage is in effect."""

NODE_KEYS: dict[str, type] = {
    "nodes": int,
    "cores_per_node": int,
    "memory_per_node": str,
    "gpus_per_node": int,
    "machine": str,
    "allocation": str,
    "memory": str,
    "placement": str,
    "node_size": str,
    "oversize": str,
    "partitions": str,
}
"""The settings of a platform of nodes (SchedulingEnv's nodes) and their
types: `schedlab sim`'s node flags, with underscores (--cores-per-node is
cores_per_node); docs/semantics.md gives their values and defaults."""


OUTAGE_KEYS: dict[str, type] = {
    "on_failure": str,
    "requeue": str,
    "maintenance": str,
    "failures_file": str,
    "failures_sha256": str,
    "failure_model": str,
    "mtbf": str,
    "weibull_shape": str,
    "repair": str,
    "mttr": str,
    "repair_sigma": str,
    "failure_horizon": str,
    "checkpoint_interval": str,
    "checkpoint_cost": str,
    "restart_cost": str,
    "checkpoint_mtbf": str,
    "windows": list,
    "seed": int,
}
"""The settings of outages of nodes (SchedulingEnv's outages) and their
types: `schedlab sim`'s outage flags, with underscores, as text ("20d",
"requeue"); windows, maintenance windows of the whole machine, each
"START,DURATION[,EVERY]"; seed, the failure model's (default: the
episode's). docs/manifest.md gives their values and defaults."""


POWER_KEYS: dict[str, type] = {
    "off": str,
    "idle": str,
    "full": str,
    "busy": str,
    "switch_on": str,
    "switch_on_energy": str,
    "switch_off": str,
    "switch_off_energy": str,
    "down": str,
}
"""The settings of a power model (SchedulingEnv's power), as text: `schedlab
sim`'s power flags without "--power-" and with underscores (a node's watts
off, idle and with every core in use, or busy, a table of watts by cores in
use, "130,150,180"; the switches' times and joules; what a node out of
service draws). docs/engine.md gives the model."""


def _settings(what: str, given: Mapping[str, Any], keys: Mapping[str, type], names: str) -> dict[str, Any]:
    """Checks the names and types of settings given by name (keys: int,
    str, or list of str, named `names` in errors), and returns a copy;
    their values are schedlab's to check."""
    if not isinstance(given, Mapping):
        raise ValueError(f"{what} must be a mapping of settings by name ({names}), not {type(given).__name__}")
    out: dict[str, Any] = {}
    for k, v in given.items():
        want = keys.get(k)
        if want is None:
            raise ValueError(f"{what}: unknown setting {k!r}; the settings are {', '.join(keys)}")
        if want is list:
            if not isinstance(v, (list, tuple)) or not all(isinstance(w, str) for w in v):
                raise ValueError(f"{what}: {k} must be a list of strings, got {v!r}")
            v = list(v)
        elif isinstance(v, bool) or not isinstance(v, want):
            raise ValueError(f"{what}: {k} must be {'an int' if want is int else 'a string'}, got {v!r}")
        out[k] = v
    return out


def check_power(power: Mapping[str, Any]) -> dict[str, str]:
    """Checks the names and types of a power model's settings (POWER_KEYS),
    and returns a copy; their values are schedlab's to check."""
    if isinstance(power, Mapping) and "cap" in power:
        raise ValueError("power: a cap needs a policy that keeps to it; the environment's agent does not")
    return _settings("power", power, POWER_KEYS, "POWER_KEYS")


def check_outages(outages: Mapping[str, Any]) -> dict[str, Any]:
    """Checks the names and types of outages' settings (OUTAGE_KEYS), and
    returns a copy; their values are schedlab's to check."""
    out = _settings("outages", outages, OUTAGE_KEYS, "OUTAGE_KEYS")
    seed = out.get("seed")
    if seed is not None and not 0 <= seed < 2**64:
        raise ValueError(f"outages: seed must be from 0 to 2**64 - 1, got {seed}")
    if "failures_file" in out:
        # The file of the caller's folder: schedlab serve-env runs in
        # another.
        out["failures_file"] = os.path.abspath(out["failures_file"])
    return out


def check_nodes(nodes: Mapping[str, Any]) -> dict[str, Any]:
    """Checks the names and types of a platform of nodes' settings
    (NODE_KEYS), and returns a copy; their values are schedlab's to check."""
    out = _settings("nodes", nodes, NODE_KEYS, "NODE_KEYS")
    if not out:
        raise ValueError("nodes: no setting; give nodes and cores_per_node, or machine")
    return out


_MSG_OBSERVATION = ord("B")
_MSG_ACTION = ord("A")
_HEAD = struct.Struct("<II")
_ACTION = struct.Struct("<i")


class SchedulingEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Schedule a window of a trace's jobs on a pool of processors or on
    nodes, one pick of the next job at a time.

    Observation: an array of (queue + 1) rows of FEATURES values in [0, 1].
    Row i < queue is the i-th waiting job in submit order (among those not
    started yet): its wait so far (12 h reads 1), requested walltime (a day
    reads 1), processors over the platform's, whether it fits now (on
    nodes: whether the placement rule places it), its user (a hashed id),
    and 1 (a job is there; padding rows are all 0). The last row: free
    processors over the platform's, running jobs over the platform's
    processors, waiting jobs over queue (at most 1), then on nodes the
    nodes wholly free over all nodes and the most cores free on one node
    over the most a node has (0, 0 on a pool), and 1. With observe_nodes, a
    row per node follows: its free cores, memory and GPUs over what it has
    (0 for what it has none of), whether it is in service, whether it is
    wholly free, and 1.

    Action: i < queue picks the i-th row's job; queue waits for the next
    event (a job's end or submission, an outage's end) without starting
    more. A padding row, or waiting when no event would come (nothing runs,
    no outage is in effect), picks the first waiting job. The settings are named, and `info` of every step
    holds them."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        trace: str = "",
        window: int = 256,
        queue: int = 64,
        reward: str = "bsld",
        backfill: bool = False,
        exact: bool = False,
        jobs: tuple[int, int] | None = None,
        procs: int = 0,
        clean: dict[str, str] | None = None,
        schedlab: str | None = None,
        nodes: Mapping[str, Any] | None = None,
        mask: str = "any",
        reservation: str = "count",
        outages: Mapping[str, Any] | None = None,
        power: Mapping[str, Any] | None = None,
        observe_nodes: bool = False,
    ) -> None:
        """trace: an SWF file, or "" for the KTH-SP2 log schedlab ships;
        window: jobs per episode; queue: the waiting jobs an observation
        shows; reward: one of REWARDS; backfill: start jobs behind a picked
        job that does not fit, when they do not delay it; exact: show
        actual runtimes as walltimes; jobs: the range [first, last) of the
        trace's jobs episodes are drawn from (to hold some out), default
        all; procs: the pool's size (0: the trace's); clean: cleaning
        settings by name (schedlab's docs/semantics.md; the others at
        their defaults); schedlab: the command (find_schedlab); nodes: a
        platform of nodes instead of a pool, by the settings of `schedlab
        sim`'s node flags (NODE_KEYS: {"nodes": 25, "cores_per_node": 4,
        "allocation": "shared"}, {"machine": "SDSC-BLUE"}), the trace's
        jobs mapped onto it as sim maps them (windows are then of the jobs
        the mapping keeps); mask: what action_masks allows, one of MASKS;
        reservation: on nodes, backfilling's reading of the picked job's
        reservation, one of RESERVATIONS; outages: on nodes, failures and
        maintenance windows by the settings of `schedlab sim`'s outage
        flags (OUTAGE_KEYS: {"failure_model": "exponential", "mtbf": "20d",
        "mttr": "6h", "on_failure": "requeue"}), failures drawn from each
        episode's seed; windows need {"maintenance": "soft"}, the agent
        not planning around them; power: on nodes, a power model by the
        settings of `schedlab sim`'s power flags (POWER_KEYS: {"idle": "95",
        "full": "190"}), which reward "energy" needs; observe_nodes: on
        nodes, a row per node after the last row of the observation."""
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r} is not one of {', '.join(REWARDS)}")
        if mask not in MASKS:
            raise ValueError(f"mask {mask!r} is not one of {', '.join(MASKS)}")
        if reservation not in RESERVATIONS:
            raise ValueError(f"reservation {reservation!r} is not one of {', '.join(RESERVATIONS)}")
        if reservation == "batsched" and nodes is None:
            raise ValueError("reservation 'batsched' holds nodes; a pool has none (give nodes, or use 'count')")
        if window < 1 or queue < 1:
            raise ValueError("window and queue must be at least 1")
        if outages is not None and nodes is None:
            raise ValueError("outages are of nodes: give nodes too")
        if power is not None and nodes is None:
            raise ValueError("a power model is of nodes: give nodes too")
        if observe_nodes and nodes is None:
            raise ValueError("observe_nodes shows nodes: give nodes too")
        if reward == "energy" and power is None:
            raise ValueError("reward 'energy' needs a power model: give power")
        if nodes is not None and procs:
            raise ValueError("procs is a pool's size: leave it out with nodes (the nodes give the cores)")
        self.trace = os.path.abspath(trace) if trace else ""
        self.window = window
        self.queue_rows = queue
        self.reward_name = reward
        self.backfill = backfill
        self.exact = exact
        self.jobs_range = jobs
        self.procs = procs
        self.clean = dict(clean or {})
        self.nodes = None if nodes is None else check_nodes(nodes)
        self.mask = mask
        self.reservation = reservation
        self.outages = None if outages is None else check_outages(outages)
        self.power = None if power is None else check_power(power)
        self.action_space = spaces.Discrete(queue + 1)
        self._service = Service(schedlab)
        self.observe_nodes = observe_nodes
        self._node_count = 0
        self._trace_jobs = 0
        if observe_nodes:
            # The rows of the nodes: their number is schedlab's to tell
            # (a machine's nodes), asked now to size the space.
            self._jobs_in_trace()
            if self._node_count == 0:
                raise ValueError(
                    "observe_nodes: schedlab did not tell the platform's nodes (a schedlab from before observe_nodes?)"
                )
        self._rows = queue + 1 + self._node_count
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self._rows, FEATURES), dtype=np.float32)
        self._running = False
        self._episode: dict[str, Any] = {}
        self._frame = b""  # the last observation frame's payload

    # The server process and its messages.

    def _base_request(self) -> dict[str, Any]:
        req: dict[str, Any] = {"trace": self.trace, "procs": self.procs, "clean": self.clean}
        if self.nodes is not None:
            req["nodes"] = self.nodes
        if self.outages is not None:
            req["outages"] = self.outages
        if self.power is not None:
            req["power"] = self.power
        return req

    def _jobs_in_trace(self) -> int:
        """The number of jobs of the cleaned trace (asked once); on nodes,
        of those the mapping keeps."""
        if self._trace_jobs == 0:
            # An impossible window gets the count in its answer.
            req = self._base_request()
            req.update(first=-1, count=1)
            doc = self._service.ask(req)
            if not doc.get("jobs"):
                raise ValueError(f"schedlab: {doc.get('error')}")
            self._trace_jobs = int(doc["jobs"])
            self._node_count = int(doc.get("node_count", 0))
        return self._trace_jobs

    def _next(self) -> tuple[bool, dict[str, Any]]:
        """Reads the next observation (False), or the end of the episode
        (True and its summary). Whatever ends the episode otherwise (the
        process ended, a frame out of place) leaves none under way, so
        that the next reset starts one."""
        try:
            typ, p = self._service.read()
        except BaseException:
            self._running, self._frame = False, b""
            raise
        if typ == _MSG_OBSERVATION:
            self._frame = p
            self._episode["calls"] = _HEAD.unpack_from(p, 0)[0]
            return False, {}
        self._running, self._frame = False, b""
        if typ != MSG_FINISHED:
            raise RuntimeError(f"schedlab serve-env sent a frame of type {typ} during an episode")
        doc = json.loads(p)
        if doc.get("error"):
            if "calls" not in self._episode:  # no observation yet: the request was refused
                if 'unknown field "agent"' in doc["error"]:
                    raise RuntimeError(
                        f"{self._service.command} is older than this package (its serve-env does not take the "
                        "environment's steps): rebuild it, `go install ./cmd/schedlab` in a schedlab checkout"
                    )
                raise ValueError(f"schedlab: {doc['error']}")
            raise RuntimeError(f"schedlab refused the episode: {doc['error']}")
        summary: dict[str, Any] = doc["summary"]
        self._episode["calls"] = doc.get("calls", 0)
        self._episode["starts"] = doc.get("starts", [])
        self._episode["ends"] = doc.get("ends", [])
        return True, summary

    # The episode.

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts an episode on a window drawn from the seed (options
        {"first": i} chooses it)."""
        super().reset(seed=seed)
        first, run_seed = self._window(options)
        req = self._base_request()
        req.update(
            first=first,
            count=self.window,
            seed=run_seed,
            exact=self.exact,
            agent={
                "queue": self.queue_rows,
                "backfill": self.backfill,
                "reservation": self.reservation,
                "mask": self.mask,
                "observe_nodes": self.observe_nodes,
            },
        )
        self._episode = {"first": first, "seed": run_seed, "steps": 0}
        self._service.send(MSG_REQUEST, json.dumps(req).encode())
        self._running = True
        done, summary = self._next()
        if done:
            # A window no decision could change (never the case with
            # waiting jobs); the episode is over before it began.
            self._episode["summary"] = summary
        return self._observe(), self._info()

    def _window(self, options: dict[str, Any] | None) -> tuple[int, int]:
        """Ends the episode under way, and draws the next one's first job
        (options {"first": i} chooses it) and its run's seed."""
        self._drain()
        n = self._jobs_in_trace()
        lo, hi = self.jobs_range or (0, n)
        hi = min(hi, n)
        if hi - lo < self.window:
            raise ValueError(f"jobs {lo} to {hi}: fewer than a window of {self.window}")
        if options and "first" in options:
            first = int(options["first"])
        else:
            first = int(self.np_random.integers(lo, hi - self.window + 1))
        return first, int(self.np_random.integers(0, 2**63))

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Starts the picked job now if it fits, else as soon as it does,
        and runs the engine to the next decision."""
        if not self._running:
            raise RuntimeError("step before reset, or after the episode ended")
        self._episode["steps"] += 1
        a = int(action)
        # An action beyond int32 picks the first waiting job, as any
        # action that is not a row's.
        try:
            self._service.send(_MSG_ACTION, _ACTION.pack(a if -(2**31) <= a < 2**31 else -1))
        except OSError:
            self._running, self._frame = False, b""
            raise
        done, summary = self._next()
        if done:
            return self._observe(), self._reward(summary), True, False, self._info(summary)
        return self._observe(), 0.0, False, False, self._info()

    def close(self) -> None:
        """Ends the serve-env process."""
        self._service.close()
        self._running = False
        super().close()

    # What the agent sees.

    def _observe(self) -> np.ndarray:
        if not self._frame:
            return np.zeros((self._rows, FEATURES), dtype=np.float32)
        obs = np.frombuffer(self._frame, dtype="<f4", count=self._rows * FEATURES, offset=_HEAD.size)
        return obs.reshape(self._rows, FEATURES).astype(np.float32)

    def action_masks(self) -> np.ndarray:
        """The actions a masked agent may take (mask, one of MASKS): the
        rows of waiting jobs, all of them ("any") or those that fit now
        ("fits"; on nodes, those the placement rule places), and waiting
        when something runs or an outage is in effect (its end is an
        event)."""
        if not self._frame:
            return np.zeros(self.queue_rows + 1, dtype=bool)
        at = _HEAD.size + 4 * FEATURES * self._rows
        return np.frombuffer(self._frame, dtype=np.uint8, count=self.queue_rows + 1, offset=at).astype(bool)

    def _reward(self, summary: dict[str, Any]) -> float:
        if self.reward_name == "bsld":
            return -float(summary["mean_bsld"])
        if self.reward_name == "wait":
            return -float(summary["mean_wait"]) / 3600.0
        if self.reward_name == "energy":
            return -float(summary["energy"]) / 3.6e6
        return float(summary["utilisation"])

    def _info(self, summary: dict[str, Any] | None = None) -> dict[str, Any]:
        info: dict[str, Any] = {
            "first_job": self._episode.get("first"),
            "steps": self._episode.get("steps"),
            "calls": self._episode.get("calls"),
            "settings": {
                "trace": self.trace or "KTH-SP2 (shipped)",
                "window": self.window,
                "queue": self.queue_rows,
                "reward": self.reward_name,
                "backfill": self.backfill,
                "exact": self.exact,
                "clean": dict(self.clean),
                "nodes": None if self.nodes is None else dict(self.nodes),
                "mask": self.mask,
                "reservation": self.reservation,
                "outages": None if self.outages is None else dict(self.outages),
                "power": None if self.power is None else dict(self.power),
            },
        }
        if summary is not None:
            info["summary"] = summary
            info["starts"] = self._episode.get("starts")
        return info

    def baseline(self, policy: str, params: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The last episode's window run under a reference policy of
        schedlab's (fcfs, easy, conservative) with the same seed, and its
        parameters params ({"reservation": "batsched"}): its summary, and
        each job's start and end. Call it once the episode is over."""
        if self._running:
            raise RuntimeError("baseline: the episode is under way; call it once it is over")
        if "first" not in self._episode:
            raise RuntimeError("baseline: no episode yet")
        req = self._base_request()
        req.update(
            first=self._episode["first"],
            count=self.window,
            seed=self._episode["seed"],
            exact=self.exact,
            policy=policy,
            params=dict(params or {}),
        )
        doc = self._service.ask(req)
        if doc.get("error"):
            raise ValueError(f"schedlab: {doc['error']}")
        return doc

    def _drain(self) -> None:
        """Ends an episode under way by starting jobs in submit order."""
        while self._running:
            self.step(0)


def register() -> None:
    """Registers ENV_ID with Gymnasium (importing this module does)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="schedlab.gym:SchedulingEnv")


register()

__all__ = [
    "ENV_ID",
    "FEATURES",
    "MASKS",
    "NODE_KEYS",
    "OUTAGE_KEYS",
    "POWER_KEYS",
    "RESERVATIONS",
    "REWARDS",
    "SchedulingEnv",
    "check_nodes",
    "check_outages",
    "check_power",
    "find_schedlab",
    "register",
]

"""schedlab's Python SDK: write a scheduling policy in Python, test it, and
run it in schedlab campaigns beside the Go policies, with the same
verification, statistics and provenance.

    import schedlab

    class Smallest(schedlab.Policy):
        name = "smallest"
        version = "0.1.0"

        def schedule(self, state):
            ...
            return [schedlab.start(job)]

    if __name__ == "__main__":
        schedlab.serve(Smallest)
"""

from ._io import IO, IOPhase, JobIO
from ._model import (
    PROCESSORS,
    Action,
    Alloc,
    Cluster,
    Completion,
    Decision,
    Env,
    Job,
    NodeGroup,
    Nodes,
    Param,
    Partition,
    Platform,
    Policy,
    Refusal,
    Running,
    State,
    Tasks,
    Units,
    charge,
    drain_nodes,
    nodes_platform,
    power_off,
    power_on,
    promise,
    reject,
    reserve,
    resume_nodes,
    ship,
    start,
    wake_at,
)
from ._notes import Notes, WaitSpell
from ._outage import Outage, OutageKind, window_nodes
from ._plugin import describe, serve
from ._power import CAP_SLACK, CapStep, NodePower, Power, PowerMode, PowerState, cores_in_use, under_cap
from .rand import Rand
from .version import __version__

__all__ = [
    "CAP_SLACK",
    "PROCESSORS",
    "Action",
    "Alloc",
    "CapStep",
    "Cluster",
    "Completion",
    "Decision",
    "Env",
    "IO",
    "IOPhase",
    "Job",
    "JobIO",
    "NodeGroup",
    "NodePower",
    "Nodes",
    "Notes",
    "Outage",
    "OutageKind",
    "Param",
    "Partition",
    "Platform",
    "Policy",
    "Power",
    "PowerMode",
    "PowerState",
    "Rand",
    "Refusal",
    "Running",
    "State",
    "Tasks",
    "Units",
    "WaitSpell",
    "__version__",
    "charge",
    "describe",
    "drain_nodes",
    "nodes_platform",
    "power_off",
    "power_on",
    "promise",
    "reject",
    "reserve",
    "resume_nodes",
    "serve",
    "ship",
    "start",
    "under_cap",
    "cores_in_use",
    "wake_at",
    "window_nodes",
]

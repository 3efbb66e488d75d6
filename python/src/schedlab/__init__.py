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
    promise,
    reject,
    reserve,
    resume_nodes,
    ship,
    start,
    wake_at,
)
from ._plugin import describe, serve
from .rand import Rand
from .version import __version__

__all__ = [
    "PROCESSORS",
    "Action",
    "Alloc",
    "Cluster",
    "Completion",
    "Decision",
    "Env",
    "Job",
    "NodeGroup",
    "Nodes",
    "Param",
    "Partition",
    "Platform",
    "Policy",
    "Rand",
    "Refusal",
    "Running",
    "State",
    "Tasks",
    "Units",
    "__version__",
    "charge",
    "describe",
    "drain_nodes",
    "nodes_platform",
    "promise",
    "reject",
    "reserve",
    "resume_nodes",
    "serve",
    "ship",
    "start",
    "wake_at",
]

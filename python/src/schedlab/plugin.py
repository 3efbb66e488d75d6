"""The command a schedlab host runs for a policy written in Python:

    python -m schedlab.plugin FILE.py            serve the policy of FILE.py (the host runs this)
    python -m schedlab.plugin describe FILE.py   print its description as JSON
    python -m schedlab.plugin identity FILE.py   print what identifies it (run keys, provenance)

FILE.py defines one subclass of schedlab.Policy (or names one POLICY)."""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import importlib.util
import json
import os
import platform
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from ._model import Policy
from ._plugin import check_policy_class, describe, serve
from .version import __version__


class LoadError(Exception):
    """A policy file that does not load."""


def load(path: str) -> tuple[type[Policy], ModuleType]:
    """Imports the policy file and returns its policy class."""
    p = Path(path).resolve()
    if not p.is_file():
        raise LoadError(f"{path}: no such file")
    sys.path.insert(0, str(p.parent))
    name = "schedlab_policy_" + "".join(c if c.isalnum() else "_" for c in p.stem)
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise LoadError(f"{path}: not a Python module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    chosen = getattr(mod, "POLICY", None)
    if chosen is None:
        found = [
            v
            for v in vars(mod).values()
            if isinstance(v, type) and issubclass(v, Policy) and v is not Policy and v.__module__ == name
        ]
        if len(found) != 1:
            names = ", ".join(c.__name__ for c in found) or "none"
            raise LoadError(
                f"{path}: defines {len(found)} subclasses of schedlab.Policy ({names}); name one POLICY = ..."
            )
        chosen = found[0]
    check_policy_class(chosen)
    return chosen, mod


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def package_digest() -> str:
    """The sha256 of this package's sources, by relative path."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*")):
        if f.is_file() and f.suffix in (".py", ".typed") and "__pycache__" not in f.parts:
            h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def distributions(modules: set[str]) -> dict[str, str]:
    """The installed distributions of modules, by name, with their
    versions."""
    owners = metadata.packages_distributions()
    out: dict[str, str] = {}
    for mod in modules:
        top = mod.partition(".")[0]
        for dist in owners.get(top, ()):
            if dist not in out:
                try:
                    out[dist] = metadata.version(dist)
                except metadata.PackageNotFoundError:
                    pass
    return dict(sorted(out.items()))


def identity(path: str) -> dict[str, Any]:
    """What identifies the policy of path: its files' content, this
    package's sources, the Python and the distributions loaded."""
    before = set(sys.modules)
    cls, _ = load(path)
    import grpc  # noqa: F401  (serving loads it: count its version)

    loaded = set(sys.modules) - before

    p = Path(path).resolve()
    files = {p.name: _sha256(p)}
    for f in cls.files:
        q = (p.parent / f).resolve()
        if not q.is_file():
            raise LoadError(f"{path}: policy {cls.name} names file {f!r}, which is not there ({q})")
        files[f] = _sha256(q)
    return {
        "policy": describe(cls),
        "files": files,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "schedlab": {"version": __version__, "sha256": package_digest()},
        "distributions": distributions(loaded),
    }


def main(argv: list[str]) -> int:
    usage = "usage: python -m schedlab.plugin [describe|identity] FILE.py"
    if len(argv) == 2 and argv[0] in ("describe", "identity"):
        try:
            doc = describe(load(argv[1])[0]) if argv[0] == "describe" else identity(argv[1])
        except Exception as e:  # what the user wrote: say what and where
            print(f"{argv[1]}: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        print(json.dumps(doc, sort_keys=True, separators=(",", ":")))
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(usage, file=sys.stderr)
        return 2
    # Whatever the policy's module prints as it loads must not reach
    # standard output, where the host reads the handshake.
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        cls, _ = load(argv[0])
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    serve(cls)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

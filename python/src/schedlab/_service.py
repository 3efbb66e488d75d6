"""A `schedlab serve-env` process and the connection to it: the episodes
of the Gymnasium environment and the runs of policytest go through it
(Go's runner/episodes)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from typing import Any

from ._plugin import _Conn

MSG_REQUEST = ord("Q")
MSG_FINISHED = ord("F")


def find_schedlab(path: str | None = None) -> str:
    """The schedlab command: path, $SCHEDLAB, or schedlab on PATH."""
    p = path or os.environ.get("SCHEDLAB") or shutil.which("schedlab")
    if not p:
        raise FileNotFoundError(
            "no schedlab command: `go install ./cmd/schedlab` in a schedlab checkout puts it in $(go env GOPATH)/bin; "
            "add that to PATH, or set SCHEDLAB to its path"
        )
    return p


class Service:
    """A serve-env process, started at the first request."""

    def __init__(self, command: str | None = None) -> None:
        self.command = find_schedlab(command)
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: _Conn | None = None

    def conn(self) -> _Conn:
        """The connection, starting the process if need be."""
        if self._conn is None:
            mine, theirs = socket.socketpair()
            env = dict(os.environ, SCHEDLAB_CALLS_FD=str(theirs.fileno()))
            # Python policies it runs are served by this interpreter, which
            # has this package, unless the caller says otherwise.
            env.setdefault("SCHEDLAB_PYTHON", sys.executable)
            self._proc = subprocess.Popen(
                [self.command, "serve-env"], pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL
            )
            theirs.close()
            self._conn = _Conn(mine.detach())
        return self._conn

    def send(self, typ: int, payload: bytes) -> None:
        """Sends one message. A process gone is an error, and the next
        message starts another."""
        try:
            self.conn().send(typ, payload)
        except OSError:
            self.close()
            raise

    def read(self) -> tuple[int, bytes]:
        """Reads one message; the process's end is an error, and the next
        message starts another."""
        frame = self.conn().read()
        if frame is None:
            code = self._proc.wait() if self._proc else None
            self.close()
            raise RuntimeError(f"schedlab serve-env ended (exit status {code})")
        return frame

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Sends a request that the host answers alone (a policy of its own
        runs, or it cannot run) and returns its answer."""
        self.send(MSG_REQUEST, json.dumps(request).encode())
        typ, p = self.read()
        if typ != MSG_FINISHED:
            raise RuntimeError(f"schedlab serve-env answered with a message of type {typ}")
        doc: dict[str, Any] = json.loads(p)
        return doc

    def close(self) -> None:
        """Ends the process."""
        if self._conn is not None:
            self._conn.sock.close()
            self._conn = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None

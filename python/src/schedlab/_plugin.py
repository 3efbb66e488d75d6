"""Serving a policy to a schedlab host: go-plugin's handshake and gRPC
services (health, controller, Describe), then the call protocol's loop on
the socket the host passed (_wire)."""

from __future__ import annotations

import io
import json
import os
import socket
import struct
import sys
import tempfile
import traceback
from collections.abc import Callable
from concurrent import futures
from typing import Any, TextIO

from . import _wire
from ._model import Policy
from ._notes import encode_notes
from .version import __version__

MAGIC_KEY = "SCHEDLAB_PLUGIN"
MAGIC_VALUE = "policy-v1-2d5c8a0e"
CALLS_FD_ENV = "SCHEDLAB_CALLS_FD"

_LEN = struct.Struct("<I")
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# What the policy prints is sent to the host once this much has gathered,
# and before every answer.
_OUTPUT_CHUNK = 64 << 10


def describe(cls: type[Policy]) -> dict[str, Any]:
    """The JSON description a host reads (Go's sdk.Info)."""
    check_policy_class(cls)
    d: dict[str, Any] = {
        "name": cls.name,
        "version": cls.version,
        "sdk_version": "python-" + __version__,
        "protocol_version": _wire.VERSION,
    }
    if cls.description:
        d["description"] = cls.description
    if cls.params:
        d["params"] = [p.to_json() for p in cls.params]
    return d


def check_policy_class(cls: type) -> None:
    """Fails, saying why, unless cls is a usable policy class."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise TypeError(f"{cls!r} is not a subclass of schedlab.Policy")
    if not cls.name:
        raise ValueError(f"policy class {cls.__name__} has no name (set the class attribute name)")
    if cls.schedule is Policy.schedule:
        raise ValueError(f"policy class {cls.__name__} does not define schedule")
    seen = set()
    for p in cls.params:
        if p.name in seen:
            raise ValueError(f"policy {cls.name}: parameter {p.name!r} declared twice")
        seen.add(p.name)


class _Capture(io.TextIOBase):
    """Stands for sys.stdout or sys.stderr during a run: what the policy
    prints goes to the host in Output frames, in order with its answers."""

    def __init__(self, stream: int, send: Callable[[int, bytes], None]) -> None:
        self.stream = stream
        self.send = send
        self.parts: list[str] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.parts.append(s)
        self.size += len(s)
        if self.size >= _OUTPUT_CHUNK:
            self.flush()
        return len(s)

    def flush(self) -> None:
        if self.parts:
            text = "".join(self.parts).encode("utf-8", "replace")
            self.parts.clear()
            self.size = 0
            self.send(_wire.MSG_OUTPUT, bytes((self.stream,)) + text)


class _Conn:
    """The call protocol's socket: frames in, frames out. A read takes what
    the socket holds, as a rule a whole frame in one system call."""

    def __init__(self, fd: int) -> None:
        self.sock = socket.socket(fileno=fd)
        self.buf = bytearray(1 << 16)
        self.start = 0  # the first byte not yet returned
        self.end = 0  # the end of what was received

    def read(self) -> tuple[int, bytes] | None:
        head = self._exactly(4)
        if head is None:
            return None
        (n,) = _LEN.unpack_from(self.buf, head)
        body = self._exactly(n)
        if body is None or n == 0:
            return None
        return self.buf[body], bytes(self.buf[body + 1 : body + n])

    def _exactly(self, n: int) -> int | None:
        """Makes n bytes available from self.start and returns where they
        begin, or None at the end of the stream."""
        if self.end - self.start < n:
            if self.start > 0:
                # Keep what is left at the front.
                left = self.end - self.start
                self.buf[:left] = self.buf[self.start : self.end]
                self.start, self.end = 0, left
            if len(self.buf) < n:
                self.buf.extend(bytes(n - len(self.buf)))
            view = memoryview(self.buf)
            while self.end < n:
                k = self.sock.recv_into(view[self.end :])
                if k == 0:
                    return None
                self.end += k
        at = self.start
        self.start += n
        return at

    def send(self, typ: int, payload: bytes) -> None:
        self.sock.sendall(_LEN.pack(1 + len(payload)) + bytes((typ,)) + payload)


def _error_text(cls: type[Policy], where: str) -> str:
    """The failure of the policy, for the run's error: the exception and
    the end of its traceback."""
    exc = sys.exc_info()[1]
    assert exc is not None
    # The frames of the policy's own code: those of this package say
    # nothing to its author (a check of what schedule returned has none).
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(_PACKAGE_DIR)]
    lines = traceback.format_list(frames[-8:])
    tb = ("Traceback (most recent call last):\n" + "".join(lines)) if lines else ""
    tail = "".join(traceback.format_exception_only(type(exc), exc))
    return f"{cls.name} raised {type(exc).__name__} in {where}: {exc}\n{tb}{tail}".rstrip()


def run_calls(cls: type[Policy], conn: _Conn) -> None:
    """Serves runs on conn until the host closes it."""
    real_out, real_err = sys.stdout, sys.stderr
    out = _Capture(1, conn.send)
    err = _Capture(2, conn.send)
    session: _wire.Session | None = None
    while True:
        frame = conn.read()
        if frame is None:
            return
        typ, p = frame
        if typ == _wire.MSG_STATE:
            if session is None:
                conn.send(_wire.MSG_ERROR, b"a state frame outside a run")
                continue
            try:
                answer = _wire.encode_decisions(session.schedule(p))
            except Exception:
                out.flush()
                err.flush()
                conn.send(_wire.MSG_ERROR, _error_text(cls, f"schedule at t={session.state.now}").encode())
                continue
            out.flush()
            err.flush()
            conn.send(_wire.MSG_DECISIONS, answer)
        elif typ == _wire.MSG_INIT:
            sys.stdout, sys.stderr = out, err
            try:
                session = _wire.Session(cls(), p)
            except Exception:
                out.flush()
                err.flush()
                conn.send(_wire.MSG_ERROR, _error_text(cls, "init").encode())
                continue
            out.flush()
            err.flush()
            # A policy that keeps notes says so: the host then asks for
            # them after the run's last call (Go's calls.ReadyDoc).
            conn.send(_wire.MSG_READY, b'{"notes":true}' if keeps_notes(cls) else b"")
        elif typ == _wire.MSG_NOTES:
            if session is None:
                conn.send(_wire.MSG_ERROR, b"a notes frame outside a run")
                continue
            try:
                answer = encode_notes(session.policy.notes())
            except Exception:
                out.flush()
                err.flush()
                conn.send(_wire.MSG_ERROR, _error_text(cls, "notes").encode())
                continue
            out.flush()
            err.flush()
            conn.send(_wire.MSG_NOTES, answer)
        elif typ == _wire.MSG_END:
            out.flush()
            err.flush()
            session = None
            sys.stdout, sys.stderr = real_out, real_err
        else:
            conn.send(_wire.MSG_ERROR, f"unknown frame type {typ}".encode())


def keeps_notes(cls: type[Policy]) -> bool:
    """Whether policy class cls keeps notes (defines notes)."""
    return cls.notes is not Policy.notes


def _bytes_value(b: bytes) -> bytes:
    """b as a google.protobuf.BytesValue message."""
    n = len(b)
    v = bytearray()
    while True:
        x = n & 0x7F
        n >>= 7
        if n:
            v.append(x | 0x80)
        else:
            v.append(x)
            break
    return b"\x0a" + bytes(v) + b


def serve(cls: type[Policy]) -> None:
    """Serves policy class cls to the schedlab host that started this
    process, and does not return. Run any other way, it says what it is and
    exits with status 2."""
    check_policy_class(cls)
    if os.environ.get(MAGIC_KEY) != MAGIC_VALUE or CALLS_FD_ENV not in os.environ:
        print(
            f"{sys.argv[0]} serves the schedlab policy {cls.name} {cls.version}.\n"
            "Name it in a schedlab manifest or `schedlab sim --policy PATH`.",
            file=sys.stderr,
        )
        sys.exit(2)
    versions = [v for v in os.environ.get("PLUGIN_PROTOCOL_VERSIONS", "").split(",") if v.strip()]
    if str(_wire.VERSION) not in versions:
        print(
            f"schedlab host speaks protocols {', '.join(versions) or 'none'}; this policy (schedlab Python package "
            f"{__version__}) needs the call protocol {_wire.VERSION}: upgrade schedlab",
            file=sys.stderr,
        )
        sys.exit(1)
    import grpc  # imported here: describe and identity need no gRPC

    info = _bytes_value(json.dumps(describe(cls)).encode())

    def describe_rpc(request: bytes, context: grpc.ServicerContext) -> bytes:
        return info

    def health(request: bytes, context: grpc.ServicerContext) -> bytes:
        return b"\x08\x01"  # HealthCheckResponse{status: SERVING}

    conn = _Conn(int(os.environ[CALLS_FD_ENV]))

    def shutdown(request: bytes, context: grpc.ServicerContext) -> bytes:
        # Ends the loop below, which reads an end of file.
        try:
            conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        return b""

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "schedlab.v1.Policy", {"Describe": grpc.unary_unary_rpc_method_handler(describe_rpc)}
            ),
            grpc.method_handlers_generic_handler(
                "grpc.health.v1.Health", {"Check": grpc.unary_unary_rpc_method_handler(health)}
            ),
            grpc.method_handlers_generic_handler(
                "plugin.GRPCController", {"Shutdown": grpc.unary_unary_rpc_method_handler(shutdown)}
            ),
        )
    )
    sockdir = os.environ.get("PLUGIN_UNIX_SOCKET_DIR") or None
    path = tempfile.mktemp(prefix="schedlab-policy-", suffix=".sock", dir=sockdir)
    server.add_insecure_port("unix:" + path)
    server.start()
    # The handshake goes to the real standard output, which then points to
    # standard error: go-plugin reads nothing more from it, and a print
    # outside a run must still reach the host.
    handshake = f"1|{_wire.VERSION}|unix|{path}|grpc\n".encode()
    os.write(1, handshake)
    os.dup2(2, 1)
    sys.stdout = _reopen_stdout()
    run_calls(cls, conn)
    server.stop(0)
    try:
        os.unlink(path)
    except OSError:
        pass
    os._exit(0)


def _reopen_stdout() -> TextIO:
    return io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), write_through=True)

"""Serving the API next to the engine: uvicorn in its own thread with its own event loop.

``bundletui run --api`` calls :func:`serve_in_thread` (so do the API tests); the
engine keeps the main thread and its asyncio loop, the API's commands reach it through the
store's outbox like the CLI's.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bundletui.errors import ApiError
from bundletui.store.db import current_user, resolve_home

log = logging.getLogger("bundletui.api")

DEFAULT_HOST = "127.0.0.1"
TOKEN_FILE = "api-token"


def parse_bind(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (``[::1]:8080`` for IPv6); the host defaults to 127.0.0.1."""
    raw = text.strip()
    host, port_text = DEFAULT_HOST, raw
    if raw.startswith("["):
        inside, sep, rest = raw[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise _bind_error(text)
        host, port_text = inside, rest[1:]
    elif ":" in raw:
        host, _, port_text = raw.rpartition(":")
        host = host or DEFAULT_HOST
    try:
        port = int(port_text)
    except ValueError:
        raise _bind_error(text) from None
    if not 0 <= port <= 65535:
        raise _bind_error(text)
    return host, port


def _bind_error(text: str) -> ApiError:
    return ApiError.from_template(
        "E0303",
        "--api",
        text,
        hint="give [HOST:]PORT, e.g. --api 11000 or --api 0.0.0.0:11000",
    )


def read_token(home: str | Path | None) -> str | None:
    """The token in ``<home>/api-token`` (its first line that is not blank), if that file
    exists. A file with no token in it is an error, not "no token": whoever wrote it meant
    the API to ask for one, and would otherwise serve it to anyone."""
    path = resolve_home(home) / TOKEN_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError):
        return None
    except OSError as exc:
        raise ApiError("EB0701", f"cannot read the API token file {path}: {exc}") from exc
    lines = text.strip().splitlines()
    if not lines:
        raise ApiError(
            "EB0701",
            f"the API token file {path} holds no token; the API was not started",
            hint="write the token on its first line, or remove the file to serve the API "
            "without a token (on 127.0.0.1 only)",
        )
    return lines[0].strip()


def _given_token(token: str | None, home: str | Path | None) -> str | None:
    """``--api-token`` / ``BUNDLETUI_API_TOKEN`` if given (an empty one is refused: it would
    turn authentication off), else the token file's."""
    if token is None:
        found = read_token(home)
        if found is not None:
            _warn_if_readable(resolve_home(home) / TOKEN_FILE)
        return found
    if not token.strip():
        raise ApiError(
            "EB0701",
            "the API token given (--api-token or BUNDLETUI_API_TOKEN) is empty; "
            "the API was not started",
            hint="give a non-empty token, or leave both unset to serve without one",
        )
    return token.strip()


def _warn_if_readable(path: Path) -> None:
    """A token others can read is no secret (QA: a 0644 file took the umask's mode)."""
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        return
    if mode & 0o077:
        log.warning(
            "the API token file %s can be read by other users (mode %03o): anyone who reads it"
            " can use the API; chmod 600 %s",
            path,
            mode,
            path,
        )


@dataclass
class ApiHandle:
    """A running API server; ``stop()`` ends it (also on ``with`` exit)."""

    host: str
    port: int
    thread: threading.Thread
    server: Any  # uvicorn.Server
    api: Any  # bundletui.api.app.Api
    token: str | None = None
    _stopped: bool = field(default=False, repr=False)

    @property
    def url(self) -> str:
        """The base URL Oozie clients take (``http://host:port/oozie``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/oozie"

    def alive(self) -> bool:
        return self.thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.server.should_exit = True
        self.thread.join(timeout)
        self.api.close()

    def __enter__(self) -> ApiHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_in_thread(
    home: str | Path | None,
    host: str = DEFAULT_HOST,
    port: int = 11000,
    token: str | None = None,
    *,
    workers: int = 4,
    log_level: str = "warning",
) -> ApiHandle:
    """Listen on ``host:port`` (0 = any free port, see ``handle.port``) and serve the API of the
    store in ``home`` from a daemon thread. ``token`` (else ``<home>/api-token``) makes every
    request need ``Authorization: Bearer <token>``; without one, on an address other machines
    reach (``0.0.0.0``, a LAN address), it logs a warning. Raises ApiError when it cannot
    listen."""
    import uvicorn

    from bundletui.api._protocol import DeadlineH11Protocol
    from bundletui.api.app import Api, create_app

    token = _given_token(token, home)
    sock = _listen(host, port)
    api = Api(home, token, workers=workers)
    config = uvicorn.Config(
        create_app(api, loopback=is_loopback(str(sock.getsockname()[0]))),
        log_config=None,
        log_level=log_level,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=3,
        http=DeadlineH11Protocol,  # a connection that sends no request is closed
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="bundletui-api", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not server.started:
        server.should_exit = True
        thread.join(5)
        api.close()
        with contextlib.suppress(OSError):
            sock.close()
        raise ApiError("EB0702", f"the API server on {host}:{port} did not start")
    bound = sock.getsockname()
    handle = ApiHandle(host, int(bound[1]), thread, server, api, token)
    if not token and not is_loopback(str(bound[0])):
        log.warning(
            "the API on %s is reachable from other machines and needs no token: anyone who "
            "can reach port %d can submit, change and kill jobs (and so run commands as %s). "
            "Set a token with --api-token TOKEN, BUNDLETUI_API_TOKEN or a file %s (its first "
            "line), or listen on 127.0.0.1 (--api %d)",
            handle.url,
            handle.port,
            current_user(),
            resolve_home(home) / TOKEN_FILE,
            handle.port,
        )
    elif not token:
        # loopback is no boundary between the users of one machine: any of them may submit
        # a job that runs as this one (QA: `nobody` ran a command as root)
        log.log(
            logging.WARNING if os.geteuid() == 0 else logging.INFO,
            "the API on %s needs no token: every user of this machine can submit, change and"
            " kill jobs (and so run commands as %s). On a shared machine, set a token"
            " (--api-token TOKEN, BUNDLETUI_API_TOKEN or a file %s)",
            handle.url,
            current_user(),
            resolve_home(home) / TOKEN_FILE,
        )
    return handle


def is_loopback(address: str) -> bool:
    """Whether a bound address is only reachable from this machine (``0.0.0.0``, ``::`` and
    every other interface's address are not)."""
    try:
        return ipaddress.ip_address(address.partition("%")[0]).is_loopback
    except ValueError:
        return False


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # accepted sockets inherit it: without it every small reply waits ~40 ms (Nagle's
        # algorithm against the client's delayed ACK)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
            hint = (
                f"{host} is not an address of this machine: give 127.0.0.1 (the default), "
                "0.0.0.0 for every interface, or one of its own addresses"
            )
        else:
            hint = "choose another port (--api 0 picks a free one) or stop what uses it"
        raise ApiError(
            "EB0702", f"cannot listen on {host}:{port}: {exc.strerror or exc}", hint=hint
        ) from None
    return sock

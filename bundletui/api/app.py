"""The Starlette application: Oozie's URL layout, its error headers, the bearer token.

Routing, auth and error mapping live here; the work of each endpoint is in
:mod:`bundletui.api.handlers`, run on a small pool of worker threads, each with its own
:class:`~bundletui.store.db.Store` (sqlite3 connections are not shared across threads).

Errors follow Oozie's servlets (oozie.md §7.4): the status (400 for every user and command
error, unknown job included; 401 without a valid token; 404 for an unknown URL; 503 outside
NORMAL mode or when the store is unusable), the headers ``oozie-error-code`` and
``oozie-error-message`` (``"<code>: <message>"``), and, for our own clients, a JSON body
whose hint names HTTP parameters and endpoints, never the CLI's options
(:mod:`bundletui.api.hints`).
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import ipaddress
import json
import logging
import re
import socket
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from bundletui.api import handlers
from bundletui.api.handlers import JSON, Call, Reply
from bundletui.api.hints import api_hint
from bundletui.api.params import Params, parse_query
from bundletui.errors import ApiError, BundletuiError, StoreError, path_error
from bundletui.store.db import Store, current_user, resolve_home

log = logging.getLogger("bundletui.api")

BASE = "/oozie"
VERSIONS = [0, 1, 2]
MAX_BODY = 4 * 1024 * 1024  # a job configuration is a few KiB
# each of the 2 × 4 worker threads has a connection: at SQLite's 64 MiB each, an engine with
# --api reached 350 MB of RSS on a 427 MB store (QA); the OS's page cache is shared anyway
API_CACHE_MIB = 16
# 503: the store cannot serve now (EB006: another process held its write lock for 30 s; try
# again), as opposed to a request it refuses
_STORE_UNUSABLE = ("EB001", "EB002", "EB003", "EB006")


class Api:
    """One server's state: the home, the token, the worker threads (Oozie's system mode is in
    the store, shared with every face)."""

    def __init__(self, home: str | Path | None, token: str | None = None, workers: int = 4):
        self.home = resolve_home(home)
        self.token = token or None
        # Reads and writes on their own threads: a write waits up to 30 s for the store's
        # write lock (another process may hold it), and must not hold up reads meanwhile.
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="bundletui-api")
        self.writers = ThreadPoolExecutor(workers, thread_name_prefix="bundletui-api-write")
        self._local = threading.local()
        self._stores: list[Store] = []
        self._lock = threading.Lock()
        Store(self.home).close()  # made (or migrated) once, as the server starts

    def store(self) -> Store:
        """This worker thread's own Store, opened on first use. Never made here (the server
        made it as it started): a home moved away under it is EB001, not a new empty store."""
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = Store(self.home, create=False, cache_mib=API_CACHE_MIB)
            self._local.store = store
            with self._lock:
                self._stores.append(store)
        return store

    async def run(self, fn: Callable[[Call], Reply], call: Call) -> Reply:
        loop = asyncio.get_running_loop()
        pool = self.executor if call.method == "GET" else self.writers
        return await loop.run_in_executor(pool, functools.partial(fn, call))

    def with_store(self, fn: Callable[[Store, Call], Reply]) -> Callable[[Call], Reply]:
        return lambda call: fn(self.store(), call)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.writers.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            for store in self._stores:
                store.close()
            self._stores.clear()


# ----------------------------------------------------------------------------- responses


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def header_text(text: str) -> str:
    """A header value: one line without control characters, latin-1 (UTF-8 bytes read as
    latin-1 beyond ASCII); the JSON body keeps the exact text."""
    one_line = " ".join(_CONTROL.sub(" ", text).split())
    return one_line.encode("utf-8", "replace").decode("latin-1")


_COMPACT = (",", ":")  # as Oozie's JSONObject.toString writes it: `[0,1,2]`


def error_response(
    status: int,
    code: str,
    message: str,
    hint: str | None = None,
    *,
    file: str | None = None,
    line: int | None = None,
) -> Response:
    full = f"{code}: {message}"
    body: dict[str, Any] = {"code": code, "message": message, "status": status}
    if hint:
        body["hint"] = hint
    if file:  # where in a submitted file, as the CLI says it
        body["file"] = file
        if line:
            body["line"] = line
    headers = {"oozie-error-code": code, "oozie-error-message": header_text(full)}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="bundletui"'
    return Response(
        json.dumps(body, separators=_COMPACT), status_code=status, headers=headers, media_type=JSON
    )


def status_of(error: BundletuiError) -> int:
    if isinstance(error, ApiError):
        return error.status
    if isinstance(error, StoreError) and error.code in _STORE_UNUSABLE:
        return 503
    if error.code == "E0002":  # safe mode, as the guard below answers
        return 503
    return 400


def to_response(reply: Reply) -> Response:
    if reply.body is None:
        return Response(b"", status_code=reply.status)
    if isinstance(reply.body, str):
        return Response(reply.body, status_code=reply.status, media_type=reply.media_type)
    data = json.dumps(reply.body, ensure_ascii=False, default=str, separators=_COMPACT)
    return Response(data.encode("utf-8"), status_code=reply.status, media_type=JSON)


# ----------------------------------------------------------------------------- middleware


class BearerAuth:
    """Every request needs ``Authorization: Bearer <token>`` when the server has a token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                given = value
                break
        scheme, _, credential = given.partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), self.token):
            await self.app(scope, receive, send)
            return
        why = "missing bearer token" if not given else "invalid bearer token"
        response = error_response(
            401,
            "E0500",
            f"Not authorized, {why}",
            hint="send the header Authorization: Bearer <token>, with the token the server was "
            "started with",
        )
        await response(scope, receive, send)


class LoopbackHosts:
    """A loopback API without a token answers only requests addressed to this machine by
    name or address (``Host: 127.0.0.1``, ``localhost``, ``[::1]``, its host name). A web page whose DNS name
    is rebound to 127.0.0.1 is same-origin with the API, so CORS no longer keeps it from
    POSTing or PUTting there: its ``Host`` header, its own name, gives it away."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v for k, v in scope.get("headers", []) if k == b"host"), None)
        name = _host_name(host.decode("latin-1")) if host is not None else None
        if name is None or _names_this_machine(name):
            await self.app(scope, receive, send)
            return
        response = error_response(
            403,
            "E0500",
            f"Not authorized, Host [{name}] is not this machine",
            hint="the API without a token answers requests addressed to 127.0.0.1, localhost,"
            " [::1] or this machine's host name only; to reach it under another name, start it"
            " with --api-token",
        )
        await response(scope, receive, send)


def _host_name(header: str) -> str:
    """``Host`` without its port: ``[::1]:11000`` -> ``::1``, ``localhost:11000`` -> ``localhost``."""
    text = header.strip().lower()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else text
    return text.rpartition(":")[0] if text.count(":") == 1 else text


def _names_this_machine(name: str) -> bool:
    """localhost, a loopback address, or this machine's own host name (``curl http://$(hostname)
    …``): a rebound page cannot borrow that name, which is not its own domain's."""
    if name == "localhost" or name == socket.gethostname().lower():
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


# ----------------------------------------------------------------------------- endpoints


def _version(request: Request) -> int:
    text = str(request.path_params.get("version", ""))
    if text not in ("v0", "v1", "v2"):
        raise ApiError(
            "E0301",
            f"Invalid resource [{request.url.path}]",
            status=404,
            hint="use /oozie/v1 or /oozie/v2",
        )
    return int(text[1])


async def _call(api: Api, request: Request, resource: str = "") -> Call:
    body = b""
    if request.method in ("POST", "PUT"):
        body = await _read_body(request)
    params = Params(parse_query(request.scope.get("query_string", b"")))
    return Call(
        version=_version(request),
        # HEAD is GET without the body (the server drops it): never a PUT's action, which a web
        # page could otherwise send to the loopback API with no CORS preflight
        method="GET" if request.method == "HEAD" else request.method,
        resource=resource,
        params=params,
        body=body,
        content_type=request.headers.get("content-type", ""),
        user=params.text("user.name") or params.text("doAs") or current_user(),
    )


async def _read_body(request: Request) -> bytes:
    """The request body, refused past MAX_BODY without reading the rest."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise ApiError(
                    "EB0703",
                    f"request body larger than {MAX_BODY} bytes",
                    status=413,
                    hint="a job configuration is a few KiB: send only the <configuration>",
                )
            chunks.append(chunk)
    except ClientDisconnect:  # it went away (or was closed at its deadline): nobody to tell
        raise ApiError("EB0703", "the client went away before its request body came") from None
    return b"".join(chunks)


def _guard_mode(api: Api, call: Call, *, admin: bool = False) -> None:
    if admin:
        return
    mode = api.store().system_mode()
    if mode == "NORMAL":
        return
    if mode == "NOWEBSERVICE" or call.method != "GET":
        raise ApiError(
            "E0002",
            "System is in safe mode",  # Oozie's message for NOWEBSERVICE too: the hint says
            status=503,
            hint=f"the system mode is {mode}: PUT /oozie/v2/admin/status?systemmode=NORMAL",
        )


def endpoint(api: Api, fn: Callable[[Api, Request], Any]) -> Callable[[Request], Any]:
    """Wrap a handler: every error becomes Oozie's error reply, never a traceback page."""

    async def wrapped(request: Request) -> Response:
        try:
            reply = await fn(api, request)
            return reply if isinstance(reply, Response) else to_response(reply)
        except BundletuiError as exc:
            # the commands' hints name the CLI's options: told here in HTTP terms, or dropped
            return error_response(
                status_of(exc),
                exc.code,
                exc.located,
                api_hint(exc.hint),
                file=exc.file,
                line=exc.line,
            )
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                log.exception("%s %s failed", request.method, request.url.path)
                return error_response(500, "E0603", f"SQL error in operation, {exc}")
            log.warning("store busy: %s", exc)  # the client may retry: 503
            return error_response(503, "E0603", f"SQL error in operation, {exc}")
        except Exception as exc:
            said = path_error(exc) if isinstance(exc, OSError) else None
            if said is not None:  # a path in the request that cannot be one (too long)
                return error_response(400, said.code, said.message, said.hint)
            log.exception("%s %s failed", request.method, request.url.path)
            return error_response(500, "E0307", f"Runtime error [{type(exc).__name__}: {exc}]")

    return wrapped


async def versions(api: Api, request: Request) -> Reply:
    return Reply(VERSIONS)


async def openapi(api: Api, request: Request) -> Reply:
    from bundletui.api.openapi import document

    return Reply(document())


async def admin(api: Api, request: Request) -> Reply:
    call = await _call(api, request, str(request.path_params["resource"]))
    _guard_mode(api, call, admin=True)
    return await api.run(api.with_store(handlers.admin), call)


async def jobs(api: Api, request: Request) -> Reply:
    call = await _call(api, request)
    _guard_mode(api, call)
    fn = {"GET": handlers.jobs_get, "POST": handlers.submit, "PUT": handlers.jobs_put}[call.method]
    return await api.run(api.with_store(fn), call)


async def job(api: Api, request: Request) -> Reply:
    call = await _call(api, request, str(request.path_params["job_id"]).strip())
    _guard_mode(api, call)
    fn = handlers.job_get if call.method == "GET" else handlers.job_put
    return await api.run(api.with_store(fn), call)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405: with Oozie's headers too."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        response = error_response(
            405, "E0301", f"Invalid method [{request.method}] for {request.url.path}"
        )
        if exc.headers:
            response.headers.update(exc.headers)
        return response
    return error_response(
        exc.status_code,
        "E0301",
        f"Invalid resource [{request.url.path}]",
        hint="the API lives under /oozie: /oozie/versions, /oozie/v2/jobs, /oozie/v2/job/<id>",
    )


class _AnyText(Convertor[str]):
    """A job id as given, even with a newline in it (``path`` stops at one): then it is an
    unknown job (400 E0604), not an unknown URL."""

    regex = r"[\s\S]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("bundletui_id", _AnyText())


def create_app(api: Api, *, loopback: bool = False) -> ASGIApp:
    """The ASGI app for ``api``: wrapped in the bearer check when it has a token, else, when
    it listens on a ``loopback`` address, in the check of the ``Host`` it is addressed to."""
    routes = [
        Route(f"{BASE}/versions", endpoint(api, versions), methods=["GET"]),
        Route(f"{BASE}/openapi.json", endpoint(api, openapi), methods=["GET"]),
        Route(
            f"{BASE}/{{version}}/admin/{{resource}}", endpoint(api, admin), methods=["GET", "PUT"]
        ),
        Route(f"{BASE}/{{version}}/jobs", endpoint(api, jobs), methods=["GET", "POST", "PUT"]),
        Route(
            f"{BASE}/{{version}}/job/{{job_id:bundletui_id}}",
            endpoint(api, job),
            methods=["GET", "PUT"],
        ),
    ]
    app: ASGIApp = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    if api.token:
        app = BearerAuth(app, api.token)
    elif loopback:
        app = LoopbackHosts(app)
    return app

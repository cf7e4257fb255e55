"""Uvicorn's h11 protocol with a deadline for a request's head.

Uvicorn waits for ever for a connection's first request: a client that connects and sends
nothing, or half a request line, holds a file descriptor of the engine's process for good.
A thousand of them (no token needed: the token is read from the headers) used up the fds,
and the engine could then neither read ``/proc`` for a job it had started nor open the
store. Here a connection that has not sent a whole request head within
:data:`REQUEST_HEAD_TIMEOUT` seconds of connecting is closed, and one whose first request's
body is still incomplete :data:`REQUEST_BODY_TIMEOUT` seconds after it connected (a
``Content-Length`` larger than what it sends: QA held 400 so); after its first request,
uvicorn's keep-alive timeout closes it when idle.

Deadlines alone do not bound how many are open at once: 800 connections that sent a head and
no body, each within its deadline, used up the engine's fds (QA, with ``ulimit -n 256``), and
its next job could not start. Past :data:`MAX_CONNECTIONS` open at once (a quarter of the fd
limit, at most 256) a new connection is answered 503 and closed at once.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("bundletui.api")

REQUEST_HEAD_TIMEOUT = 10.0
REQUEST_BODY_TIMEOUT = 60.0  # the API takes bodies of 4 MiB at most
MAX_CONNECTIONS = max(16, min(256, resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 4))
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
_said_busy = [0.0]  # when the last warning was logged (one a minute at most)


class DeadlineH11Protocol(H11Protocol):
    _head_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            transport.write(BUSY)
            transport.close()
            if time.monotonic() - _said_busy[0] > 60:
                _said_busy[0] = time.monotonic()
                log.warning(
                    "API: %d connections open at once; more are answered 503 until some close",
                    MAX_CONNECTIONS,
                )
            return
        self._head_timer = self.loop.call_later(REQUEST_HEAD_TIMEOUT, self._head_overdue)
        self._body_timer = self.loop.call_later(REQUEST_BODY_TIMEOUT, self._body_overdue)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._head_timer, self._body_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._body_timer = None
        super().connection_lost(exc)

    def _body_overdue(self) -> None:
        self._body_timer = None
        cycle = self.cycle
        if (
            cycle is not None
            and cycle.more_body
            and not cycle.response_complete
            and not self.transport.is_closing()
        ):
            self.transport.close()

    def _head_overdue(self) -> None:
        self._head_timer = None
        if self.cycle is None and not self.transport.is_closing():  # no request yet
            self.transport.close()

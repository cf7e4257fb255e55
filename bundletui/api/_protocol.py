"""Uvicorn's h11 protocol with a deadline for a request's head.

Uvicorn waits for ever for a connection's first request: a client that connects and sends
nothing, or half a request line, holds a file descriptor of the engine's process for good.
A thousand of them (no token needed: the token is read from the headers) used up the fds,
and the engine could then neither read ``/proc`` for a job it had started nor open the
store. Here a connection that has not sent a whole request head within
:data:`REQUEST_HEAD_TIMEOUT` seconds of connecting is closed; after its first request,
uvicorn's keep-alive timeout closes it when idle.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_HEAD_TIMEOUT = 10.0


class DeadlineH11Protocol(H11Protocol):
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer = self.loop.call_later(REQUEST_HEAD_TIMEOUT, self._head_overdue)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().connection_lost(exc)

    def _head_overdue(self) -> None:
        self._head_timer = None
        if self.cycle is None and not self.transport.is_closing():  # no request yet
            self.transport.close()

"""The HTTP face: Oozie's Web Services API (oozie.md §7) over the same commands as the CLI.

``serve_in_thread(home, host, port, token) -> ApiHandle`` serves it beside an engine (``bundletui
run --api``); ``create_app(Api(home, token))`` in
:mod:`bundletui.api.app` is the ASGI app itself. Starlette and uvicorn load only when serving.
"""

from __future__ import annotations

from bundletui.api.server import ApiHandle, parse_bind, read_token, serve_in_thread

__all__ = ["ApiHandle", "parse_bind", "read_token", "serve_in_thread"]

"""``bundletui run``: the engine in the foreground (headless)."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.logging import RichHandler

from bundletui.cli._common import (
    HomeOpt,
    blank_refused,
    handle_errors,
    on_command_line,
    sqlite_error,
)
from bundletui.errors import BundletuiError, EngineError, UsageError
from bundletui.model.timeutil import option_time
from bundletui.store.db import resolve_home


def _log_handler() -> logging.Handler:
    """Rich's columns on a terminal; one plain line per record into a file or a pipe, where
    Rich would fold a long line at 80 columns and a grep for ``node … -> SUCCEEDED`` miss it."""
    if sys.stdout.isatty():
        return RichHandler(show_path=False, rich_tracebacks=False, markup=False)
    plain = logging.StreamHandler(sys.stdout)
    plain.setFormatter(logging.Formatter("%(asctime)s %(levelname)-8s %(message)s"))
    return plain


def check_landing(landing: Path) -> None:
    """``--landing``, refused before an engine starts: under a file, or the root itself."""
    # the directory is made if missing, so its nearest existing ancestor must be one
    where = landing.absolute()
    existing = next(p for p in (where, *where.parents) if p.exists())
    if not existing.is_dir():
        raise UsageError(
            "E0303",
            f"Invalid parameter value, [--landing] = [{landing}]: {existing} is a file, "
            "not a directory",
            hint="give the directory where data lands (made if missing)",
        )
    if os.path.realpath(where) == "/":  # QA: the whole file system, walked every 2 s
        raise UsageError(
            "E0303",
            f"Invalid parameter value, [--landing] = [{landing}]: it is the root of the"
            " file system, which the engine would watch and walk whole",
            hint="give the directory where data lands, e.g. /data/landing",
        )


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def run(
        ctx: typer.Context,
        home: HomeOpt = None,
        landing: Annotated[
            Path | None,
            typer.Option(
                "--landing",
                help="Landing directory to watch (default <home>/landing).",
                parser=lambda v: blank_refused(v, "'--landing'", "the landing", "<home>/landing"),
            ),
        ] = None,
        clock: Annotated[
            str,
            typer.Option(
                "--clock",
                help="real | simulated (default: real; a store last run on a simulated clock "
                "needs it said)",
                show_default=False,
            ),
        ] = "",
        start_time: Annotated[
            str | None,
            typer.Option("--start-time", help="Simulated clock start, yyyy-MM-ddTHH:mmZ."),
        ] = None,
        until: Annotated[
            str | None, typer.Option("--until", help="Stop when the clock reaches this time.")
        ] = None,
        max_workers: Annotated[
            int,
            typer.Option(
                "--max-workers", min=1, max=100_000, help="Most shell jobs running at once."
            ),
        ] = 32,
        lease_ttl: Annotated[
            float,
            typer.Option(
                "--lease-ttl",
                min=0.5,
                max=3600.0,
                help="Seconds before a dead engine's lease can be taken over; also how often"
                " a running shell job's wrapper beats, for an engine on another host.",
            ),
        ] = 5.0,
        settle: Annotated[
            float,
            typer.Option(
                "--settle",
                min=0.0,
                max=3600.0,
                help="Seconds a file must stop growing before it counts as a partition of an "
                'event feed with done-flag="" (slow writers: raise it, or write elsewhere and '
                "rename into place).",
            ),
        ] = 0.5,
        verbose: Annotated[
            bool, typer.Option("--verbose", "-v", help="Log every transition.")
        ] = False,
        exit_when_idle: Annotated[
            bool,
            typer.Option(
                "--exit-when-idle", help="Stop once nothing runs, waits or is due (scripts, CI)."
            ),
        ] = False,
        purge: Annotated[
            str | None,
            typer.Option(
                "--purge",
                help="Every hour, delete ended jobs older than these days, as Oozie's "
                "PurgeService: 'wf=30;coord=7;bundle=7;limit=100' (a key left out keeps that "
                "default), or 'default'. See `bundletui purge`.",
            ),
        ] = None,
        api: Annotated[
            str | None,
            typer.Option(
                "--api",
                help="Also serve Oozie's Web Services API on [HOST:]PORT (host 127.0.0.1 unless "
                "given; port 0 picks a free one). Base URL http://HOST:PORT/oozie.",
            ),
        ] = None,
        api_token: Annotated[
            str | None,
            typer.Option(
                "--api-token",
                envvar="BUNDLETUI_API_TOKEN",
                help="Require Authorization: Bearer TOKEN on every API request "
                "(default: the first line of <home>/api-token, if that file exists).",
                show_default=False,
            ),
        ] = None,
    ) -> None:
        """Run the engine in the foreground until Ctrl-C / SIGTERM (running jobs keep running)."""
        from bundletui.commands.purge import parse_purge_spec
        from bundletui.engine.service import Engine, EngineConfig

        start = clock_start(clock, start_time)
        if api is None and api_token is not None and on_command_line(ctx, "api_token"):
            raise UsageError(
                "E0302",
                "Invalid parameter [--api-token without --api]: no API is served to require it",
                hint="add --api [HOST:]PORT to serve Oozie's API, or leave out --api-token",
            )
        try:
            purge_days = None if purge is None else parse_purge_spec(purge)
        except BundletuiError as exc:
            raise UsageError.of(exc) from None
        if landing is not None:
            check_landing(landing)
        logging.basicConfig(
            level=logging.DEBUG if verbose else logging.INFO,
            format="%(message)s",
            handlers=[_log_handler()],
        )
        logging.getLogger("watchfiles").setLevel(logging.WARNING)
        logging.getLogger("asyncio").setLevel(logging.INFO)  # -v: not its "Using selector"
        config = EngineConfig(
            home=resolve_home(home),
            landing=landing,
            clock=clock,
            start_time=start,
            until=_option_time(until, "--until"),
            max_workers=max_workers,
            lease_ttl=lease_ttl,
            settle=settle,
            exit_when_idle=exit_when_idle,
            purge=purge_days,
        )
        engine = Engine(config)
        handle = None
        if api is not None:
            from bundletui.api import parse_bind, serve_in_thread

            try:
                host, port = parse_bind(api)
            except BundletuiError as exc:
                raise UsageError.of(exc) from None
            if api_token is None and os.environ.get("BUNDLETUI_API_TOKEN") == "":
                api_token = ""  # click reads an empty variable as unset: it is refused instead
            handle = serve_in_thread(config.home, host, port, api_token)
            logging.getLogger("bundletui.api").info(
                "API listening on %s%s",
                handle.url,
                " (bearer token required)" if handle.token else "",
            )

        async def main() -> None:
            restore = engine.install_signal_handlers()
            try:
                await engine.run()
            finally:
                restore()

        try:
            asyncio.run(main())
        except sqlite3.DatabaseError as exc:
            said = sqlite_error(exc)
            if said is None:
                raise
            raise EngineError(  # the store failed under the engine: it stopped
                said.code,
                said.message.replace(
                    "nothing was changed",
                    "the engine stopped, and its last tick was undone (nothing is lost)",
                ),
                hint=f"{said.hint}; then start it again: running jobs go on meanwhile, and it"
                " takes them over",
            ) from None
        finally:
            if handle is not None:
                handle.stop()


def clock_start(clock: str, start_time: str | None) -> datetime | None:
    """``--clock`` and ``--start-time`` checked (E0303), as ``run`` and ``console`` take them
    for their engine; the start time parsed."""
    if clock not in ("", "real", "simulated"):
        raise UsageError(
            "E0303",
            f"Invalid parameter value, [clock] = [{clock}]",
            hint="use --clock real or --clock simulated",
        )
    if start_time is not None and clock != "simulated":
        # the real clock has no start: taken silently, it read like a time shift (QA)
        raise UsageError(
            "E0303",
            f"Invalid parameter value, [--start-time] = [{start_time}]: it is where a"
            " simulated clock starts, and goes with --clock simulated",
            hint="add --clock simulated, or leave --start-time out",
        )
    return _option_time(start_time, "--start-time")


def _option_time(text: str | None, option: str) -> datetime | None:
    """An option's time; a bad one is an invalid parameter (E0302), not the coordinator
    attribute error (E1003) the parser gives for an XML attribute."""
    if not text:
        return None
    try:
        return option_time(text, option)
    except BundletuiError as exc:
        raise UsageError.of(exc) from None

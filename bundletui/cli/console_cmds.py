"""``bundletui console``: the operator console (Textual) over a store, with or without its own
engine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from bundletui.cli._common import HomeOpt, err, handle_errors, on_command_line
from bundletui.cli.engine_cmds import check_landing
from bundletui.errors import BundletuiError, CommandError, UsageError
from bundletui.store.db import Store, resolve_home


def _need_terminal() -> None:
    """A console piped or redirected (``console > log``, cron, a script without ``ssh -t``)
    would draw escape codes into the file and wait for keys that never come, with its own
    engine running: refuse it, as nothing is lost by saying so."""
    for name, stream in (("input", sys.stdin), ("output", sys.stdout)):
        if stream is None or not stream.isatty():
            raise CommandError(  # not a usage mistake: exit 1, as a refused command
                "EB602",
                f"the console needs a terminal, and its standard {name} is not one",
                hint="run it in a terminal (over SSH: ssh -t host bundletui console); for a "
                "headless engine use `bundletui run`, for listings `bundletui jobs` and "
                "`bundletui info ID --json`",
            )


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def console(
        ctx: typer.Context,
        home: HomeOpt = None,
        landing: Annotated[
            Path | None,
            typer.Option(
                "--landing",
                help="Landing directory the console's engine watches (default <home>/landing).",
            ),
        ] = None,
        read_only: Annotated[
            bool,
            typer.Option(
                "--read-only",
                help="Watch only: no suspend/resume/kill/rerun/pause keys, no engine.",
            ),
        ] = False,
        demo: Annotated[
            bool,
            typer.Option(
                "--demo",
                help="A fresh temporary home (not BUNDLETUI_HOME's; --home DIR: an empty DIR,"
                " kept) with the feeds bundle running and a feeder dropping partitions.",
            ),
        ] = False,
        interval: Annotated[
            float,
            typer.Option(
                "--interval",
                min=0.1,
                max=3600.0,
                help="Seconds between polls of the store (0.1 to 3600).",
            ),
        ] = 1.0,
        clock: Annotated[
            str,
            typer.Option(
                "--clock",
                help="The console's engine clock, as for `bundletui run`: real | simulated "
                "(default: real; a store last run on a simulated clock needs it said). A "
                "simulated clock jumps to the next due time whenever nothing runs.",
                show_default=False,
            ),
        ] = "",
        start_time: Annotated[
            str | None,
            typer.Option(
                "--start-time",
                help="Simulated clock start, yyyy-MM-ddTHH:mmZ (a store already on a simulated"
                " clock resumes at its own time).",
            ),
        ] = None,
    ) -> None:
        """The operator console: a live tree of bundles, coordinators, actions and workflow nodes.

        Runs the engine itself when no engine holds the store's lease; attaches to a running
        `bundletui run` otherwise (the header says which).
        """
        from bundletui.cli.engine_cmds import clock_start
        from bundletui.engine.service import EngineConfig, check_clock
        from bundletui.tui.app import ConsoleApp, ConsoleConfig
        from bundletui.tui.demo import check_demo_home, make_demo
        from bundletui.tui.engine_host import live_lease

        start = clock_start(clock, start_time)
        if read_only and (clock or start_time is not None):
            raise UsageError(
                "E0303",
                "Invalid parameter value, [--clock]: a read-only console runs no engine, so it"
                " has no clock to set",
                hint="leave --clock and --start-time out, or drop --read-only",
            )
        if landing is not None and not read_only:
            check_landing(landing)  # as run checks it: the console's engine watches it
        demo_setup = None
        if demo:
            # BUNDLETUI_HOME names the user's own store: the demo never writes there; only a
            # --home given for it on the command line (which must hold no store) is used
            explicit = home is not None and on_command_line(ctx, "home")
            demo_home = resolve_home(home) if explicit else None
            check_demo_home(demo_home)
            _need_terminal()  # before the demo's home and bundle are made
            demo_setup = make_demo(demo_home)
            home_dir = demo_setup.home
            landing = demo_setup.landing
        else:
            home_dir = resolve_home(home)
            # creates nothing: a mistyped --home is EB001, as for every command but submit,
            # not a new empty store with an engine in it (--demo makes its own home)
            store = Store(home_dir, create=False)
            try:
                # said here, as run says it, not after the screen opened; a console that
                # attaches to a running engine starts none of its own (as on_mount decides)
                if not read_only and live_lease(home_dir) is None:
                    try:
                        check_clock(store, clock, start)
                    except BundletuiError as exc:
                        exc.hint = f"{exc.hint}; or --read-only to look at it without an engine"
                        raise
            finally:
                store.close()
            _need_terminal()  # after what is wrong with the store: that is said first
        config = ConsoleConfig(
            home=home_dir,
            landing=landing,
            # clock "": a store last run on a simulated clock is refused (EB203), not moved
            engine_config=EngineConfig(
                home=home_dir, landing=landing, clock=clock, start_time=start
            ),
            read_only=read_only,
            poll_interval=interval,
            demo=demo_setup,
            handle_signals=True,
        )
        app = ConsoleApp(config)
        if demo_setup is not None:
            demo_setup.start_feeder()
        try:
            app.run()
        finally:
            if demo_setup is not None:
                demo_setup.cleanup()
        if demo_setup is not None and not demo_setup.temporary:
            err.print(f"demo store kept in {demo_setup.home}", markup=False)
        if app.return_code:  # a crash (its traceback printed by Textual): not a clean exit
            raise typer.Exit(app.return_code)

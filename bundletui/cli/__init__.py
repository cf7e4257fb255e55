"""The command line face (typer). Parses, calls commands, prints; holds no scheduling logic."""

from __future__ import annotations

import typer

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    help="bundletui: Oozie bundles, coordinators and workflows, JobControl DAGs and event schedules on one SQLite file.",
)


@app.callback()
def _root() -> None:
    """bundletui: an Oozie-compatible scheduler and its operations console."""


@app.command()
def version() -> None:
    """Print bundletui's version."""
    from bundletui import __version__

    typer.echo(__version__)


def _register() -> None:
    from bundletui.cli import console_cmds, engine_cmds, job_cmds, oozie_cmds, spec_cmds

    spec_cmds.register(app)
    job_cmds.register(app)
    engine_cmds.register(app)
    oozie_cmds.register(app)
    console_cmds.register(app)


def main() -> None:
    _register()
    app()

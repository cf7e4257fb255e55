"""The command line face (typer). Holds no scheduling logic: it parses, calls, and prints."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help="bundletui: an Oozie-compatible scheduler and console.")


@app.callback()
def _root() -> None:
    """bundletui: an Oozie-compatible scheduler and console."""


@app.command()
def version() -> None:
    """Print the version."""
    from bundletui import __version__

    typer.echo(__version__)


def main() -> None:
    app()

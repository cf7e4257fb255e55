"""The typer group under ``bundletui oozie``: each sub-command hands its raw argv to this front's
parser, and an unknown one fails as Oozie's CLI does (255, not click's 2)."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

from bundletui.cli.oozie.errors import EXIT_ERROR
from bundletui.cli.oozie.format import say
from bundletui.cli.oozie.runner import run
from bundletui.cli.oozie.usage import USAGE
from bundletui.cli.oozie.validate import validate_command

_PASS_THROUGH = {
    "ignore_unknown_options": True,
    "allow_extra_args": True,
    "help_option_names": [],
}


class _OozieGroup(TyperGroup):
    """An unknown sub-command is Oozie's ``Invalid sub-command``, exit 255 as every error of
    this front (a script checks for it), not the native usage error's 2."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args:  # Oozie's CLIParser: "missing sub-command", exit -1 (255)
            _invalid("missing sub-command")
        return list(super().parse_args(ctx, args))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        from bundletui.cli import click_class

        try:
            return super().resolve_command(ctx, args)
        except click_class("UsageError"):
            _invalid(f"Unrecognized command: {args[0]}")


def _invalid(why: str) -> NoReturn:
    print(f"Invalid sub-command: {why}", file=sys.stderr)
    print(file=sys.stderr)
    print(
        "use: bundletui oozie job|jobs|admin|validate|version|help (oozie help: usage)",
        file=sys.stderr,
    )
    raise typer.Exit(EXIT_ERROR)


def register(app: typer.Typer) -> None:
    oozie = typer.Typer(
        cls=_OozieGroup,
        add_completion=False,
        help="Oozie's command line: `bundletui oozie job -info ID`, `bundletui oozie jobs "
        "-jobtype coordinator` … with Oozie's options, output and exit codes (255 on error).",
    )

    @oozie.command("job", context_settings=_PASS_THROUGH, add_help_option=False)
    def job(ctx: typer.Context) -> None:
        """Job operations: -submit/-run/-dryrun -config F, -start/-suspend/-resume/-kill/
        -change/-rerun/-info/-log/-definition/-ignore ID (run with no options for usage)."""
        raise typer.Exit(run("job", list(ctx.args)))

    @oozie.command("jobs", context_settings=_PASS_THROUGH, add_help_option=False)
    def jobs_(ctx: typer.Context) -> None:
        """Job listings: -jobtype wf|coordinator|bundle -filter … -len … -offset …"""
        raise typer.Exit(run("jobs", list(ctx.args)))

    @oozie.command("admin", context_settings=_PASS_THROUGH, add_help_option=False)
    def admin(ctx: typer.Context) -> None:
        """Admin: -status, -systemmode NORMAL|NOWEBSERVICE|SAFEMODE, -version, -purge SPEC."""
        raise typer.Exit(run("admin", list(ctx.args)))

    @oozie.command("help", context_settings=_PASS_THROUGH, add_help_option=False)
    def help_(ctx: typer.Context) -> None:
        """Every sub-command's usage, as `oozie help` prints it."""
        say("\n\n".join(USAGE[k] for k in ("job", "jobs", "admin", "validate", "version")))

    @oozie.command("validate", context_settings=_PASS_THROUGH, add_help_option=False)
    def validate(ctx: typer.Context) -> None:
        """Check one workflow, coordinator or bundle XML file: `Valid workflow-app`."""
        raise typer.Exit(validate_command(list(ctx.args)))

    @oozie.command("version", context_settings=_PASS_THROUGH, add_help_option=False)
    def version(ctx: typer.Context) -> None:
        """The client build version."""
        raise typer.Exit(run("version", list(ctx.args)))

    app.add_typer(oozie, name="oozie")

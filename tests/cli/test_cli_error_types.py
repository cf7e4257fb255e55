"""The command line's errors are the layers' types of bundletui.errors, each with its code,
while what a user sees stays as it was: Oozie's own text on ``bundletui oozie`` (exit 255),
``Error: <code>: …`` elsewhere (exit 1 for a refusal).

QA: ``bundletui oozie`` had a UsageError of its own (shadowing bundletui.errors.UsageError) and
a CliError, both bare Exceptions without a code, and the base BundletuiError was raised where a
layer's type belongs.
"""

from __future__ import annotations

import io
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bundletui import errors
from bundletui.cli import _register, app, console_cmds
from bundletui.cli.oozie.args import JOB_OPTIONS, OPTION_TABLES, parse_args
from bundletui.cli.oozie.controls import SCOPED_OPERATIONS, refuse_scope
from bundletui.cli.oozie.errors import CliError, ParseError
from bundletui.cli.oozie.front import Front, _zone
from bundletui.cli.oozie.job_text import op_log
from bundletui.cli.oozie.jobs import jobs_command
from bundletui.cli.oozie.operations import JOB_OPERATIONS
from bundletui.cli.oozie.runner import run
from bundletui.cli.oozie.usage import USAGE
from bundletui.store.db import Store

_register()


def run_oozie(kind: str, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = run(kind, list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ----------------------------------------------------------------------------- oozie: parsing


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["-info"], "E0305", "Missing argument for option: info"),
        (["-info", "X-W", "-D"], "E0305", "Missing argument for option: D"),
        (["-action", "-info", "X-W"], "E0305", "Missing argument for option: action"),
        (["-bogus"], "E0302", "Unrecognized option: -bogus"),
        (["-info", "X-W", "stray"], "E0302", "Unrecognized argument: stray"),
        (["-info", "X-W", "-verbose=yes"], "E0302", "Option -verbose takes no argument"),
        (
            ["-info", "X-W", "-kill", "X-W"],
            "E0302",
            "The option 'kill' was specified but an option from this group has already been"
            " selected: 'info'",
        ),
        (["-verbose"], "E0305", "Missing required option: one of -submit, -run, -dryrun,"),
    ],
)
def test_a_parse_error_is_a_usage_error_with_a_code(
    argv: list[str], code: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(errors.UsageError) as caught:
        parse_args(argv, JOB_OPTIONS, need_operation=True)
    assert isinstance(caught.value, ParseError)
    assert caught.value.code == code and caught.value.message.startswith(message)
    assert caught.value.layer == "cli"
    # printed as Oozie prints commons-cli's ParseException: no code, the usage, 255
    status, out, err = run_oozie("job", *argv, capsys=capsys)
    assert (status, out) == (255, "")
    first, blank, usage = err.split("\n", 2)
    assert first == f"Invalid sub-command: {caught.value.message}"
    assert blank == "" and usage == USAGE["job"] + "\n"


def test_a_client_error_is_a_usage_error_with_a_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Store(tmp_path / "home").close()
    home = ("-home", str(tmp_path / "home"))
    cases = [
        (("job", "-submit", *home), "E0305", "configuration is not specified"),
        (
            ("job", "-submit", "-config", str(tmp_path / "job.txt"), "-D", "a=b", *home),
            "E0702",
            f"configuration file [{tmp_path / 'job.txt'}] not found",
        ),
        (
            ("job", "-change", "X-C", *home),
            "E0305",
            "-value option needs to be specified for -change option",
        ),
        (
            ("job", "-configcontent", "X-Q", *home),
            "E0303",
            "job id [X-Q] doesn't end with either C or W or B",
        ),
        (
            ("job", "-start", "X-W", "-action", "1", *home),
            "E0302",
            "Invalid options provided for start: -action is not valid with -start",
        ),
        (
            ("jobs", "-len", "x", *home),
            "E0304",
            'For input string: "x" (-len takes a number)',
        ),
    ]
    for (kind, *argv), code, message in cases:
        status, out, err = run_oozie(kind, *argv, capsys=capsys)
        # Oozie's OozieCLIException text, byte for byte, and 255
        assert (status, out, err) == (255, "", f"Error: {message}\n"), argv
        args = parse_args(argv, OPTION_TABLES[kind], need_operation=kind == "job")
        front = Front(args, tmp_path / "home")
        with pytest.raises(errors.UsageError) as caught:
            if kind == "jobs":
                jobs_command(front)
            else:
                assert args.operation is not None
                if args.operation not in SCOPED_OPERATIONS:
                    refuse_scope(front, args.operation)
                JOB_OPERATIONS[args.operation](front)
        assert isinstance(caught.value, CliError), argv
        assert (caught.value.code, caught.value.message) == (code, message)


def test_the_notes_of_a_client_error_are_still_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "job.properties"
    status, out, err = run_oozie("job", "-run", "-config", str(missing), capsys=capsys)
    assert (status, out) == (255, "")
    assert err == (
        f"Error: configuration is not specified\n  note: the -config file {missing} does not exist\n"
    )


# ----------------------------------------------------------------------------- oozie: values


def test_a_bad_display_zone_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(errors.UsageError) as caught:
        _zone("Bogus/Zone")
    assert caught.value.code == "E0303"
    assert caught.value.message == "Invalid parameter value, [timezone] = [Bogus/Zone]"


def test_an_unknown_workflow_action_log_is_a_command_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Store(tmp_path / "home").close()
    node = "0000000-000000000000000-bundletui-W@nope"
    args = parse_args(["-log", node], JOB_OPTIONS, need_operation=True)
    with pytest.raises(errors.CommandError) as caught:
        op_log(Front(args, tmp_path / "home"))
    assert (caught.value.code, caught.value.message) == ("E0605", f"Action does not exist [{node}]")
    status, out, err = run_oozie(
        "job", "-log", node, "-home", str(tmp_path / "home"), capsys=capsys
    )
    assert (status, out, err) == (
        255,
        "",
        f"Error: E0605 : E0605: Action does not exist [{node}]\n",
    )


# ----------------------------------------------------------------------------- console, run


def test_a_console_without_a_terminal_is_a_command_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO())
    with pytest.raises(errors.CommandError) as caught:
        console_cmds._need_terminal()
    assert caught.value.code == "EB602" and not caught.value.usage  # exit 1, not 2
    assert caught.value.message == "the console needs a terminal, and its standard input is not one"


class _StoreFullEngine:
    """An engine whose store's disk fills up under it."""

    def __init__(self, config: Any) -> None:
        self.config = config

    def install_signal_handlers(self) -> Any:
        return lambda: None

    async def run(self) -> None:
        raise sqlite3.OperationalError("database or disk is full")


def test_an_engine_stopped_by_its_store_is_an_engine_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bundletui.cli._common as common
    import bundletui.engine.service as service

    printed: list[errors.BundletuiError] = []
    real_print = common.print_error

    def keep(exc: errors.BundletuiError) -> None:
        printed.append(exc)
        real_print(exc)

    monkeypatch.setattr(service, "Engine", _StoreFullEngine)
    monkeypatch.setattr(common, "print_error", keep)
    result = CliRunner().invoke(app, ["run", "--home", str(tmp_path / "home")])
    assert result.exit_code == 1, result.output
    assert len(printed) == 1 and isinstance(printed[0], errors.EngineError), printed
    assert printed[0].code == "EB007"
    assert "the engine stopped, and its last tick was undone (nothing is lost)" in (
        printed[0].message
    )

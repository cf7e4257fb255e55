"""What every CLI command shares: options, the error path, output helpers.

A user mistake prints ``Error: <code>: <message>`` (with the file and line when there is one and
a hint on how to fix it) to stderr and exits 1 — never a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from bundletui.errors import BundletuiError, CommandError, StoreError, UsageError, path_error

F = TypeVar("F", bound=Callable[..., Any])


def _piped_width() -> int | None:
    """Piped (``bundletui jobs | grep …``) with no COLUMNS: wide enough that no table cell is
    cut to ``naiv…``; a terminal, or COLUMNS, gives its own width."""
    if os.environ.get("COLUMNS") or sys.stdout.isatty():
        return None
    return 400


# C0 and C1 control characters but tab and newline, shown as \x1b etc.: a job's name or
# error built from a -D value or a job's output must not drive the operator's terminal
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0, 9), *range(11, 32), 127, *range(0x80, 0xA0))}


def printable(text: str) -> str:
    """A CRLF line end (Oozie's configuration XML has them) is a line end, not ``\\x0d``."""
    return text.replace("\r\n", "\n").translate(_CONTROLS)


class _Console(Console):
    """Every string printed goes through here before its markup is read (Rich's own
    styling is added after, so colours still work)."""

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(printable(text), **kwargs)


# emoji=False: ``:smile:`` in a name, a path or an EL error is the user's text, not a picture
out = _Console(highlight=False, soft_wrap=True, width=_piped_width(), emoji=False)
err = _Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def _home_dir(value: str) -> Path:
    """``--home ''`` (an unset variable in a script) would be the current directory."""
    # which of the two was given is not known here: both are named, neither blamed
    return blank_refused(value, "'--home' (or BUNDLETUI_HOME)", "the store's", "~/.bundletui")


def blank_refused(value: str, option: str, what: str, default: str) -> Path:
    """A directory option given blank (an unset variable in a script): ``Path('')`` is the
    current directory, and ``' '`` a directory named by a space."""
    if not value.strip():
        raise typer.BadParameter(
            f"is empty; name {what} directory (default {default})", param_hint=option
        )
    return Path(value)


HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home",
        envvar="BUNDLETUI_HOME",
        help="Store directory (default ~/.bundletui).",
        show_default=False,
        parser=_home_dir,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (Oozie's keys).")]
# validate / eval / dryrun have no Oozie JSON to follow: their keys are bundletui's own
SpecJsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def _define(value: str) -> str:
    """``-D name`` without ``=`` is a usage mistake, told before any file is read."""
    from bundletui.spec.config import parse_overrides

    try:
        parse_overrides([value])
    except BundletuiError:
        raise typer.BadParameter(
            f"{value!r} is not name=value (the value may be empty: name=)"
        ) from None
    return value


DefineOpt = Annotated[
    list[str] | None,
    typer.Option(
        "-D",
        "--define",
        help="Override a property: -D name=value (repeatable).",
        show_default=False,
        parser=_define,
    ),
]


@contextlib.contextmanager
def filter_is_usage() -> Iterator[None]:
    """A ``--filter`` the command refuses (E0420 jobs, E0421 a coordinator's actions) is a
    value the option cannot take: exit 2, as README says of such mistakes."""
    try:
        yield
    except BundletuiError as exc:
        if exc.code in ("E0420", "E0421"):
            raise UsageError.of(exc) from None
        raise


def handle_errors(fn: F) -> F:
    """Turn every user error into one clear message and a non-zero exit."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except BundletuiError as exc:
            print_error(exc)
            raise typer.Exit(2 if exc.usage else 1) from None
        except OverflowError as exc:  # a number too big for SQLite or the calendar: the input's
            print_error(
                CommandError(  # a bad value the command met, not the command line's form
                    "E0303",
                    f"a number given is out of range ({exc})",
                    hint="counts, sizes and frequencies must fit in a 32-bit int, as in Oozie",
                )
            )
            raise typer.Exit(1) from None
        except sqlite3.DatabaseError as exc:
            said: BundletuiError | None = sqlite_error(exc)
            if said is None:
                raise
            print_error(said)
            raise typer.Exit(1) from None
        except OSError as exc:
            said = path_error(exc)
            if said is None:
                raise
            print_error(said)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def sqlite_error(exc: sqlite3.DatabaseError) -> StoreError | None:
    """The store errors a user can fix (a read-only file, a damaged store, a full disk), as one
    message, with the notes a command added on the way up; None for the rest (a bug of ours
    keeps its traceback)."""
    said = _sqlite_error(exc)
    if said is not None:
        for note in getattr(exc, "__notes__", ()):
            said.add_note(note)
    return said


def _sqlite_error(exc: sqlite3.DatabaseError) -> StoreError | None:
    text = str(exc)
    if any(s in text for s in ("no such table", "no such column", "malformed", "not a database")):
        return StoreError(
            "EB004",
            f"the store is damaged: {text}; nothing was changed",
            hint="restore bundletui.db from a backup, or move it aside (with its -wal and -shm"
            " files) and submit again to make a new one",
        )
    primary = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if primary == sqlite3.SQLITE_FULL or "database or disk is full" in text:
        return StoreError(
            "EB007",
            f"the store could not be written, its disk is full ({text}); nothing was changed",
            hint="free space on the file system holding the store (bundletui.db, its -wal, "
            "logs/ and work/), then try again",
        )
    if primary == sqlite3.SQLITE_IOERR:
        return StoreError(
            "EB007",
            f"the store could not be read or written ({text}); nothing was changed",
            hint="check the file system holding the store: free space, a file size limit "
            "(ulimit -f), a device that went away",
        )
    if "readonly" in text or "read-only" in text:
        return StoreError(
            "EB002",
            f"cannot write the store: {text}",
            hint="bundletui.db (and its directory, for the -wal and -shm files) must be "
            "writable by this user: check their permissions or pass another --home",
        )
    return None


def print_error(exc: BundletuiError) -> None:
    where = f"{exc.where}: " if exc.where else ""
    err.print(f"Error: {exc.code}: {where}{exc.message}", markup=False)
    if exc.hint:
        err.print(f"  hint: {exc.hint}", markup=False)
    for note in getattr(exc, "__notes__", ()):  # what a command did before it failed
        err.print(f"  note: {note}", markup=False)


def print_json(data: Any, *, compact: bool = False) -> None:
    """Indented for people; ``compact`` (one line, streamed) for very large outputs."""
    if compact:
        json.dump(data, sys.stdout, separators=(",", ":"), default=str)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


STATUS_STYLE = {
    "SUCCEEDED": "green",
    "OK": "green",
    "RUNNING": "cyan",
    "RUNNINGWITHERROR": "yellow",
    "READY": "blue",
    "SUBMITTED": "blue",
    "PREP": "white",
    "WAITING": "white",
    "SUSPENDED": "magenta",
    "SUSPENDEDWITHERROR": "magenta",
    "PREPSUSPENDED": "magenta",
    "PAUSED": "magenta",
    "PAUSEDWITHERROR": "magenta",
    "PREPPAUSED": "magenta",
    "KILLED": "red",
    "FAILED": "red",
    "ERROR": "red",
    "DEPENDENT_FAILED": "red",
    "TIMEDOUT": "red",
    "DONEWITHERROR": "yellow",
    "SKIPPED": "dim",
    "IGNORED": "dim",
}


def styled(status: str | None) -> str:
    if not status:
        return "-"
    style = STATUS_STYLE.get(status, "white")
    return f"[{style}]{status}[/{style}]"


def on_command_line(ctx: typer.Context, name: str) -> bool:
    """Given on the command line itself (not from the environment, which may set it for
    every run, nor a default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"

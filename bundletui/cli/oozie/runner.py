"""One ``oozie job|jobs|admin|version`` command line: parsed, its ignored options noted,
dispatched, and every error turned into Oozie's stderr text and exit 255."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from bundletui.cli.oozie.admin import admin_command
from bundletui.cli.oozie.args import OPTION_TABLES, Args, Opt, parse_args
from bundletui.cli.oozie.controls import SCOPED_OPERATIONS, refuse_scope
from bundletui.cli.oozie.errors import EXIT_ERROR, CliError, ParseError, print_oozie_error
from bundletui.cli.oozie.format import say
from bundletui.cli.oozie.front import Front
from bundletui.cli.oozie.jobs import jobs_command
from bundletui.cli.oozie.operations import JOB_OPERATIONS, op_unsupported
from bundletui.cli.oozie.usage import USAGE
from bundletui.errors import BundletuiError, path_error


def run(kind: str, argv: list[str]) -> int:
    """Run ``oozie job|jobs|admin|version``; the exit code (0, or 255 like Oozie)."""
    table = OPTION_TABLES[kind]
    try:
        args = parse_args(argv, table, need_operation=kind in ("job", "admin"))
        home = args.get("home") or os.environ.get("BUNDLETUI_HOME")
        front = Front(args, Path(home) if home else None)
        _notes(args, table)
        if kind == "job":
            assert args.operation is not None
            operation = JOB_OPERATIONS[args.operation]
            if args.operation not in SCOPED_OPERATIONS and operation is not op_unsupported:
                refuse_scope(front, args.operation)
            operation(front)
        elif kind == "admin":
            admin_command(front)
        elif kind == "version":
            from bundletui.commands.admin import BUILD_VERSION

            say(f"Oozie client build version: {BUILD_VERSION}")
        else:
            jobs_command(front)
        sys.stdout.flush()
        return 0
    except ParseError as exc:
        print(f"Invalid sub-command: {exc.message}", file=sys.stderr)
        print(file=sys.stderr)
        print(USAGE[kind], file=sys.stderr)
        return EXIT_ERROR
    except CliError as exc:
        print(f"Error: {exc.message}", file=sys.stderr)
        for note in getattr(exc, "__notes__", ()):
            print(f"  note: {note}", file=sys.stderr)
        return EXIT_ERROR
    except BundletuiError as exc:
        return print_oozie_error(exc)
    except sqlite3.DatabaseError as exc:
        from bundletui.cli._common import sqlite_error

        said: BundletuiError | None = sqlite_error(exc)
        if said is None:
            raise
        return print_oozie_error(said)
    except OSError as exc:
        said = path_error(exc)
        if said is None:
            raise
        return print_oozie_error(said)
    except KeyboardInterrupt:
        return 130


def _notes(args: Args, table: dict[str, Opt]) -> None:
    # Oozie's CLI reads the server from OOZIE_URL when -oozie is not given: a script that
    # sets it is told, as for -oozie, that this store is used instead
    url = os.environ.get("OOZIE_URL")
    if url and "oozie" in table and not args.has("oozie"):
        print(
            f"note: OOZIE_URL={url} ignored: bundletui works on its local store "
            "(--home or BUNDLETUI_HOME), not through a server",
            file=sys.stderr,
        )
    for name, value in args.dropped:  # Oozie's CLI takes the first: kept, and said
        print(
            f"note: -{name} {value} ignored: -{name} was given before ({args.get(name)}), and"
            f" Oozie's CLI takes the first; several go in one value, comma-separated",
            file=sys.stderr,
        )
    for name, opt in table.items():
        if opt.ignored and args.has(name):
            shown = f"-{name} {args.get(name)}" if opt.value else f"-{name}"
            print(f"note: {shown} ignored: {opt.why}", file=sys.stderr)

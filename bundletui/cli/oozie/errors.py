"""Oozie's CLI fails with ``Error: …`` on stderr and exit 255, and scripts check for both: the
client's own two error types, and every other layer's error printed in Oozie's shape."""

from __future__ import annotations

import re
import sys

from bundletui.cli._common import printable
from bundletui.errors import BundletuiError, UsageError

EXIT_ERROR = 255  # Oozie's CLI ends with System.exit(-1)


class ParseError(UsageError):
    """Oozie's ParseException (commons-cli's): printed as Oozie does, ``Invalid sub-command:
    <message>`` plus the usage, exit 255; the code (E0302 an option or argument that is not
    valid there, E0305 one that is missing) is not printed, Oozie's text having none."""


class CliError(UsageError):
    """Oozie's OozieCLIException raised by the client itself: printed as Oozie does, ``Error:
    <message>``, exit 255; the code (E0302, E0303, E0304, E0305, E0702) is not printed,
    Oozie's text having none."""


def print_oozie_error(exc: BundletuiError) -> int:
    """Oozie's CLI shape: ``Error: CODE : CODE: message``; our hint below it."""
    where = f"{exc.where}: " if exc.where else ""
    print(printable(f"Error: {exc.code} : {exc.code}: {where}{exc.message}"), file=sys.stderr)
    if exc.hint:
        print(printable(f"  hint: {front_hint(exc.hint)}"), file=sys.stderr)
    for note in getattr(exc, "__notes__", ()):  # what a command did before it failed
        print(printable(f"  note: {note}"), file=sys.stderr)
    return EXIT_ERROR


#: Options the commands' hints name in the native CLI's spelling (``--filter``) that this front
#: spells as Oozie's CLI does (``-filter``).
_HINT_OPTIONS = frozenset(
    {
        "action",
        "config",
        "coordinator",
        "date",
        "failed",
        "filter",
        "len",
        "nocleanup",
        "offset",
        "order",
        "refresh",
        "value",
    }
)


_LONG_OPTION = re.compile(r"(?<![\w-])--([a-z]+)\b")


def front_hint(hint: str) -> str:
    """A command's hint as this front's user types it: ``--filter`` is ``-filter`` here, but
    not inside a native command the hint quotes (``bundletui rerun C --action 1-8``)."""
    parts = _NATIVE_COMMAND.split(hint)  # odd items: the native commands, kept as written
    return "".join(
        part
        if i % 2
        else _LONG_OPTION.sub(lambda m: f"-{m[1]}" if m[1] in _HINT_OPTIONS else m[0], part)
        for i, part in enumerate(parts)
    )


_NATIVE_COMMAND = re.compile(r"(bundletui (?!oozie\b)[a-z]+[^;,)`]*)")

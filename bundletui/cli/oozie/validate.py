"""``oozie validate <file>`` needs no job and no store, so it is not parsed as the other commands
are; it answers as Oozie's server does, so scripts keep working."""

from __future__ import annotations

import sys
from pathlib import Path

from bundletui.cli.oozie.errors import EXIT_ERROR, print_oozie_error
from bundletui.cli.oozie.format import say
from bundletui.cli.oozie.usage import USAGE
from bundletui.errors import BundletuiError


def validate_command(argv: list[str]) -> int:
    """``oozie validate <file>``: the schema and what can be checked without the job's
    properties; Oozie's server says ``Valid workflow-app`` for every kind of app."""
    from bundletui.model.clock import RealClock
    from bundletui.spec.dryrun import default_landing
    from bundletui.spec.load import validate_file
    from bundletui.store.db import current_user

    argv = list(argv)
    for name in ("-oozie", "-auth", "-doas"):  # a server's options, as on job and jobs
        while name in argv and argv.index(name) + 1 < len(argv):
            at = argv.index(name)
            print(
                f"note: {name} {argv[at + 1]} ignored: bundletui validates the file here",
                file=sys.stderr,
            )
            del argv[at : at + 2]
    if len(argv) != 1 or argv[0].startswith("-"):
        print("Invalid sub-command: validate takes one file", file=sys.stderr)
        print(file=sys.stderr)
        print(USAGE["validate"], file=sys.stderr)
        return EXIT_ERROR
    defaults = {"landing": default_landing(), "user.name": current_user()}
    try:
        validate_file(Path(argv[0]), RealClock(), None, defaults=defaults)
    except BundletuiError as exc:
        return print_oozie_error(exc)
    say("Valid workflow-app")
    return 0

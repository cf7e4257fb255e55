"""``bundletui oozie …``: Oozie's command line, spelled and printed as Oozie's CLI does (oozie.md
§6), so an operator's scripts keep working when ``oozie`` becomes ``bundletui oozie``. Its actions
call the same commands as the rest of the CLI; only the parsing and the printing are Oozie's."""

from __future__ import annotations

from bundletui.cli.oozie.subcommands import register

__all__ = ["register"]

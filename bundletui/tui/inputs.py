"""What an operator types into the console: pause times, ``:`` commands, rerun scopes.

Plain functions so the rules are unit-tested; dialogs show their error strings as they are.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bundletui.commands.coordinators import parse_action_scope, parse_date_scope
from bundletui.errors import BundletuiError
from bundletui.model.timeutil import format_oozie_time, parse_oozie_time

_RELATIVE = re.compile(r"^\+\s*(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?$", re.IGNORECASE)
CLEAR_WORDS = frozenset({"", "clear", "none", "-"})


@dataclass(frozen=True)
class PauseTime:
    """A parsed pause-time entry: ``when`` None clears the pause time."""

    when: datetime | None
    text: str  # what goes into ``pausetime=``

    def preview(self) -> str:
        if self.when is None:
            return "clears the pause time: materialization goes on"
        return f"actions with a nominal time at or after {self.text} will not be materialized"


def parse_pause_time(text: str, now: datetime) -> PauseTime:
    """``yyyy-MM-ddTHH:mmZ``, ``+2h`` / ``+1d6h`` / ``+30m`` (from ``now``, up to the next
    minute), ``eod`` (the next midnight UTC), or empty / ``clear`` to clear it.

    Raises ValueError with a one-line reason; the time must be in the future.
    """
    raw = text.strip()
    if raw.lower() in CLEAR_WORDS:
        return PauseTime(None, "")
    when: datetime
    if raw.lower() in ("eod", "end of day", "midnight"):
        when = (now.astimezone(UTC) + timedelta(days=1)).replace(
            hour=0, minute=0, second=0, microsecond=0
        )
    elif raw.startswith("+"):
        m = _RELATIVE.match(raw)
        if m is None or not any(m.groups()):
            raise ValueError("relative times look like +2h, +30m or +1d6h")
        days, hours, minutes = (int(g or 0) for g in m.groups())
        when = now + timedelta(days=days, hours=hours, minutes=minutes)
        if when.second or when.microsecond:
            when = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
    else:
        try:
            when = parse_oozie_time(raw, what="pause time")
        except BundletuiError:
            raise ValueError("use yyyy-MM-ddTHH:mmZ (UTC), +2h, eod, or clear") from None
    if when <= now:
        raise ValueError(f"the pause time must be in the future (now is {format_oozie_time(now)})")
    return PauseTime(when, format_oozie_time(when))


# ----------------------------------------------------------------------------- ':' commands

COMMANDS: dict[str, str] = {
    "bundles": "show every job again (clears filter, faults-only and the jump)",
    "coord": ":coord <id or name> - jump to a coordinator",
    "job": ":job <id> - jump to any job, action or node",
    "submit": ":submit <job.properties> [name=value ...] - submit and start (like -run)",
    "filter": ":filter <text> - same as /",
    "faults": "toggle faults only (same as x)",
    "freeze": "toggle frozen updates (same as f)",
    "audit": "the audit log: every command run against this store",
    "engine": ":engine - this console's engine log; :engine start - run an engine here",
    "stats": "diagnostics: polls, rows applied, poll time, tree size, engine ticks",
    "help": "the key and command reference (same as ?)",
    "quit": "quit (also :q)",
}
_ALIASES = {
    "q": "quit",
    "q!": "quit",
    "exit": "quit",
    "coordinator": "coord",
    "coords": "coord",
    "goto": "job",
    "bundle": "bundles",
    "jobs": "bundles",
    "run": "submit",
    "log": "engine",
    "f": "filter",
}
_NEEDS_ARG = {"coord": "a coordinator id or name", "job": "a job id", "submit": "a config file"}


@dataclass(frozen=True)
class Command:
    verb: str
    args: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)


def parse_command(text: str) -> Command:
    """Parse a ``:`` line (the leading ``:`` optional). Raises ValueError with a reason."""
    line = text.strip().removeprefix(":").strip()
    if not line:
        raise ValueError("type a command, e.g. :coord ingest (:help lists them)")
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise ValueError(f"cannot read the command: {exc}") from None
    verb = _ALIASES.get(words[0].lower(), words[0].lower())
    if verb not in COMMANDS:
        raise ValueError(f"unknown command :{words[0]} (try :help)")
    args = words[1:]
    if verb in _NEEDS_ARG and not args:
        raise ValueError(f":{verb} needs {_NEEDS_ARG[verb]}")
    if verb == "submit":
        config, rest = args[0], args[1:]
        defines = []
        for word in rest:
            word = word.removeprefix("-D")
            if "=" not in word:
                raise ValueError(f"properties look like name=value, not {word!r}")
            defines.append(word)
        return Command(verb, [config], defines)
    if verb == "filter":
        return Command(verb, [" ".join(args)])
    if verb == "engine" and args and [a.lower() for a in args] != ["start"]:
        raise ValueError(f"unknown :engine {' '.join(args)} (:engine shows its log, :engine start)")
    if verb == "engine":
        return Command(verb, [a.lower() for a in args])
    return Command(verb, args)


def suggestions() -> list[str]:
    """What the ``:`` prompt completes: its verbs without the ``:``, which the prompt shows as
    a label of its own (the input holds ``coo``, never ``:coo``)."""
    return list(COMMANDS)


# ----------------------------------------------------------------------------- rerun scopes
# Read by the rerun command's own parsers, so the dialog takes exactly what the command takes
# (``1,2,`` is 1,2; ``0`` and ``5-3`` are refused) and says why in the command's words.


def check_action_scope(text: str, upto: int | None = None, coord_id: str = "") -> str | None:
    """None when the command takes ``text`` as an action scope (or it is empty), else its
    error and hint. ``upto``: the coordinator's last action number, which the command checks
    a scope against (``1-999999999`` refused before it is spelled out); when it is not known,
    a number past it is left to the command to refuse."""
    if not text.strip():
        return None
    try:
        parse_action_scope(text, 0 if upto is None else upto, coord_id)
    except BundletuiError as exc:
        if upto is None and exc.code == "E0605":  # past "0 actions": not known, not wrong
            return None
        return exc.describe()
    return None


def check_date_scope(text: str) -> str | None:
    """None when the command takes ``d1::d2,d3`` (or it is empty), else its error and hint."""
    if not text.strip():
        return None
    try:
        if not parse_date_scope(text):  # only commas: the command refuses an empty scope
            return (
                f"E0302: Invalid parameter [date scope {text.strip()!r}]\n"
                "  hint: give nominal times and ranges, e.g. 2026-01-01T00:00Z::2026-01-02T00:00Z"
            )
    except BundletuiError as exc:
        return exc.describe()
    return None


def number_ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``1-3,7`` (the scope a rerun of chosen actions passes on)."""
    out: list[str] = []
    nums = sorted(set(numbers))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ",".join(out)

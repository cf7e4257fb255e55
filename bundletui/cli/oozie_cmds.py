"""``bundletui oozie job …`` / ``bundletui oozie jobs …``: Oozie's command line, spelled and
printed the way Oozie's own CLI does (oozie.md §6), so an operator's scripts keep working when
``oozie`` becomes ``bundletui oozie``.

Oozie's options are single-dash words (``-info ID``, ``-len 5``). click could declare those
(``@click.option("-info")``), but it would not parse them as Oozie's CLI does, with Apache
commons-cli: the first value of an option given twice is kept (click keeps the last); the
operations are one mutually exclusive group, exactly one of them required (``The option 'kill'
was specified but an option from this group has already been selected: 'info'``); an option
that takes a value and is followed by another option has none (``Missing argument for option:
action``, where click takes the next option as the value); a word that is no option is
``Unrecognized argument: …``; and all of them are ``Invalid sub-command: …`` plus the usage,
exit 255, not click's messages and exit 2. So the argv of these commands is parsed here, from
one table per command (:func:`parse_args`).

Every action calls the same commands as the rest of the CLI (dispatch, submit_loaded, load_job,
queries, coord_queries); only the printing is Oozie's: ``job: <id>``, the ``Job ID : …``
blocks with a 132-dash ruler, fixed-width tables, ``Error: <code> : <code>: <message>`` on
stderr and exit code 255 (Oozie's ``System.exit(-1)``). ``-oozie URL`` (and
``-auth``/``-doas``/``-debug``) are accepted and ignored with a note: bundletui works on its
local store (``--home`` / ``BUNDLETUI_HOME``).
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from bundletui.cli._common import printable
from bundletui.errors import BundletuiError, CommandError, UsageError, path_error
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.timeutil import in_zone

EXIT_ERROR = 255  # Oozie's CLI ends with System.exit(-1)
RULER = "-" * 132
TAB = "\t"

# Oozie's fixed-width formats (OozieCLI: WORKFLOW_JOBS_FORMATTER, COORD_ACTION_FORMATTER, …),
# as column widths. Java's %-Ns pads and never truncates; extra arguments are ignored, which is
# why the coordinator action table has no "Last Mod" column although a value is passed for it.
WF_JOBS = (41, 13, 10, 10, 10, 24, 24)
COORD_JOBS = (41, 15, 10, 5, 13, 24, 24)
BUNDLE_JOBS = (41, 15, 10, 20, 20, 13, 13)
BUNDLE_COORDS = (41, 15, 5, 13, 24, 24)
WF_ACTIONS = (78, 10, 23, 11, 10)
COORD_ACTIONS = (43, 10, 37, 10, 21, 21)
WFS_OF_ACTION = (41, 10, 24, 24)


class ParseError(UsageError):
    """Oozie's ParseException (commons-cli's): printed as Oozie does, ``Invalid sub-command:
    <message>`` plus the usage, exit 255; the code (E0302 an option or argument that is not
    valid there, E0305 one that is missing) is not printed, Oozie's text having none."""


class CliError(UsageError):
    """Oozie's OozieCLIException raised by the client itself: printed as Oozie does, ``Error:
    <message>``, exit 255; the code (E0302, E0303, E0304, E0305, E0702) is not printed,
    Oozie's text having none."""


# ----------------------------------------------------------------------------- option tables


@dataclass(frozen=True)
class Opt:
    value: bool = False  # takes an argument
    action: bool = False  # one of the mutually exclusive operations (exactly one required)
    ignored: bool = False  # accepted for compatibility, has no effect here
    why: str = "bundletui works on its local store (--home or BUNDLETUI_HOME), not through a server"


JOB_OPTIONS: dict[str, Opt] = {
    # operations
    "submit": Opt(action=True),
    "run": Opt(action=True),
    "dryrun": Opt(action=True),
    "start": Opt(value=True, action=True),
    "suspend": Opt(value=True, action=True),
    "resume": Opt(value=True, action=True),
    "kill": Opt(value=True, action=True),
    "change": Opt(value=True, action=True),
    "rerun": Opt(value=True, action=True),
    "info": Opt(value=True, action=True),
    "log": Opt(value=True, action=True),
    "errorlog": Opt(value=True, action=True),
    "auditlog": Opt(value=True, action=True),
    "definition": Opt(value=True, action=True),
    "configcontent": Opt(value=True, action=True),
    "ignore": Opt(value=True, action=True),
    # Oozie operations with no counterpart here: a clear error, not "Unrecognized option"
    "poll": Opt(value=True, action=True),
    "update": Opt(value=True, action=True),
    "slaenable": Opt(value=True, action=True),
    "sladisable": Opt(value=True, action=True),
    "slachange": Opt(value=True, action=True),
    "interval": Opt(value=True),
    "timeout": Opt(value=True),
    "diff": Opt(value=True),
    # modifiers
    "config": Opt(value=True),
    "value": Opt(value=True),
    "action": Opt(value=True),
    "date": Opt(value=True),
    "coordinator": Opt(value=True),
    "refresh": Opt(),
    "nocleanup": Opt(),
    "failed": Opt(),
    "len": Opt(value=True),
    "offset": Opt(value=True),
    "filter": Opt(value=True),
    "order": Opt(value=True),
    "verbose": Opt(),
    "allruns": Opt(),
    "localtime": Opt(),
    "timezone": Opt(value=True),
    "logfilter": Opt(value=True, ignored=True, why="the log is shown whole: filter it with grep"),
    "home": Opt(value=True),
    # the server connection: there is no server, the store is local
    "oozie": Opt(value=True, ignored=True),
    "auth": Opt(value=True, ignored=True),
    "doas": Opt(value=True, ignored=True),
    "debug": Opt(ignored=True, why="there is no server call to trace"),
}

JOBS_OPTIONS: dict[str, Opt] = {
    "jobtype": Opt(value=True),
    "filter": Opt(value=True),
    "len": Opt(value=True),
    "offset": Opt(value=True),
    "verbose": Opt(),
    "localtime": Opt(),
    "timezone": Opt(value=True),
    "kill": Opt(),
    "suspend": Opt(),
    "resume": Opt(),
    "home": Opt(value=True),
    "oozie": Opt(value=True, ignored=True),
    "auth": Opt(value=True, ignored=True),
    "doas": Opt(value=True, ignored=True),
}


ADMIN_OPTIONS: dict[str, Opt] = {
    "status": Opt(action=True),
    "systemmode": Opt(value=True, action=True),
    "version": Opt(action=True),
    "purge": Opt(value=True, action=True),
    "home": Opt(value=True),
    "oozie": Opt(value=True, ignored=True),
    "auth": Opt(value=True, ignored=True),
}

VERSION_OPTIONS: dict[str, Opt] = {"oozie": Opt(value=True, ignored=True)}


@dataclass
class Args:
    """A parsed Oozie command line: first value of each option (as commons-cli's
    getOptionValue), flags present, ``-D`` pairs in order, the chosen operation."""

    values: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    defines: list[str] = field(default_factory=list)
    operation: str | None = None
    dropped: list[tuple[str, str]] = field(default_factory=list)  # a value given again

    def has(self, name: str) -> bool:
        return name in self.flags or name in self.values

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def int_value(self, name: str) -> int | None:
        text = self.values.get(name)
        if text is None:
            return None
        try:
            value = int(text.strip())
        except ValueError:
            value = None
        if value is None or not -(2**31) <= value < 2**31:  # Java's Integer.parseInt
            raise CliError("E0304", f'For input string: "{text}" (-{name} takes a number)')
        return value


def _names_option(token: str, table: dict[str, Opt]) -> bool:
    if not token.startswith("-") or token in ("-", "--"):
        return False
    return token.lstrip("-").partition("=")[0] in table or (
        token.startswith("-D") and not token.startswith("--")
    )


def parse_args(argv: list[str], table: dict[str, Opt], *, need_operation: bool) -> Args:
    """Oozie's spelling: ``-name``, ``--name``, ``-name=value``, ``-D k=v`` and ``-Dk=v``."""
    args = Args()
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token.startswith("-D") and not token.startswith("--"):
            pair = token[2:] if len(token) > 2 else (argv[i] if i < len(argv) else None)
            if len(token) == 2:
                i += 1
            if pair is None:
                raise ParseError("E0305", "Missing argument for option: D")
            args.defines.append(pair)
            continue
        if not token.startswith("-") or token in ("-", "--"):
            raise ParseError("E0302", f"Unrecognized argument: {token}")
        name, eq, inline = token.lstrip("-").partition("=")
        opt = table.get(name)
        if opt is None:
            raise ParseError("E0302", f"Unrecognized option: {token}")
        if opt.value:
            if eq:
                value = inline
            elif i < len(argv) and not _names_option(argv[i], table):
                value, i = argv[i], i + 1
            else:  # as commons-cli: an option next is no value (QA: -action --home H)
                raise ParseError("E0305", f"Missing argument for option: {name}")
            if name in args.values:
                args.dropped.append((name, value))
            args.values.setdefault(name, value)
        else:
            if eq:
                raise ParseError("E0302", f"Option -{name} takes no argument")
            args.flags.add(name)
        if opt.action:
            if args.operation is not None and args.operation != name:
                raise ParseError(
                    "E0302",
                    f"The option '{name}' was specified but an option from this group has "
                    f"already been selected: '{args.operation}'",
                )
            args.operation = name
    if need_operation and args.operation is None:
        ops = ", ".join(f"-{n}" for n, o in table.items() if o.action)
        raise ParseError("E0305", f"Missing required option: one of {ops}")
    return args


# ----------------------------------------------------------------------------- running


@dataclass
class Front:
    """What every operation needs: the store (opened on first use) and the display zone."""

    args: Args
    home: Path | None
    _store: Any = None

    @property
    def store(self) -> Any:
        """The home's store; a home without one is an error (EB001), not a new empty store."""
        if self._store is None:
            from bundletui.store.db import Store

            self._store = Store(self.home, create=False)
        return self._store

    def has_store(self) -> bool:
        from bundletui.store.db import store_exists

        return self._store is not None or store_exists(self.home)

    def ctx(self, *, create: bool = False) -> Any:
        """``create``: a submission that is valid makes the store, as ``bundletui submit`` does."""
        from bundletui.commands.base import Ctx
        from bundletui.store.db import Store

        if create and not self.has_store():
            self._store = Store(self.home)
        return Ctx(self.store, face="oozie-cli")

    @property
    def verbose(self) -> bool:
        return self.args.has("verbose")

    @property
    def zone(self) -> tzinfo | None:
        """-localtime: the machine's zone (None); else -timezone, $OOZIE_TIMEZONE, GMT."""
        if self.args.has("localtime"):
            return None
        return _zone(self.args.get("timezone") or os.environ.get("OOZIE_TIMEZONE") or "GMT")


def _zone(tzid: str) -> tzinfo:
    from datetime import timedelta, timezone

    from bundletui.model.timeutil import parse_timezone

    try:
        zone = parse_timezone(tzid)
    except BundletuiError as exc:  # a display option, not a coordinator attribute (E1003)
        raise UsageError(
            "E0303", f"Invalid parameter value, [timezone] = [{tzid}]", hint=exc.hint
        ) from None
    # UTC under the name the user gave it: Java prints "GMT" or "UTC" as asked.
    return timezone(timedelta(0), tzid) if tzid in ("UTC", "GMT") else zone


def run(kind: str, argv: list[str]) -> int:
    """Run ``oozie job|jobs|admin|version``; the exit code (0, or 255 like Oozie)."""
    table = _TABLES[kind]
    try:
        args = parse_args(argv, table, need_operation=kind in ("job", "admin"))
        home = args.get("home") or os.environ.get("BUNDLETUI_HOME")
        front = Front(args, Path(home) if home else None)
        _notes(args, table)
        if kind == "job":
            assert args.operation is not None
            operation = JOB_OPERATIONS[args.operation]
            if args.operation not in SCOPED_OPERATIONS and operation is not op_unsupported:
                _no_scope(front, args.operation)
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
        return _error(exc)
    except sqlite3.DatabaseError as exc:
        from bundletui.cli._common import sqlite_error

        said = sqlite_error(exc)
        if said is None:
            raise
        return _error(said)
    except OSError as exc:
        said = path_error(exc)
        if said is None:
            raise
        return _error(said)
    except KeyboardInterrupt:
        return 130


def _error(exc: BundletuiError) -> int:
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


_TABLES = {
    "job": JOB_OPTIONS,
    "jobs": JOBS_OPTIONS,
    "admin": ADMIN_OPTIONS,
    "version": VERSION_OPTIONS,
}


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
        return _error(exc)
    say("Valid workflow-app")
    return 0


def admin_command(front: Front) -> None:
    """``oozie admin -status | -systemmode MODE | -version | -purge SPEC``. The mode is the
    store's, shared with the HTTP API and every other process (SAFEMODE refuses every change
    to jobs). Oozie queues a purge on its server; here it is done before the command returns."""
    from bundletui.commands import admin
    from bundletui.commands import purge as purge_cmd

    if front.args.operation == "purge":
        days = purge_cmd.parse_purge_spec(front.args.get("purge") or "")
        for left in purge_cmd.purge(front.ctx(), days).unremoved:
            print(f"not removed: {left}", file=sys.stderr)
        say("Purge command executed successfully")
        return
    if front.args.operation == "version":
        say(f"Oozie server build version: {admin.BUILD_VERSION}")
        return
    if front.args.operation == "systemmode":
        mode = admin.set_system_mode(front.ctx(), front.args.get("systemmode") or "")
    else:
        mode = front.store.system_mode()
    say(f"System mode: {mode}")


USAGE = {
    "job": (
        "bundletui oozie job <OPTIONS> : job operations\n"
        "  -submit | -run | -dryrun   with -config <file.properties|.xml> [-D name=value ...]\n"
        "  -start|-suspend|-resume|-kill|-info|-definition|-configcontent|-log|-errorlog|-auditlog <id>\n"
        "  -kill <coordId> -action 1,3-4 | -date d1::d2\n"
        "  -change <id> -value endtime=..;concurrency=..;pausetime=..;status=RUNNING\n"
        "  -rerun <id>  coordinator: -action|-date [-refresh] [-nocleanup] [-failed] [-config|-D]\n"
        "               bundle: -coordinator c1,c2 and/or -date d1::d2 [-refresh] [-nocleanup]\n"
        "               workflow: -config/-D oozie.wf.rerun.skip.nodes=a,b | oozie.wf.rerun.failnodes=true\n"
        "  -ignore <coordId> [-action 1,3-4]\n"
        "  -info <id> [-len n] [-offset n] [-order desc] [-filter status=..;nominaltime>=..]\n"
        "             [-verbose] [-allruns] [-localtime] [-timezone ID]\n"
        "  --home DIR  the store (default $BUNDLETUI_HOME or ~/.bundletui); -oozie URL is ignored"
    ),
    "admin": (
        "bundletui oozie admin <OPTIONS> : admin operations\n"
        "  -status                  the system mode\n"
        "  -systemmode NORMAL|NOWEBSERVICE|SAFEMODE   set it (SAFEMODE: no job changes)\n"
        "  -version                 the build version  --home DIR\n"
        "  -purge wf=30;coord=7;bundle=7;limit=100   delete ended jobs older than so many days"
    ),
    "version": "bundletui oozie version : the client build version",
    "validate": "bundletui oozie validate <file> : validate a workflow, coordinator or bundle XML file",
    "jobs": (
        "bundletui oozie jobs <OPTIONS> : jobs status\n"
        "  -jobtype wf|coordinator|bundle  -filter name=value;...  -len n  -offset n\n"
        "  [-verbose] [-localtime] [-timezone ID] [-kill|-suspend|-resume]  --home DIR"
    ),
}


# ----------------------------------------------------------------------------- formatting


_GMT_OFFSET = re.compile(r"(.* )GMT([-+]\d{2}:\d{2})")


def mask(value: Any) -> str:
    """OozieCLI.maskIfNull: ``-`` for null or empty."""
    return "-" if value is None or value == "" else str(value)


def mask_date(rfc: str | None, zone: tzinfo | None, verbose: bool = False) -> str:
    """OozieCLI.maskDate: ``yyyy-MM-dd HH:mm zzz`` (``:ss`` when verbose), ``-`` for null; a
    ``GMT-07:00`` zone name is shortened to ``-07:00``."""
    if not rfc:
        return "-"
    local, years = _local(rfc, zone)
    text = f"{local.year + years:04d}-" + local.strftime(
        "%m-%d %H:%M:%S" if verbose else "%m-%d %H:%M"
    )
    text += f" {local.tzname() or 'GMT'}"
    m = _GMT_OFFSET.fullmatch(text)
    return m.group(1) + m.group(2) if m else text


def java_date(rfc: str | None, zone: tzinfo | None) -> str:
    """Java's Date.toString(): ``Mon Jan 01 00:00:00 GMT 2024`` (``null`` for null)."""
    if not rfc:
        return "null"
    local, years = _local(rfc, zone)
    return f"{local:%a %b %d %H:%M:%S} {local.tzname() or 'GMT'} {local.year + years}"


def _local(rfc: str, zone: tzinfo | None) -> tuple[datetime, int]:
    return in_zone(parsedate_to_datetime(rfc), zone)


def cols(widths: tuple[int, ...], *values: Any) -> str:
    """Java's ``String.format("%-As%-Bs…", values…)``: pad, never cut, extra values ignored.
    One departure: a value as wide as its column still gets a space before the next one (Java
    runs them together, ``…-C@100WAITING``, and ``awk '{print $1}'`` would read both)."""
    out = []
    n = min(len(widths), len(values))
    for i, (w, v) in enumerate(zip(widths, values, strict=False)):
        text = mask_none(v)
        out.append(f"{text:<{w}}" if len(text) < w or i == n - 1 else text + " ")
    return "".join(out)


def freq_unit(coord: dict[str, Any]) -> tuple[str, str]:
    """A coordinator's Freq and Unit columns. An event-triggered one has no frequency: ``-``
    (OozieCLI's mark for none) and the unit ``EVENT`` (its JSON keeps Oozie's ``NONE``, the
    only unit of Oozie's enum that fits, which its Java client can read, and says
    ``"schedule": "event"``)."""
    if coord.get("schedule") == "event":
        return "-", "EVENT"
    return mask_none(coord["frequency"]), mask_none(coord["timeUnit"])


def mask_none(value: Any) -> str:
    return "null" if value is None else str(value)


def say(text: str = "") -> None:
    sys.stdout.write(printable(text) + "\n")


# ----------------------------------------------------------------------------- job: submit


def _conf_args(front: Front) -> tuple[str | None, list[str]]:
    """-config / -D the way OozieCLI.getConfiguration checks them."""
    config = front.args.get("config")
    if config is not None and not Path(config).exists():
        # OozieCLI: isConfigurationSpecified() says no without -D; with -D, getConfiguration()
        # then refuses the missing file
        if front.args.defines:
            raise CliError("E0702", f"configuration file [{config}] not found")
        missing = CliError("E0305", "configuration is not specified")  # Oozie's words, for scripts
        missing.add_note(f"the -config file {config} does not exist")
        raise missing
    if config is None and not front.args.defines:
        raise CliError("E0305", "configuration is not specified")
    if config is not None and not config.endswith((".properties", ".xml")):
        raise CliError("E0303", "configuration must be a '.properties' or a '.xml' file")
    return config, front.args.defines


def _load(front: Front) -> Any:
    from bundletui.model.clock import RealClock
    from bundletui.spec.load import load_job
    from bundletui.store.db import current_user, resolve_home

    config, defines = _conf_args(front)
    from bundletui.cli.job_cmds import submit_defaults

    return load_job(
        config,
        defines,
        front.store.clock if front.has_store() else RealClock(),
        user=current_user(),
        defaults=submit_defaults(resolve_home(front.home)),
    )


def op_submit(front: Front, *, start: bool = False) -> None:
    from bundletui.commands.submit import submit_loaded

    loaded = _load(front)
    say(f"job: {submit_loaded(front.ctx(create=True), loaded, start=start)}")


def op_run(front: Front) -> None:
    op_submit(front, start=True)


def op_dryrun(front: Front) -> None:
    """Oozie's dryrun text, the same the API answers in ``id`` (bundletui/api/dryrun.py): a
    workflow ``OK``; a coordinator its XML and first hour of actions (an event-triggered one:
    its trigger instead); a bundle its XML, then each coordinator with its app path."""
    from bundletui.api.dryrun import dryrun_reply
    from bundletui.model.clock import RealClock

    loaded = _load(front)
    clock = front.store.clock if front.has_store() else RealClock()
    say(str(dryrun_reply(loaded, clock)["id"]))


# ----------------------------------------------------------------------------- job: controls


# the operations -action / -date scope (a coordinator's actions); any other refuses them
SCOPED_OPERATIONS = frozenset({"suspend", "resume", "kill", "ignore", "rerun", "log", "errorlog"})


def _no_scope(front: Front, op: str) -> None:
    """-action / -date where the operation takes none: refused, not ignored (QA: the whole
    job was acted on; a -submit with -action made a job)."""
    for name in ("action", "date"):
        if front.args.has(name):
            raise CliError(
                "E0302", f"Invalid options provided for {op}: -{name} is not valid with -{op}"
            )


def _scope(front: Front, op: str) -> tuple[str | None, str | None]:
    action, date = front.args.get("action"), front.args.get("date")
    if action is not None and date is not None:
        raise CliError(
            "E0302",
            f"Invalid options provided for {op}: either date or action expected. "
            "Don't use both at the same time.",
        )
    return action, date


def op_start(front: Front) -> None:
    from bundletui.commands import dispatch

    dispatch.start(front.ctx(), _value(front, "start"))


def op_suspend(front: Front) -> None:
    from bundletui.commands import dispatch

    action, date = _scope(front, "suspend")  # a coordinator's chosen actions, else refused
    dispatch.suspend(front.ctx(), _value(front, "suspend"), actions=action, dates=date)


def op_resume(front: Front) -> None:
    from bundletui.commands import dispatch

    action, date = _scope(front, "resume")
    dispatch.resume(front.ctx(), _value(front, "resume"), actions=action, dates=date)


def op_kill(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = _value(front, "kill")
    action, date = _scope(front, "kill")
    if action is not None or date is not None:  # E0302 unless job_id is a coordinator
        killed = dispatch.kill_actions(front.ctx(), job_id, actions=action, dates=date)
        print_coord_actions(front, killed)
        return
    dispatch.kill(front.ctx(), job_id)


def op_change(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = _value(front, "change")
    value = front.args.get("value")
    if value is None:
        raise CliError("E0305", "-value option needs to be specified for -change option")
    dispatch.change(front.ctx(), job_id, value)


def op_ignore(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = _value(front, "ignore")
    action, date = _scope(front, "ignore")
    if front.args.has("action") and not action:
        raise CliError("E0305", "-action is empty")
    ids = dispatch.ignore(front.ctx(), job_id, actions=action, dates=date)
    print_coord_actions_status(front, [i for i in ids if "@" in i])


def op_rerun(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = _value(front, "rerun")
    a = front.args
    # by the id's suffix (OozieCLI looks for "-W" anywhere, which a user named W… would match)
    kind = kind_of(job_id)
    if kind is IdKind.WORKFLOW:
        from bundletui.commands.workflows import rerun_keys

        _no_scope(front, "rerun")  # a workflow's whole run (QA: dropped, and rerun)
        conf = _rerun_conf(front)
        skip, failed = rerun_keys(conf)
        dispatch.rerun(front.ctx(), job_id, skip_nodes=skip, failed_nodes=failed, conf=conf)
        return
    if kind is IdKind.BUNDLE:
        if a.has("action"):
            raise CliError(
                "E0302",
                "Invalid options provided for bundle rerun. action is not valid for bundle rerun",
            )
        coords, dates = a.get("coordinator"), a.get("date")
        notes: list[str] = []
        dispatch.rerun(
            front.ctx(),
            job_id,
            coordinators=coords,
            dates=dates,
            refresh=a.has("refresh"),
            nocleanup=a.has("nocleanup"),
            notes=notes,
        )
        for note in notes:  # by dates, a coordinator that cannot rerun is passed over
            print(f"note: {note}", file=sys.stderr)
        if coords:  # names the bundle lacks are passed over (as Oozie does): say which
            from bundletui.cli.job_cmds import _warn_unknown_coordinators

            _warn_unknown_coordinators(front.store, job_id, coords)
            say(
                f"Coordinators [{coords}] of bundle {job_id} are scheduled to rerun on date "
                f"ranges [{mask_none(dates)}]."
            )
        else:
            say(
                f"All coordinators of bundle {job_id} are scheduled to rerun on the date "
                f"ranges [{mask_none(dates)}]."
            )
        return
    action, date = a.get("action"), a.get("date")
    if action is not None and date is not None:
        raise CliError(
            "E0302",
            "Invalid options provided for rerun: either date or action expected. "
            "Don't use both at the same time.",
        )
    if action is None and date is None:
        raise CliError("E0305", "Invalid options provided for rerun: date or action expected.")
    notes = []
    ids = dispatch.rerun(
        front.ctx(),
        job_id,
        actions=action,
        dates=date,
        refresh=a.has("refresh"),
        nocleanup=a.has("nocleanup"),
        failed=a.has("failed"),
        conf=_rerun_conf(front),
        notes=notes,
    )
    print_coord_actions(front, ids)
    for note in notes:  # an action LAST_ONLY / NONE will skip at once
        print(f"note: {note}", file=sys.stderr)


def _rerun_conf(front: Front) -> dict[str, str]:
    from bundletui.spec.config import parse_overrides, read_conf_file

    conf: dict[str, str] = {}
    config = front.args.get("config")
    if config is not None:
        conf.update(read_conf_file(config, keep_empty=True))  # skip.nodes empty: every node
    conf.update(parse_overrides(front.args.defines))
    return conf


def _value(front: Front, name: str) -> str:
    return str(front.args.get(name)).strip()


def print_coord_actions(front: Front, ids: list[str]) -> None:
    """OozieCLI.printCoordActions (after kill/rerun of actions): id and nominal time."""
    rows = _actions(front, ids)
    if not rows:
        say("No Actions match your criteria!")
        return
    say(f"Action ID{TAB}Nominal Time")
    say(RULER)
    for a in rows:
        say(f"{mask(a['id'])}{TAB}{mask_date(a['nominalTime'], None)}")


def print_coord_actions_status(front: Front, ids: list[str]) -> None:
    """OozieCLI.printCoordActionsStatus (after ignore): id, nominal time, status."""
    rows = _actions(front, ids)
    if not rows:
        return
    say(f"Action ID{TAB}Nominal Time{TAB}Status")
    say(RULER)
    for a in rows:
        say(f"{mask(a['id'])}{TAB}{mask_date(a['nominalTime'], None)}{TAB}{mask(a['status'])}")


def _actions(front: Front, ids: list[str]) -> list[dict[str, Any]]:
    from bundletui.commands import coord_queries

    return [coord_queries.action_info(front.store.conn, i) for i in ids if "-C@" in i]


# ----------------------------------------------------------------------------- job: info


def op_info(front: Front) -> None:
    from bundletui.commands import queries

    job_id = _value(front, "info")
    a = front.args
    conn = front.store.conn
    if job_id.endswith("-B"):
        if a.has("filter"):
            raise CliError("E0302", "Filter option is currently not supported for a Bundle job")
        print_bundle_job(front, queries.job_info(conn, job_id))
    elif job_id.endswith("-C"):
        offset = a.int_value("offset")
        length = a.int_value("len")
        data = queries.job_info(
            conn,
            job_id,
            offset=offset if offset and offset > 0 else 1,
            length=length if length is not None and length > 0 else None,
            order="desc" if (a.get("order") or "").strip().lower() == "desc" else "asc",
            filter_text=a.get("filter") or "",
        )
        print_coord_job(front, data)
    elif "-C@" in job_id:
        if a.has("allruns"):
            print_wfs_of_action(front, job_id)
            return
        if a.has("filter"):
            raise CliError("E0302", "Filter option is not supported for a Coordinator action")
        print_coord_action(front, queries.job_info(conn, job_id))
    elif "-W@" in job_id:
        if a.has("filter"):
            raise CliError("E0302", "Filter option is not supported for a Workflow action")
        print_workflow_action(front, queries.job_info(conn, job_id))
    else:
        if a.has("filter"):
            raise CliError("E0302", "Filter option is currently not supported for a Workflow job")
        data = queries.job_info(
            conn,
            job_id,
            offset=a.int_value("offset") or 1,
            length=a.int_value("len") or 0,
            reached_only=True,
        )
        print_job(front, data)


def print_coord_job(front: Front, job: dict[str, Any]) -> None:
    """OozieCLI.printCoordJob."""
    z, v = front.zone, front.verbose
    say(f"Job ID : {job['coordJobId']}")
    say(RULER)
    say(f"Job Name    : {mask(job['coordJobName'])}")
    say(f"App Path    : {mask(job['coordJobPath'])}")
    say(f"Status      : {job['status']}")
    say(f"Start Time  : {mask_date(job['startTime'], z)}")
    say(f"End Time    : {mask_date(job['endTime'], z)}")
    say(f"Pause Time  : {mask_date(job['pauseTime'], z)}")
    say(f"Concurrency : {job['concurrency']}")
    say(RULER)
    if v:
        say(
            TAB.join(
                [
                    "ID",
                    "Action Number",
                    "Console URL",
                    "Error Code",
                    "Error Message",
                    "External ID",
                    "External Status",
                    "Job ID",
                    "Tracker URI",
                    "Created",
                    "Nominal Time",
                    "Status",
                    "Last Modified",
                    "Missing Dependencies",
                ]
            )
        )
        say(RULER)
        for a in job["actions"]:
            # Oozie prints the nominal time and the status with no delimiter between them.
            say(
                TAB.join(
                    [
                        mask(a["id"]),
                        str(a["actionNumber"]),
                        mask(a["consoleUrl"]),
                        mask(a["errorCode"]),
                        mask(a["errorMessage"]),
                        mask(a["externalId"]),
                        mask(a["externalStatus"]),
                        mask(a["coordJobId"]),
                        mask(a["trackerUri"]),
                        mask_date(a["createdTime"], z, True),
                        mask_date(a["nominalTime"], z, True) + a["status"],
                        mask_date(a["lastModifiedTime"], z, True),
                        mask(_first_missing(a)),
                    ]
                )
            )
            say(RULER)
        return
    say(
        cols(
            COORD_ACTIONS,
            "ID",
            "Status",
            "Ext ID",
            "Err Code",
            "Created",
            "Nominal Time",
            "Last Mod",
        )
    )
    for a in job["actions"]:
        say(
            cols(
                COORD_ACTIONS,
                mask(a["id"]),
                a["status"],
                mask(a["externalId"]),
                mask(a["errorCode"]),
                mask_date(a["createdTime"], z),
                mask_date(a["nominalTime"], z),
                mask_date(a["lastModifiedTime"], z),
            )
        )
        say(RULER)


def _first_missing(action: dict[str, Any]) -> str | None:
    deps = action.get("pushMissingDependencies") or action.get("missingDependencies") or ""
    first = deps.split("!!", 1)[0].split("#", 1)[0]
    return first or None


def print_bundle_job(front: Front, job: dict[str, Any]) -> None:
    """OozieCLI.printBundleJob (its kick-off time is Java's Date.toString)."""
    z, v = front.zone, front.verbose
    say(f"Job ID : {job['bundleJobId']}")
    say(RULER)
    say(f"Job Name : {mask(job['bundleJobName'])}")
    say(f"App Path : {mask(job['bundleJobPath'])}")
    say(f"Status   : {job['status']}")
    say(f"Kickoff time   : {java_date(job['kickoffTime'], None)}")
    say(RULER)
    say(cols(BUNDLE_COORDS, "Job ID", "Status", "Freq", "Unit", "Started", "Next Materialized"))
    say(RULER)
    for c in job["bundleCoordJobs"]:
        say(
            cols(
                BUNDLE_COORDS,
                mask(c["coordJobId"]),
                c["status"],
                *freq_unit(c),
                mask_date(c["startTime"], z, v),
                mask_date(c["nextMaterializedTime"], z, v),
            )
        )
        say(RULER)


def print_coord_action(front: Front, a: dict[str, Any]) -> None:
    """OozieCLI.printCoordAction."""
    z = front.zone
    say(f"ID : {mask(a['id'])}")
    say(RULER)
    say(f"Action Number        : {a['actionNumber']}")
    say(f"Console URL          : {mask(a['consoleUrl'])}")
    say(f"Error Code           : {mask(a['errorCode'])}")
    say(f"Error Message        : {mask(a['errorMessage'])}")
    say(f"External ID          : {mask(a['externalId'])}")
    say(f"External Status      : {mask(a['externalStatus'])}")
    say(f"Job ID               : {mask(a['coordJobId'])}")
    say(f"Tracker URI          : {mask(a['trackerUri'])}")
    say(f"Created              : {mask_date(a['createdTime'], z)}")
    say(f"Nominal Time         : {mask_date(a['nominalTime'], z)}")
    say(f"Status               : {a['status']}")
    say(f"Last Modified        : {mask_date(a['lastModifiedTime'], z)}")
    say(f"First Missing Dependency : {mask(_first_missing(a))}")
    say(RULER)


def print_wfs_of_action(front: Front, action_id: str) -> None:
    """OozieCLI.printWfsForCoordAction (``-allruns``): every workflow the action launched."""
    from bundletui.commands import coord_queries, queries
    from bundletui.store import jobs

    conn = front.store.conn
    coord_queries.action_info(conn, action_id)  # E0605 for an unknown action
    wfs = [
        queries.workflow_json(conn, w, with_actions=False)
        for w in jobs.children_workflows(conn, action_id)
    ]
    if not wfs:
        return
    z = front.zone
    say(cols(WFS_OF_ACTION, "Job ID", "Status", "Started", "Ended"))
    say(RULER)
    for w in wfs:
        say(
            cols(
                WFS_OF_ACTION,
                mask(w["id"]),
                w["status"],
                mask_date(w["startTime"], z),
                mask_date(w["endTime"], z),
            )
        )
        say(RULER)


def print_job(front: Front, job: dict[str, Any]) -> None:
    """OozieCLI.printJob (a workflow)."""
    z, v = front.zone, front.verbose
    say(f"Job ID : {mask(job['id'])}")
    say(RULER)
    say(f"Workflow Name : {mask(job['appName'])}")
    say(f"App Path      : {mask(job['appPath'])}")
    say(f"Status        : {job['status']}")
    say(f"Run           : {job['run']}")
    say(f"User          : {mask(job['user'])}")
    say(f"Group         : {mask(job['group'])}")
    say(f"Created       : {mask_date(job['createdTime'], z, v)}")
    say(f"Started       : {mask_date(job['startTime'], z, v)}")
    say(f"Last Modified : {mask_date(job['lastModTime'], z, v)}")
    say(f"Ended         : {mask_date(job['endTime'], z, v)}")
    say(f"CoordAction ID: {mask(job['parentId'])}")
    actions = job.get("actions") or []
    if actions:
        say()
        say("Actions")
        say(RULER)
        if v:
            say(
                TAB.join(
                    [
                        "ID",
                        "Console URL",
                        "Error Code",
                        "Error Message",
                        "External ID",
                        "External Status",
                        "Name",
                        "Retries",
                        "Tracker URI",
                        "Type",
                        "Started",
                        "Status",
                        "Ended",
                    ]
                )
            )
            say(RULER)
            for a in actions:
                say(
                    TAB.join(
                        [
                            mask(a["id"]),
                            mask(a["consoleUrl"]),
                            mask(a["errorCode"]),
                            mask(a["errorMessage"]),
                            mask(a["externalId"]),
                            mask(a["externalStatus"]),
                            mask(a["name"]),
                            str(a["retries"]),
                            mask(a["trackerUri"]),
                            mask(a["type"]),
                            mask_date(a["startTime"], z, v),
                            a["status"],
                            mask_date(a["endTime"], z, v),
                        ]
                    )
                )
                say(RULER)
        else:
            say(cols(WF_ACTIONS, "ID", "Status", "Ext ID", "Ext Status", "Err Code"))
            say(RULER)
            for a in actions:
                say(
                    cols(
                        WF_ACTIONS,
                        mask(a["id"]),
                        a["status"],
                        mask(a["externalId"]),
                        mask(a["externalStatus"]),
                        mask(a["errorCode"]),
                    )
                )
                say(RULER)
    else:
        say(RULER)
    say()


def print_workflow_action(front: Front, a: dict[str, Any]) -> None:
    """OozieCLI.printWorkflowAction."""
    z, v = front.zone, front.verbose
    say(f"ID : {mask(a['id'])}")
    say(RULER)
    say(f"Console URL       : {mask(a['consoleUrl'])}")
    say(f"Error Code        : {mask(a['errorCode'])}")
    say(f"Error Message     : {mask(a['errorMessage'])}")
    say(f"External ID       : {mask(a['externalId'])}")
    say(f"External Status   : {mask(a['externalStatus'])}")
    say(f"Name              : {mask(a['name'])}")
    say(f"Retries           : {a['retries']}")
    say(f"Tracker URI       : {mask(a['trackerUri'])}")
    say(f"Type              : {mask(a['type'])}")
    say(f"Started           : {mask_date(a['startTime'], z, v)}")
    say(f"Status            : {a['status']}")
    say(f"Ended             : {mask_date(a['endTime'], z, v)}")
    if v:
        say(f"External Stats    : {mask_none(a['stats'])}")
        say(f"External ChildIDs : {mask_none(a['externalChildIDs'])}")
    say(RULER)


# ----------------------------------------------------------------------------- job: text


def op_definition(front: Front) -> None:
    from bundletui.commands import coord_queries

    say(coord_queries.definition_of(front.store.conn, _value(front, "definition")))


def op_configcontent(front: Front) -> None:
    from bundletui.commands import queries

    job_id = _value(front, "configcontent")
    if not job_id.endswith(("-C", "-W", "-B")):  # Oozie's text; exit 255, not its 0 (QA)
        raise CliError("E0303", f"job id [{job_id}] doesn't end with either C or W or B")
    say(str(queries.job_info(front.store.conn, job_id, length=0).get("conf")))


def op_log(front: Front, *, errors_only: bool = False) -> None:
    """Workflow, node and coordinator-action ids: the nodes' output (stderr for -errorlog);
    a coordinator with -action/-date: its actions' workflows; otherwise the job's audit log."""
    from bundletui.cli.job_cmds import _print_coordinator_logs, _print_logs
    from bundletui.commands import coord_queries
    from bundletui.store import jobs
    from bundletui.store.rows import NodeRow, WorkflowRow

    job_id = _value(front, "errorlog" if errors_only else "log")
    a = front.args
    store = front.store
    kind = kind_of(job_id)
    if kind is not IdKind.COORDINATOR and (a.has("action") or a.has("date")):
        raise CliError(
            "E0302",
            "Invalid options provided for log retrieval. action and date are valid only for "
            "coordinator job log retrieval",
        )
    wf_ids: list[str] = []
    nodes: list[Any] = []
    if kind is IdKind.WORKFLOW_NODE:
        node = jobs.get(store.conn, NodeRow, job_id)
        if node is None:
            raise CommandError.from_template("E0605", job_id)
        nodes = [node]
    elif kind is IdKind.WORKFLOW:
        jobs.must_get(store.conn, WorkflowRow, job_id)
        wf_ids = [job_id]
    elif kind is IdKind.COORD_ACTION:
        if (why := coord_queries.no_workflow_yet(store.conn, job_id)) is not None:
            print(f"  note: {why}", file=sys.stderr)  # it is there: an empty log, as Oozie's
            return
        wf_ids = [coord_queries.workflow_of(store.conn, job_id)]
    elif kind is IdKind.COORDINATOR and (a.has("action") or a.has("date")):
        # each action's workflow output headed `── C@N`, as the API's type=action answer
        _print_coordinator_logs(store, job_id, a.get("action"), a.get("date"), errors_only)
        return
    else:
        _print_audit(front, job_id, errors_only=errors_only)
        return
    every = [n for wf_id in wf_ids for n in jobs.workflow_nodes(store.conn, wf_id)]
    nodes += [n for n in every if n.attempt > 0]
    # a workflow of several nodes gets headings, even when one of them has run
    header = len(nodes) > 1 or len(every) > 1
    _print_logs(store, nodes, follow=False, stderr_only=errors_only, header=header)


def op_errorlog(front: Front) -> None:
    op_log(front, errors_only=True)


def op_auditlog(front: Front) -> None:
    _print_audit(front, _value(front, "auditlog"), errors_only=False)


def _print_audit(front: Front, job_id: str, *, errors_only: bool) -> None:
    """A job's log in Oozie's server-log shape, from the audit log (commands run on it)."""
    from bundletui.commands import queries

    queries.job_info(front.store.conn, job_id, length=0)  # E0604 for an unknown job
    zone = front.zone or None
    lines = queries.audit_log_lines(front.store.conn, job_id, errors_only=errors_only, zone=zone)
    for line in lines:
        say(line)
    if not lines and kind_of(job_id) in (IdKind.COORDINATOR, IdKind.BUNDLE):
        more = (
            f"; its actions' output: bundletui oozie job -log {job_id} -action 1,3-4"
            if kind_of(job_id) is IdKind.COORDINATOR
            else ""
        )
        print(
            printable(f"note: {job_id}'s log lists the commands run on it; none has been{more}"),
            file=sys.stderr,
        )


_UNSUPPORTED_INSTEAD = {
    "poll": "watch a job with: bundletui info <id>, or the console",
    "update": "kill the coordinator and submit the new definition, or change its endtime,"
    " concurrency or pausetime with -change",
    **dict.fromkeys(
        ("slaenable", "sladisable", "slachange"),
        "bundletui keeps no SLA; a coordinator's timeout and its actions' TIMEDOUT status"
        " are the nearest",
    ),
}


def op_unsupported(front: Front) -> None:
    op = front.args.operation
    raise CliError(
        "E0302", f"-{op} is not supported by bundletui ({_UNSUPPORTED_INSTEAD[str(op)]})"
    )


JOB_OPERATIONS: dict[str, Callable[[Front], None]] = {
    "submit": op_submit,
    "run": op_run,
    "dryrun": op_dryrun,
    "start": op_start,
    "suspend": op_suspend,
    "resume": op_resume,
    "kill": op_kill,
    "change": op_change,
    "rerun": op_rerun,
    "info": op_info,
    "log": op_log,
    "errorlog": op_errorlog,
    "auditlog": op_auditlog,
    "definition": op_definition,
    "configcontent": op_configcontent,
    "ignore": op_ignore,
    **dict.fromkeys(("poll", "update", "slaenable", "sladisable", "slachange"), op_unsupported),
}


# ----------------------------------------------------------------------------- jobs


def jobs_command(front: Front) -> None:
    """``oozie jobs``: a listing (default wf, len 50 as Oozie's server) or a bulk operation."""
    from bundletui.commands import coord_queries, queries

    a = front.args
    kind = queries.job_kind(a.get("jobtype"))  # as the API reads jobtype=
    offset = max(a.int_value("offset") or 1, 1)
    length = a.int_value("len") or 0
    length = length if length > 0 else 50
    conn = front.store.conn
    flt = a.get("filter") or ""
    if kind == "wf":
        data = queries.list_workflows(conn, flt, offset, length)
    else:
        data = coord_queries.list_jobs(conn, kind, flt, offset, length)
    items: list[dict[str, Any]] = data[queries.LISTING_ENVELOPE[kind]]
    bulk = next((op for op in ("kill", "suspend", "resume") if a.has(op)), None)
    if bulk is not None:
        queries.check_bulk_filter(
            flt, hint="select the jobs, e.g. -filter 'status=RUNNING;name=ingest'"
        )
        items = _bulk(front, bulk, kind, items)
        if not items:
            say("bulk modify command did not modify any jobs")
            return
        say(f"the following jobs have been {_PAST[bulk]}")
    PRINT_JOBS[kind](front, items, front.verbose and bulk is None)


_PAST = {"kill": "killed", "suspend": "suspended", "resume": "resumed"}


def _bulk(front: Front, op: str, kind: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Apply -kill/-suspend/-resume to each listed job; the ones it applied to, as they are now."""
    from bundletui.commands import dispatch, queries

    key = queries.LISTING_ID_KEY[kind]
    done = dispatch.bulk(front.ctx(), op, [item[key] for item in items])
    return [queries.job_info(front.store.conn, job_id, length=0) for job_id in done]


def print_workflows(front: Front, jobs: list[dict[str, Any]], verbose: bool) -> None:
    """OozieCLI.printJobs."""
    if not jobs:
        say("No Jobs match your criteria!")
        return
    z = front.zone
    if verbose:
        say(
            TAB.join(
                [
                    "Job ID",
                    "App Name",
                    "App Path",
                    "Console URL",
                    "User",
                    "Group",
                    "Run",
                    "Created",
                    "Started",
                    "Status",
                    "Last Modified",
                    "Ended",
                ]
            )
        )
        say(RULER)
        for j in jobs:
            say(
                TAB.join(
                    [
                        mask(j["id"]),
                        mask(j["appName"]),
                        mask(j["appPath"]),
                        mask(j["consoleUrl"]),
                        mask(j["user"]),
                        mask(j["group"]),
                        str(j["run"]),
                        mask_date(j["createdTime"], z, True),
                        mask_date(j["startTime"], z, True),
                        j["status"],
                        mask_date(j["lastModTime"], z, True),
                        mask_date(j["endTime"], z, True),
                    ]
                )
            )
            say(RULER)
        return
    say(cols(WF_JOBS, "Job ID", "App Name", "Status", "User", "Group", "Started", "Ended"))
    say(RULER)
    for j in jobs:
        say(
            cols(
                WF_JOBS,
                mask(j["id"]),
                mask(j["appName"]),
                j["status"],
                mask(j["user"]),
                mask(j["group"]),
                mask_date(j["startTime"], z),
                mask_date(j["endTime"], z),
            )
        )
        say(RULER)


def print_coordinators(front: Front, jobs: list[dict[str, Any]], verbose: bool) -> None:
    """OozieCLI.printCoordJobs."""
    if not jobs:
        say("No Jobs match your criteria!")
        return
    z = front.zone
    if verbose:
        say(
            TAB.join(
                [
                    "Job ID",
                    "App Name",
                    "App Path",
                    "Console URL",
                    "User",
                    "Group",
                    "Concurrency",
                    "Frequency",
                    "Time Unit",
                    "Time Zone",
                    "Time Out",
                    "Started",
                    "Next Materialize",
                    "Status",
                    "Last Action",
                    "Ended",
                ]
            )
        )
        say(RULER)
        for j in jobs:
            say(
                TAB.join(
                    [
                        mask(j["coordJobId"]),
                        mask(j["coordJobName"]),
                        mask(j["coordJobPath"]),
                        mask(j["consoleUrl"]),
                        mask(j["user"]),
                        mask(j["group"]),
                        str(j["concurrency"]),
                        *freq_unit(j),
                        mask(j["timeZone"]),
                        str(j["timeOut"]),
                        mask_date(j["startTime"], z, True),
                        mask_date(j["nextMaterializedTime"], z, True),
                        j["status"],
                        mask_date(j["lastAction"], z, True),
                        mask_date(j["endTime"], z, True),
                    ]
                )
            )
            say(RULER)
        return
    say(
        cols(
            COORD_JOBS,
            "Job ID",
            "App Name",
            "Status",
            "Freq",
            "Unit",
            "Started",
            "Next Materialized",
        )
    )
    say(RULER)
    for j in jobs:
        say(
            cols(
                COORD_JOBS,
                mask(j["coordJobId"]),
                mask(j["coordJobName"]),
                j["status"],
                *freq_unit(j),
                mask_date(j["startTime"], z),
                mask_date(j["nextMaterializedTime"], z),
            )
        )
        say(RULER)


def print_bundles(front: Front, jobs: list[dict[str, Any]], verbose: bool) -> None:
    """OozieCLI.printBundleJobs."""
    if not jobs:
        say("No Jobs match your criteria!")
        return
    z = front.zone
    if verbose:
        say(
            TAB.join(
                [
                    "Job ID",
                    "Bundle Name",
                    "Bundle Path",
                    "User",
                    "Group",
                    "Status",
                    "Kickoff",
                    "Pause",
                    "Created",
                    "Console URL",
                ]
            )
        )
        say(RULER)
        for j in jobs:
            say(
                TAB.join(
                    [
                        mask(j["bundleJobId"]),
                        mask(j["bundleJobName"]),
                        mask(j["bundleJobPath"]),
                        mask(j["user"]),
                        mask(j["group"]),
                        j["status"],
                        mask_date(j["kickoffTime"], z, True),
                        mask_date(j["pauseTime"], z, True),
                        mask_date(j["createdTime"], z, True),
                        mask(j["consoleUrl"]),
                    ]
                )
            )
            say(RULER)
        return
    say(cols(BUNDLE_JOBS, "Job ID", "Bundle Name", "Status", "Kickoff", "Created", "User", "Group"))
    say(RULER)
    for j in jobs:
        say(
            cols(
                BUNDLE_JOBS,
                mask(j["bundleJobId"]),
                mask(j["bundleJobName"]),
                j["status"],
                mask_date(j["kickoffTime"], z),
                mask_date(j["createdTime"], z),
                mask(j["user"]),
                mask(j["group"]),
            )
        )
        say(RULER)


PRINT_JOBS: dict[str, Callable[[Front, list[dict[str, Any]], bool], None]] = {
    "wf": print_workflows,
    "coordinator": print_coordinators,
    "bundle": print_bundles,
}


# ----------------------------------------------------------------------------- typer wiring

_PASS_THROUGH = {
    "ignore_unknown_options": True,
    "allow_extra_args": True,
    "help_option_names": [],
}


class _OozieGroup(TyperGroup):
    """An unknown sub-command is Oozie's ``Invalid sub-command``, exit 255 as every error of
    this front (a script checks for it), not the native usage error's 2."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        from bundletui.cli import _click_class

        try:
            return super().resolve_command(ctx, args)
        except _click_class("UsageError"):
            print(f"Invalid sub-command: Unrecognized command: {args[0]}", file=sys.stderr)
            print(file=sys.stderr)
            print(
                "use: bundletui oozie job|jobs|admin|validate|version|help (oozie help: usage)",
                file=sys.stderr,
            )
            raise typer.Exit(EXIT_ERROR) from None


def register(app: typer.Typer) -> None:
    oozie = typer.Typer(
        cls=_OozieGroup,
        no_args_is_help=True,
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

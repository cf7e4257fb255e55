"""Oozie's command line is parsed here, not by click: commons-cli keeps the first of a repeated
option, takes one operation of a group and no option as a value, and words its errors its way."""

from __future__ import annotations

from dataclasses import dataclass, field

from bundletui.cli.oozie.errors import CliError, ParseError

# Oozie's options are single-dash words (``-info ID``, ``-len 5``). click could declare those
# (``@click.option("-info")``), but it would not parse them as Oozie's CLI does, with Apache
# commons-cli: the first value of an option given twice is kept (click keeps the last); the
# operations are one mutually exclusive group, exactly one of them required (``The option 'kill'
# was specified but an option from this group has already been selected: 'info'``); an option
# that takes a value and is followed by another option has none (``Missing argument for option:
# action``, where click takes the next option as the value); a word that is no option is
# ``Unrecognized argument: …``; and all of them are ``Invalid sub-command: …`` plus the usage,
# exit 255, not click's messages and exit 2. So the argv of these commands is parsed here, from
# one table per command (:func:`parse_args`).


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


#: each command kind's options (the first word of ``oozie job …``, ``oozie jobs …``…)
OPTION_TABLES = {
    "job": JOB_OPTIONS,
    "jobs": JOBS_OPTIONS,
    "admin": ADMIN_OPTIONS,
    "version": VERSION_OPTIONS,
}


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

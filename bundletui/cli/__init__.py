"""The command line face (typer). Parses, calls commands, prints; holds no scheduling logic."""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
from typer.core import TyperCommand

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    help="bundletui: Oozie bundles, coordinators and workflows, JobControl DAGs and event schedules on one SQLite file.",
)


@app.callback()
def _root() -> None:
    """bundletui: an Oozie-compatible scheduler and its operations console."""


@app.command()
def version() -> None:
    """Print bundletui's version."""
    from bundletui import __version__

    typer.echo(__version__)


# The modules that register the commands, in the order ``--help`` lists them.
_MODULES = ("spec_cmds", "job_cmds", "engine_cmds", "oozie", "console_cmds")
# The module of each command (``tests/cli/test_lazy_commands.py`` holds it to the modules): a
# command line naming one imports that module only. Importing them all is about half of a
# short command's time (console_cmds pulls in the console's models, engine_cmds asyncio).
_MODULE_OF = {
    **dict.fromkeys(("validate", "eval", "dryrun"), "spec_cmds"),
    **dict.fromkeys(
        (
            "submit",
            "start",
            "suspend",
            "resume",
            "kill",
            "rerun",
            "change",
            "ignore",
            "purge",
            "info",
            "jobs",
            "definition",
            "log",
        ),
        "job_cmds",
    ),
    "run": "engine_cmds",
    "oozie": "oozie",
    "console": "console_cmds",
    "version": None,
}
_registered: set[str] = set()


def _register(command: str | None = None) -> None:
    """Register the module of ``command``, or every module (for ``--help``, a mistyped
    command's error, or no command named)."""
    from importlib import import_module

    if command in _MODULE_OF:
        wanted = [m for m in (_MODULE_OF[command],) if m is not None]
    else:
        wanted = list(_MODULES)
    for name in wanted:
        if name not in _registered:
            _registered.add(name)
            import_module(f"bundletui.cli.{name}").register(app)
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = _OnceCommand


# options whose one value is a comma-separated list (of actions, dates, names, nodes)
_LISTS = frozenset({"--action", "--date", "--coordinator", "--skip-nodes"})


def _once_options(command: Any) -> dict[str, str]:
    """Each spelling of an option that takes one value, to its main spelling."""
    out: dict[str, str] = {}
    for param in command.params:
        if param.param_type_name == "option" and not (param.is_flag or param.multiple):
            for name in (*param.opts, *param.secondary_opts):
                out[name] = param.opts[0]
    return out


def _refuse_repeats(command: Any, ctx: Any, args: list[str]) -> None:
    """click keeps the last of an option given twice and drops the first without a word:
    ``kill C --action 1 --action 2`` killed @2 only. Refused instead (E0302)."""
    if ctx.resilient_parsing or "--help" in args:  # shell completion, or help asked
        return
    names = _once_options(command)
    seen: dict[str, list[str]] = {}
    i = 0
    while i < len(args) and args[i] != "--":
        name, eq, inline = args[i].partition("=")
        i += 1
        main = names.get(name)
        if main is None:
            continue
        value = inline if eq else (args[i] if i < len(args) else "")
        i += 0 if eq else 1
        seen.setdefault(main, []).append(value)
    for main, values in seen.items():
        if len(values) > 1:
            several = (
                f"; several go in one value, comma-separated: {main} {','.join(values)}"
                if main in _LISTS
                else ""
            )
            raise click_class("UsageError")(
                f"option {main} given {len(values)} times ({', '.join(values)}): give it"
                f" once{several}",
                ctx,
            )


class _OnceCommand(TyperCommand):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _refuse_repeats(self, ctx, args)
        return super().parse_args(ctx, args)


class _ReaderMayLeave:
    """stdout for ``bundletui … | head``: once the reader has gone, the rest of the output goes
    nowhere and the command ends as it would have (click would exit 1 on EPIPE; Oozie's CLI
    exits 0, and ``set -o pipefail`` scripts depend on it). Output that cannot be written
    (``> /dev/full``, a full disk) goes nowhere too, but is remembered: the command ends, and
    :func:`_output_lost` then says so, with the text when it is short (a submit's id)."""

    _KEEP = 2000  # characters of unflushed text kept to show

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failed: OSError | None = None
        self.unflushed: list[str | bytes] = []
        self._kept = 0

    def write(self, text: str | bytes) -> int:
        if self.failed is None and self._kept < self._KEEP:
            self.unflushed.append(text)
            self._kept += len(text)
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            self._gone()
        except OSError as exc:
            self._lost(exc)
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()
        except OSError as exc:
            self._lost(exc)
        else:
            if self.failed is None:
                self.unflushed.clear()
                self._kept = 0

    def _lost(self, exc: OSError) -> None:
        if self.failed is None:
            self.failed = exc
        self._gone()

    def _gone(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())  # the buffered rest flushes into it

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _output_lost(stream: _ReaderMayLeave, code: int) -> int:
    """EB011 when the output could not be written: exit 1 (255 for the Oozie front), not 0
    with nothing printed, nor a traceback. A command that changes jobs has changed them."""
    stream.flush()
    if stream.failed is None:
        return code
    why = stream.failed.strerror or str(stream.failed)
    parts = (t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in stream.unflushed)
    text = "".join(parts).strip()
    short = text and len(text) <= 300 and text.count("\n") < 3  # an id, a line or two
    shown = f"; it was:\n{text}" if short else ""
    typer.echo(
        f"Error: EB011: the output could not be written to standard output ({why}){shown}",
        err=True,
    )
    typer.echo(
        "  hint: what the command did is done (a submit has stored its job: bundletui jobs"
        " lists it); send the output where there is room",
        err=True,
    )
    oozie = sys.argv[1:2] == ["oozie"]
    return code if code else (255 if oozie else 1)


def click_class(name: str) -> type[Exception]:
    """click's exception classes, wherever this typer keeps them (vendored since 0.26)."""
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)


def main() -> None:
    _refuse_undecodable_arguments()
    _register(sys.argv[1] if len(sys.argv) > 1 else None)
    sys.stdout = stdout = _ReaderMayLeave(sys.stdout)
    try:
        code = app(standalone_mode=False)
    except click_class("UsageError") as exc:  # a mistake on the command line
        _usage_error(exc)
        code = getattr(exc, "exit_code", 2)
    except click_class("ClickException") as exc:
        typer.echo(f"Error: {exc.format_message()}", err=True)  # type: ignore[attr-defined]
        code = getattr(exc, "exit_code", 1)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        code = 1
    except SystemExit as exc:  # a command's own exit, with its code
        code = exc.code
        if code is not None and not isinstance(code, int):  # SystemExit("why"), as Python
            typer.echo(str(code), err=True)
            code = 1
    sys.exit(_output_lost(stdout, code if isinstance(code, int) else 0))


def _refuse_undecodable_arguments() -> None:
    """An argument whose bytes are not UTF-8 (a Latin-1 file name, ``$'\\xff'``): Python
    carries them as lone surrogates, which neither SQLite nor the terminal can take. Refused
    before any command runs, so none fails half-way (its audit row, a filter's SQL)."""
    for i, arg in enumerate(sys.argv[1:], 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(arg).decode("utf-8", "backslashreplace")
            oozie = sys.argv[1:2] == ["oozie"]
            prefix = "Error: E0302 : E0302: " if oozie else "Error: E0302: "
            typer.echo(f"{prefix}argument {i} is not UTF-8 text: {shown}", err=True)
            typer.echo(
                "  hint: bundletui keeps names, paths and values as UTF-8: convert it"
                " (iconv -f latin1 -t utf-8), or rename the file (convmv)",
                err=True,
            )
            sys.exit(255 if oozie else 2)


def _usage_error(exc: Any) -> None:
    """``Error: E0302: …`` and where to read more, in place of click's usage box, as the other
    errors print; exit 2 (a usage mistake, as in most command lines) tells it from a refused
    command's exit 1. With no arguments at all the help is the message."""
    message = exc.format_message()
    if type(exc).__name__ == "NoArgsIsHelpError":
        if message.strip():  # (this typer has printed the help already)
            typer.echo(message, err=True)
        return
    typer.echo(f"Error: E0302: {message[:1].lower()}{message[1:]}", err=True)
    oozie_style = _oozie_style_option(message)
    if oozie_style is not None:
        typer.echo(
            f"  hint: options take two dashes here: --{oozie_style}; Oozie's spelling,"
            f" -{oozie_style}, is for bundletui oozie job … / bundletui oozie jobs …",
            err=True,
        )
    elif exc.ctx is not None and exc.ctx.info_name == "run" and "--config" in message:
        typer.echo(
            "  hint: bundletui run runs the engine; to submit a job and start it: "
            "bundletui submit --start FILE (Oozie's job -run: bundletui oozie job -run "
            "-config FILE)",
            err=True,
        )
    elif exc.ctx is not None and (argument := _option_is_an_argument(message, exc.ctx)):
        # Oozie's -config FILE: here the file is the command's argument
        typer.echo(
            f"  hint: give it without the option: {exc.ctx.command_path} {argument}", err=True
        )
    elif exc.ctx is not None:
        typer.echo(f"  hint: see {exc.ctx.command_path} --help", err=True)
    else:  # raised while parsing (an option with no value, QA): no context, but a command
        command = " ".join(["bundletui", *(a for a in sys.argv[1:2] if not a.startswith("-"))])
        typer.echo(f"  hint: see {command} --help", err=True)


def _option_is_an_argument(message: str, ctx: Any) -> str | None:
    """``submit --config job.properties``: the value as the command's argument would take it
    (``job.properties``), when the unknown option names one of its arguments."""
    prefix = "No such option: --"
    if not message.startswith(prefix):
        return None
    name = message[len(prefix) :].split("=", 1)[0].replace("-", "_")
    arguments = [p.name for p in ctx.command.params if p.param_type_name == "argument"]
    if name not in arguments and not (
        name == "config" and len(arguments) == 1 and arguments[0] in ("path", "file")
    ):
        return None
    argv = sys.argv[1:]
    for i, token in enumerate(argv):
        option, eq, value = token.partition("=")
        if option in (f"--{name}", f"--{name.replace('_', '-')}"):
            return value if eq else (argv[i + 1] if i + 1 < len(argv) else f"<{name}>")
    return f"<{name}>"


def _oozie_style_option(message: str) -> str | None:
    """``jobs -len 5``: click reads ``-len`` as ``-l`` ``-e`` ``-n`` and says "no such option:
    -l". The option's name as typed (``len``), when the command line holds one like it."""
    prefix = "No such option: -"
    if not message.startswith(prefix) or len(message) != len(prefix) + 1:
        return None
    letter = message[-1]
    for token in sys.argv[1:]:
        word = token.split("=", 1)[0]
        if word.startswith(f"-{letter}") and len(word) > 2 and word[1:].isidentifier():
            return word[1:]
    return None

"""A command line imports the module of the command it names, not every command's.

``bundletui version`` took 0.30 s, half of it importing the console's and the engine's
command modules it never uses; it takes 0.14 s now. The table of which module registers which
command is checked against the modules themselves, so a new command cannot be left out of it
(it would then be found only through ``--help``'s full registration)."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

import pytest
import typer

from bundletui.cli import _MODULE_OF, _MODULES


def _names(module: str) -> set[str]:
    app = typer.Typer()
    import_module(f"bundletui.cli.{module}").register(app)
    commands = {c.name or c.callback.__name__ for c in app.registered_commands if c.callback}
    return commands | {g.name for g in app.registered_groups if g.name}


def test_the_table_names_each_command_with_the_module_that_registers_it() -> None:
    registered = {name: module for module in _MODULES for name in _names(module)}
    table = {name: module for name, module in _MODULE_OF.items() if module is not None}
    assert table == registered


def _imported(*argv: str) -> set[str]:
    """The bundletui.cli modules a real ``bundletui`` process imported for ``argv``."""
    code = (
        "import sys\n"
        f"sys.argv = ['bundletui', *{list(argv)!r}]\n"
        "from bundletui.cli import main\n"
        "try:\n    main()\n"
        "finally:\n"
        "    print(' '.join(m for m in sys.modules if m.startswith('bundletui.cli.')),"
        " file=sys.stderr)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    return set(r.stderr.rstrip("\n").split("\n")[-1].split())


@pytest.mark.parametrize(
    ("argv", "module"),
    [(("version",), None), (("jobs", "--help"), "job_cmds"), (("run", "--help"), "engine_cmds")],
)
def test_a_command_imports_its_own_module_only(argv: tuple[str, ...], module: str | None) -> None:
    loaded = _imported(*argv) & {f"bundletui.cli.{m}" for m in _MODULES}
    assert loaded == ({f"bundletui.cli.{module}"} if module else set())


def test_help_and_a_mistyped_command_see_every_command() -> None:
    every = {f"bundletui.cli.{m}" for m in _MODULES}
    assert every <= _imported("--help")
    assert every <= _imported("jbos")
    r = subprocess.run(
        [sys.executable, "-m", "bundletui", "--help"], capture_output=True, text=True, timeout=60
    )
    for name in ("validate", "submit", "jobs", "run", "oozie", "console"):
        assert f" {name} " in r.stdout, r.stdout

"""Console QA, second pass: ``--demo`` keeps out of the user's store, the header tells a killed
engine at once, ``:engine`` says what it can do, and ``R`` is dimmed where a rerun is refused.

Real stores, a real ``bundletui run`` killed with SIGKILL, the real ``bundletui console --demo``
path (its Textual app run headless by the command itself)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bundletui.cli import _register, app
from bundletui.store.changes import WORKFLOW, TreeRow
from bundletui.store.rows import ActionRow, CoordRow
from bundletui.tui.app import ConsoleApp
from bundletui.tui.dialogs import RerunDialog
from bundletui.tui.model import availability
from tests.tui.conftest import Env, console, engine_process
from tests.tui.test_console_events import BUNDLETUI, header_line
from tests.tui.test_model import action, bundle, coord, item

pytestmark = pytest.mark.usefixtures("fast_keys")

_register()


# ---------------------------------------------------------------- 1. --demo and the user's store


def _snapshot(home: Path) -> dict[str, bytes]:
    """Every file under a home, with its bytes."""
    return {
        str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()
    }


def _run_demo(
    monkeypatch: pytest.MonkeyPatch, args: list[str], env_home: Path | None
) -> tuple[Any, dict[str, Any]]:
    """``bundletui console --demo ARGS`` as the command runs it, its app headless: it quits
    once the demo bundle shows in the tree and its own engine is active."""
    seen: dict[str, Any] = {}
    run = ConsoleApp.run

    async def pilot(p: Any) -> None:
        a: ConsoleApp = p.app
        demo = a.config.demo
        assert demo is not None
        end = time.monotonic() + 60
        while not (
            any(s.__class__.__name__ == "MainScreen" for s in a.screen_stack)
            and a.main.ready
            and demo.bundle_id in a.main.model.items
            and a.embedded is not None
            and a.embedded.status.state == "active"
        ):
            assert time.monotonic() < end, "the demo did not come up"
            await p.pause(0.05)
        seen.update(
            home=a.config.home,
            landing=a.config.landing,
            temporary=demo.temporary,
            feeder=demo.feeder is not None and demo.feeder.poll() is None,
        )
        a.exit()

    def headless(self: ConsoleApp, **kw: Any) -> Any:
        return run(self, headless=True, size=(120, 40), auto_pilot=pilot)

    monkeypatch.setattr(ConsoleApp, "run", headless)
    # headless under CliRunner: the terminal is the test's (a true boundary)
    monkeypatch.setattr("bundletui.cli.console_cmds._need_terminal", lambda: None)
    if env_home is None:
        monkeypatch.delenv("BUNDLETUI_HOME", raising=False)
    else:
        monkeypatch.setenv("BUNDLETUI_HOME", str(env_home))
    result = CliRunner().invoke(app, ["console", "--demo", *args])
    return result, seen


def test_demo_ignores_bundletui_home_and_leaves_that_store_alone(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA: with BUNDLETUI_HOME set (as the README's feeds walkthrough has it), --demo submitted
    a second feeds bundle into that store and started its feeder in its landing directory. It
    makes a fresh temporary home, whatever BUNDLETUI_HOME says, and removes it on exit."""
    before = _snapshot(env.home)
    result, seen = _run_demo(monkeypatch, [], env.home)
    assert result.exit_code == 0, (result.output, result.exception)
    assert seen["home"] != env.home
    assert seen["home"].parent == Path(tempfile.gettempdir()).resolve()
    assert seen["home"].name.startswith("bundletui-demo-")
    assert seen["landing"] == seen["home"] / "landing" and seen["feeder"] and seen["temporary"]
    assert not seen["home"].exists()  # removed on exit
    assert "demo store kept" not in result.output
    assert _snapshot(env.home) == before  # byte-identical, no landing directory made there
    assert not (env.home / "landing").exists()


def test_demo_in_an_empty_home_given_with_home_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--demo --home DIR (DIR holds no store) builds the demo there, and keeps it."""
    home = tmp_path / "mine"
    result, seen = _run_demo(monkeypatch, ["--home", str(home)], tmp_path / "elsewhere")
    assert result.exit_code == 0, (result.output, result.exception)
    assert seen["home"] == home.resolve() and not seen["temporary"]
    assert (home / "bundletui.db").exists()
    assert f"demo store kept in {home.resolve()}" in result.output
    assert not (tmp_path / "elsewhere").exists()


def _bundletui_console(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``bundletui console ARGS`` in a session of its own: if it does not refuse at once (it
    would start the console and the demo's feeder), all of it is killed, not left running."""
    proc = subprocess.Popen(
        [BUNDLETUI, "console", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        env={**os.environ, "NO_COLOR": "1", **env},
    )
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_demo_with_home_holding_a_store_is_refused_and_writes_nothing(env: Env) -> None:
    """QA: --demo --home on a real store added another demo bundle there on every start. It is
    one clear error, exit 2 (two options that do not go together, as other E0303s), and the
    store is byte-identical."""
    before = _snapshot(env.home)
    for extra in ({}, {"BUNDLETUI_HOME": str(env.home)}):
        done = _bundletui_console(["--demo", "--home", str(env.home)], extra)
        assert done.returncode == 2, done
        assert done.stderr.startswith(
            f"Error: E0303: --demo needs a home of its own: {env.home} holds a store"
        ), done.stderr
        assert "hint: drop --home" in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.splitlines()) == 2, done.stderr
    assert _snapshot(env.home) == before
    assert not (env.home / "landing").exists()


# ---------------------------------------------------------------- 2. a killed engine, at once


async def test_an_engine_killed_here_shows_as_gone_at_once(env: Env) -> None:
    """QA: after kill -9 of the engine it was attached to, the header said "engine: active
    (attached to pid N@host)" until that engine's lease ran out. On this host the console can
    tell at once that the process is gone; and :engine start then says nothing of a standby."""
    with engine_process(env.home, env.root / "engine.log", "30") as proc:
        async with console(env, engine="none", ready=False) as h:
            attached = f"engine: active (attached to pid {proc.pid}@"
            await h.until(lambda: attached in header_line(h), what="attached")
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)  # reaped, as a shell does
            killed = time.monotonic()
            gone = f"engine: none (pid {proc.pid} exited; :engine start)"
            await h.until(lambda: gone in header_line(h), timeout=5, what=gone)
            assert time.monotonic() - killed < 5  # its lease has 30 s to run
            assert "lease expired" not in header_line(h)

            await h.press("colon")
            await h.type("engine start")
            await h.press("enter")
            await h.until(lambda: h.warned("engine started in this console"), what="started")
            assert not h.warned("standby"), h.toasts
            await h.until(lambda: "engine: active (in console" in header_line(h), what="takes over")


# ---------------------------------------------------------------- 3. texts and keys


async def test_engine_start_says_standby_only_when_another_holds_the_lease(env: Env) -> None:
    """QA: ":engine start" said "(standby while another holds the store)" with no other
    engine at all. It says standby, and whose, only when another engine holds the lease."""
    async with console(env, engine="none", ready=False) as h:
        await h.press("colon")
        await h.type("engine start")
        await h.press("enter")
        await h.until(lambda: h.warned("engine started in this console"), what="started")
        assert not h.warned("standby"), h.toasts
        await h.until(lambda: "engine: active (in console" in header_line(h), what="active")

    with engine_process(env.home, env.root / "engine.log", "30") as proc:
        async with console(env, engine="none", ready=False) as h:
            await h.until(lambda: f"attached to pid {proc.pid}@" in header_line(h), what="ok")
            await h.press("colon")
            await h.type("engine start")
            await h.press("enter")
            await h.until(lambda: h.warned("engine started"), what="started")
            assert h.warned(f"(standby while pid {proc.pid}@"), h.toasts


async def test_engine_view_in_read_only_does_not_offer_engine_start(env: Env) -> None:
    """QA: in --read-only, ":engine" said "(:engine start runs one)", which read-only refuses."""
    async with console(env, engine="none", ready=False, read_only=True) as h:
        await h.press("colon")
        await h.type("engine")
        await h.press("enter")
        await h.until(lambda: h.warned("no engine runs in this console"), what="said")
        assert not h.warned(":engine start"), h.toasts
        assert h.warned("no engine runs in this console (it is read-only)"), h.toasts


def test_pause_reason_says_an_action() -> None:
    """QA: "not a action"."""
    reason = availability("pause", item(action("C", 1, "KILLED"))).reason
    assert reason == "pause: a pause time belongs to bundles and coordinators, not an action"
    workflow = TreeRow(WORKFLOW, "W", None, "w", "FAILED", 0, 0)
    assert availability("pause", item(workflow)).reason.endswith("not a workflow")
    assert availability("pause", item(bundle("B"))).enabled


def test_rerun_of_an_action_follows_its_coordinator() -> None:
    """An action is rerun through its coordinator: an IGNORED coordinator refuses, so R is
    dimmed on its actions, with the reason; a KILLED or FAILED one takes the rerun, as
    Oozie's (oozie.md §2.6: only PREP and IGNORED are refused)."""
    done = item(action("C", 1, "KILLED"))
    avail = availability("rerun", done, coord_status="IGNORED")
    assert avail.state == "greyed", avail
    assert avail.reason == (
        "rerun: its coordinator is IGNORED (an IGNORED coordinator's actions cannot be rerun)"
    )
    for status in ("KILLED", "FAILED", "RUNNING", "SUCCEEDED", "DONEWITHERROR", "SUSPENDED", None):
        assert availability("rerun", done, coord_status=status).enabled, status
    for status in ("KILLED", "FAILED"):
        assert availability("rerun", item(coord("C", None, status), KILLED=3)).enabled, status


async def test_an_action_of_a_killed_coordinator_is_rerun_from_the_console(env: Env) -> None:
    """QA (s): a KILLED coordinator refused every rerun (E1100), so a killed feed could not be
    recovered, and the console dimmed R there. Oozie refuses only PREP and IGNORED: R on an
    action of a KILLED coordinator reruns it, and the coordinator is RUNNINGWITHERROR."""
    async with console(env) as h:
        hourly = h.coords()["hourly"].id
        await h.select(hourly)
        await h.press("ctrl+k", "tab", "enter")
        await h.until(lambda: h.status(CoordRow, hourly) == "KILLED", what="coordinator killed")
        await h.until(lambda: h.main.model.items[hourly].status == "KILLED", what="relabelled")
        await h.expand(hourly)
        first = f"{hourly}@1"
        await h.until(lambda: h.status(ActionRow, first) == "KILLED", what="action killed")
        await h.until(lambda: h.main.model.items[first].status == "KILLED", what="in the tree")
        await h.select(first)
        assert h.main.availability("rerun").enabled
        await h.press("R")
        await h.until(lambda: isinstance(h.app.screen, RerunDialog), what="rerun dialog")
        await h.press("tab", "enter")
        await h.until(lambda: h.status(ActionRow, first) == "WAITING", what="rerun")
        assert h.status(CoordRow, hourly) == "RUNNINGWITHERROR"
        assert (h.audit()[0].command, h.audit()[0].result) == ("rerun", "ok")

"""SVG snapshots of the console (pytest-textual-snapshot): the main screen (120×40 and 80×24),
a confirm dialog, the pause-time dialog, the log view and the help screen.

Deterministic: the store is built with a fixed id stamp, a fixed user and a simulated engine run
that stops at a fixed time; the console gets a frozen clock, no engine and no polling, and shows
the temporary directory as /srv/feeds. Update after a deliberate change with
``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at the report first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import Engine, EngineConfig
from bundletui.model.clock import SimulatedClock
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from bundletui.tui.app import ConsoleApp, ConsoleConfig
from bundletui.tui.widgets import ActionTable, JobTree
from tests.tui.conftest import Env, write_env

START = datetime(2024, 1, 1, tzinfo=UTC)
NOON = datetime(2024, 1, 1, 12, tzinfo=UTC)
PRINTER = """<dag-app xmlns="uri:bundletui:dag:1.0" name="printer">
  <job name="report"><shell><exec>sh</exec><argument>-c</argument>
    <argument>for i in 1 2 3; do echo "rows $i: 1000$i"; done; echo "late partition" >&amp;2</argument>
  </shell></job>
</dag-app>
"""


class FrozenClock:
    simulated = True

    def now(self) -> datetime:
        return NOON

    def monotonic(self) -> float:
        return 0.0


@pytest.fixture(scope="module")
def snap_env(tmp_path_factory: pytest.TempPathFactory) -> Env:
    env = write_env(tmp_path_factory.mktemp("snap") / "apps")
    (env.root / "printer").mkdir()
    (env.root / "printer" / "workflow.xml").write_text(PRINTER)
    env.props["printer"] = env.root / "printer.properties"
    env.props["printer"].write_text(f"oozie.wf.application.path={env.root / 'printer'}\n")
    with Store(env.home, clock=SimulatedClock(START)) as store:
        with store.write() as tx:
            store.set_meta(tx, "stamp", "240101000000000")
        ctx = Ctx(store, user="alice")
        for which in ("bundle", "printer"):
            loaded = load_job(env.props[which], [], store.clock, user="alice")
            job = submit_loaded(ctx, loaded, start=True)
            if which == "bundle":
                env.bundle = job
            else:
                env.workflow = job
    env.land(0)
    asyncio.run(
        Engine(
            EngineConfig(
                home=env.home,
                landing=env.landing,
                clock="simulated",
                start_time=START,
                until=NOON,
                watch=False,
            )
        ).run()
    )
    return env


def app_for(env: Env) -> ConsoleApp:
    return ConsoleApp(
        ConsoleConfig(
            home=env.home,
            landing=env.landing,
            engine="none",
            auto_poll=False,
            clock=FrozenClock(),
            frozen_clock=True,
            path_aliases={str(env.root): "/srv/feeds"},
        )
    )


def coordinator(env: Env, name: str) -> str:
    with Store(env.home) as store:
        row = store.conn.execute("SELECT id FROM coord_jobs WHERE app_name = ?", (name,)).fetchone()
    return str(row[0])


async def settled(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, ConsoleApp)
    for _ in range(200):
        if app.screen_stack and any(getattr(s, "ready", False) for s in app.screen_stack):
            break
        await pilot.pause(0.02)
    await app.workers.wait_for_complete()
    await pilot.pause(0.1)
    await app.workers.wait_for_complete()
    await pilot.pause()
    # a DataTable measures new rows when it is next idle: wait for that, or the columns'
    # widths depend on how busy the machine was
    for _ in range(100):
        tables = app.main.query(ActionTable)
        if not any(t._require_update_dimensions for t in tables):
            break
        await pilot.pause(0.02)


def on_hourly(env: Env, then: Callable[[Pilot[Any]], Any] | None = None) -> Any:
    """Expand the hourly coordinator, put the cursor on it, let everything load."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        app = pilot.app
        assert isinstance(app, ConsoleApp)
        hourly = coordinator(env, "hourly")
        tree = app.main.query_one(JobTree)
        tree.select_id(hourly)
        tree.nodes[hourly].expand()
        await settled(pilot)
        table = app.main.query_one(ActionTable)
        for _ in range(100):
            if table.coord_id == hourly and "coordinator hourly" in str(
                app.main.query_one("#details-text").render()
            ):
                break
            await pilot.pause(0.02)
        if then is not None:
            await then(pilot)
            await settled(pilot)

    return run_before


def test_main_screen(snap_compare: Any, snap_env: Env) -> None:
    assert snap_compare(app_for(snap_env), terminal_size=(120, 40), run_before=on_hourly(snap_env))


def test_main_screen_at_80x24(snap_compare: Any, snap_env: Env) -> None:
    assert snap_compare(app_for(snap_env), terminal_size=(80, 24), run_before=on_hourly(snap_env))


def test_confirm_kill_dialog(snap_compare: Any, snap_env: Env) -> None:
    async def to_action(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, ConsoleApp)
        app.main.query_one(JobTree).select_id(f"{coordinator(snap_env, 'hourly')}@3")

    assert snap_compare(
        app_for(snap_env),
        press=["ctrl+k"],
        terminal_size=(100, 30),
        run_before=on_hourly(snap_env, to_action),
    )


def test_pause_time_dialog(snap_compare: Any, snap_env: Env) -> None:
    assert snap_compare(
        app_for(snap_env),
        press=["p", *"+2h"],
        terminal_size=(100, 30),
        run_before=on_hourly(snap_env),
    )


def test_log_view(snap_compare: Any, snap_env: Env) -> None:
    async def to_node(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        app = pilot.app
        assert isinstance(app, ConsoleApp)
        tree = app.main.query_one(JobTree)
        tree.select_id(snap_env.workflow)
        tree.nodes[snap_env.workflow].expand()
        await settled(pilot)
        tree.select_id(f"{snap_env.workflow}@report")
        await settled(pilot)
        await pilot.press("l")
        await settled(pilot)
        await pilot.pause(0.3)

    assert snap_compare(app_for(snap_env), terminal_size=(100, 24), run_before=to_node)


def test_help_screen(snap_compare: Any, snap_env: Env) -> None:
    assert snap_compare(
        app_for(snap_env),
        press=["question_mark"],
        terminal_size=(100, 40),
        run_before=on_hourly(snap_env),
    )


def test_snapshot_store_is_what_the_snapshots_show(snap_env: Env) -> None:
    """The fixture itself: fixed ids and the state the pictures rely on."""
    assert snap_env.bundle == "0000001-240101000000000-bundletui-alice-B"
    with Store(snap_env.home) as store:
        statuses = dict(store.conn.execute("SELECT app_name, status FROM coord_jobs").fetchall())
        printer = store.conn.execute(
            "SELECT status FROM wf_jobs WHERE id = ?", (snap_env.workflow,)
        ).fetchone()[0]
    assert statuses == {"hourly": "RUNNING", "daily": "RUNNING"}
    assert printer == "SUCCEEDED"
    assert Path(snap_env.home / "logs" / snap_env.workflow).is_dir()

"""The console while the engine works: polls update the tree in place (same nodes, same cursor,
same expansion), dialogs freeze updates, filter and faults-only keep ancestors, and the views
(details, describe, definition, logs, help, ':' commands, the action table) show real data."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from textual.widgets import Input, Log

from bundletui.commands.base import Ctx
from bundletui.commands.dispatch import kill_actions
from bundletui.engine.service import EngineConfig
from bundletui.errors import StoreError
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import ActionRow, WorkflowRow
from bundletui.tui.app import ConsoleApp, ConsoleConfig
from bundletui.tui.dialogs import ConfirmDialog, HelpScreen
from bundletui.tui.engine_host import EmbeddedEngine
from bundletui.tui.views import LogScreen, TextScreen
from bundletui.tui.widgets import ActionTable
from tests.cli import bundletui
from tests.tui.conftest import Env, Harness, console, submit

pytestmark = pytest.mark.usefixtures("fast_keys")


def hourly_of(h: Harness) -> str:
    return h.coords()["hourly"].id


async def test_updates_keep_nodes_cursor_and_expansion(env: Env) -> None:
    async with console(env) as h:
        hourly = hourly_of(h)
        await h.expand(hourly)
        watched = f"{hourly}@4"
        await h.select(watched)
        node = h.tree.nodes[watched]
        coord_node = h.tree.nodes[hourly]
        bundle_node = h.tree.nodes[env.bundle]
        env.land(0)
        env.land(1)  # @1 and @2 run and succeed; the throttle lets @7 and @8 materialize
        await h.until(
            lambda: h.status(ActionRow, f"{hourly}@2") == "SUCCEEDED", what="@2 succeeded"
        )
        await h.until(lambda: f"{hourly}@8" in h.tree.nodes, what="@8 in the tree", timeout=20)
        await h.until(
            lambda: h.main.model.items[f"{hourly}@1"].status == "SUCCEEDED", what="relabel"
        )
        await h.until(  # labels are rebuilt when their line is drawn
            lambda: "SUCCEEDED" in str(h.tree.nodes[f"{hourly}@1"].label), what="drawn"
        )
        # never rebuilt: the same node objects, still expanded, the cursor on the same job
        assert h.tree.nodes[watched] is node and h.tree.nodes[hourly] is coord_node
        assert h.tree.nodes[env.bundle] is bundle_node
        assert coord_node.is_expanded and bundle_node.is_expanded
        assert h.tree.cursor_node is node and h.main.selected_id == watched
        # the new actions went in order, after @6
        kids = [c.data for c in coord_node.children]
        assert kids.index(f"{hourly}@7") == kids.index(f"{hourly}@6") + 1
        assert h.main.polls > 1


async def test_a_dialog_freezes_updates_until_it_closes(env: Env) -> None:
    async with console(env) as h:
        hourly = hourly_of(h)
        await h.expand(hourly)
        first = f"{hourly}@1"
        await h.select(hourly)
        await h.press("s")
        assert isinstance(h.app.screen, ConfirmDialog)
        polls = h.main.polls
        env.land(0)
        await h.until(lambda: h.status(ActionRow, first) == "SUCCEEDED", what="engine ran @1")
        await asyncio.sleep(0.5)
        await h.pilot.pause(0.1)
        assert h.main.polls == polls and h.main.skipped_polls > 0
        assert h.main.model.items[first].status == "WAITING"  # what the operator saw
        assert "paused" in str(h.main.query_one("#header").render())
        await h.press("escape")
        await h.until(lambda: h.main.model.items[first].status == "SUCCEEDED", what="catch up")


async def test_filter_keeps_ancestors_and_escape_restores(env: Env) -> None:
    async with console(env) as h:
        hourly, daily = hourly_of(h), h.coords()["daily"].id
        await h.expand(hourly)
        await h.select(f"{hourly}@3")
        await h.press("slash")
        await h.type("daily")  # the filter follows the typing (Input.Changed)
        await h.until(lambda: hourly not in h.tree.nodes, what="filtered")
        shown = set(h.tree.nodes)
        assert daily in shown and env.bundle in shown  # the match and its ancestor
        assert f"{hourly}@3" not in shown
        await h.press("enter")
        assert "/daily" in str(h.main.query_one("#header").render())
        await h.press("escape")
        await h.until(lambda: {hourly, f"{hourly}@3"} <= set(h.tree.nodes), what="restored")
        await h.until(  # back on the job it was on
            lambda: h.main.selected_id == f"{hourly}@3", what="cursor back"
        )

        await h.press("slash")
        await h.type("@5")  # a loaded action: its coordinator and bundle stay
        await h.until(
            lambda: set(h.tree.nodes) == {env.bundle, hourly, f"{hourly}@5"}, what="@5 only"
        )
        await h.press("escape")

        # a job chosen while the filter hid the first one is where the cursor stays (QA (p):
        # esc took it back to the hidden one)
        await h.until(lambda: f"{hourly}@3" in h.tree.nodes, what="unfiltered")
        await h.select(f"{hourly}@3")
        await h.press("slash")
        await h.type("daily")
        await h.until(lambda: hourly not in h.tree.nodes, what="filtered again")
        await h.press("enter")
        await h.select(daily)
        await h.press("escape")
        await h.until(lambda: hourly in h.tree.nodes, what="restored again")
        await h.pilot.pause(0.1)
        assert h.main.selected_id == daily


async def test_faults_only_shows_failed_subtrees(env: Env) -> None:
    async with console(env) as h:
        hourly = hourly_of(h)
        await h.expand(hourly)
        victim = f"{hourly}@2"
        await h.select(victim)
        await h.press("ctrl+k", "tab", "enter")
        await h.until(lambda: h.main.model.items[victim].status == "KILLED", what="killed")
        await h.press("x")
        assert set(h.tree.nodes) == {env.bundle, hourly, victim}
        assert "FAULTS ONLY" in str(h.main.query_one("#header").render())
        await h.press("x")
        assert h.coords()["daily"].id in h.tree.nodes


async def test_details_answer_why_an_action_waits(env: Env) -> None:
    async with console(env) as h:
        hourly = hourly_of(h)
        await h.expand(hourly)
        await h.select(f"{hourly}@3")
        details = h.main.query_one("#details-text")
        # (the engine re-checks WAITING inputs when it starts: wait for its answer)
        await h.until(
            lambda: (
                "action @3" in str(details.render())
                and "1 of 1 inputs missing" in str(details.render())
            ),
            what="details",
        )
        assert "clicks/2024/01/01/02" in str(details.render())
        await h.select(hourly)
        await h.until(lambda: "coordinator hourly" in str(details.render()), what="coord")
        assert "WAITING for inputs" in str(details.render())
        # the action table pages the coordinator's actions in SQL, newest first
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.coord_id == hourly and table.row_count, what="table")
        assert table.action_ids[0] == f"{hourly}@6" and table.page_total == 6


async def test_describe_definition_and_details_views(env: Env) -> None:
    async with console(env) as h:
        hourly = hourly_of(h)
        await h.select(hourly)
        await h.press("d")
        await h.until(lambda: isinstance(h.app.screen, TextScreen), what="describe")
        assert f'"coordJobId": "{hourly}"' in h.app.screen.plain  # type: ignore[attr-defined]
        await h.press("ctrl+s")
        saved = list((env.home / "saved").iterdir())
        assert saved and hourly in saved[0].read_text()
        await h.press("escape", "y")
        await h.until(lambda: isinstance(h.app.screen, TextScreen), what="definition")
        assert '<coordinator-app name="hourly"' in h.app.screen.plain  # type: ignore[attr-defined]
        await h.press("q", "enter")
        await h.until(lambda: isinstance(h.app.screen, TextScreen), what="details")
        assert "why:" in h.app.screen.plain  # type: ignore[attr-defined]
        await h.press("escape")


async def test_log_view_follows_wraps_switches_streams_and_saves(env: Env) -> None:
    wf = submit(env, "sleepy")
    async with console(env) as h:
        await h.until(lambda: wf in h.tree.nodes, what="workflow in tree")
        await h.expand(wf)
        nap = f"{wf}@nap"
        await h.until(lambda: h.main.model.items[nap].status == "RUNNING", what="nap runs")
        await h.select(nap)
        tail = h.main.query_one("#logtail", Log)
        await h.until(lambda: "hello-from-nap" in "\n".join(tail.lines), what="log tail")
        await h.press("l")
        screen = h.app.screen
        assert isinstance(screen, LogScreen)
        await h.until(lambda: "hello-from-nap" in screen.lines, what="log view")
        assert "oops-on-stderr" in screen.lines
        await h.press("e")  # stdout only
        await h.until(lambda: "hello-from-nap" in screen.lines, what="stdout again")
        assert "oops-on-stderr" not in screen.lines
        await h.press("s", "w")
        assert not screen.follow and screen.wrap
        assert "Follow:Off  Wrap:On" in str(screen.query_one(Log).border_subtitle)
        await h.press("ctrl+s")
        saved = [p for p in (env.home / "saved").iterdir() if p.suffix == ".log"]
        assert saved and "hello-from-nap" in saved[0].read_text()
        await h.press("escape")
        assert h.app.screen is h.main
        await h.select(wf)
        await h.press("ctrl+k", "tab", "enter")  # do not leave the sleep behind
        await h.until(lambda: h.workflow_status(wf) == "KILLED", what="workflow killed")


async def test_help_lists_keys_and_runs_the_chosen_one(env: Env) -> None:
    async with console(env) as h:
        daily = h.coords()["daily"].id
        await h.select(daily)
        await h.press("question_mark")
        help_screen = h.app.screen
        assert isinstance(help_screen, HelpScreen)
        entries = {e.description: e for e in help_screen.entries}
        assert entries["Resume"].state == "greyed"
        assert "coordinator is SUCCEEDED" in entries["Resume"].reason
        assert ":coord" in {e.key for e in help_screen.entries}
        describe = next(i for i, e in enumerate(help_screen.entries) if e.action == "describe")
        from textual.widgets import OptionList

        options = help_screen.query_one(OptionList)
        options.highlighted = options.get_option_index(str(describe))
        await h.press("enter")
        await h.until(lambda: isinstance(h.app.screen, TextScreen), what="describe ran")
        assert daily in h.app.screen.plain  # type: ignore[attr-defined]


async def test_command_mode_jumps_and_submits(env: Env) -> None:
    async with console(env) as h:
        hourly = hourly_of(h)
        await h.press("colon")
        await h.type("coord daily")
        await h.press("enter")
        daily = h.coords()["daily"].id
        await h.until(lambda: h.main.selected_id == daily, what="jump to daily")

        await h.press("colon")
        await h.type(f"job {hourly}@5")  # not loaded yet: loads its coordinator on the way
        await h.press("enter")
        await h.until(lambda: h.main.selected_id == f"{hourly}@5", what="jump to an action")

        await h.press("colon")
        await h.type(f"submit {env.props['wf']}")
        await h.press("enter")
        await h.until(lambda: h.audit()[0].command == "submit", what="submitted")
        wf = h.audit()[0].target or ""
        assert h.audit()[0].face == "console" and wf.endswith("-W")
        await h.until(lambda: wf in h.tree.nodes, what="new workflow in the tree")
        await h.until(lambda: h.status(WorkflowRow, wf) == "SUCCEEDED", what="it ran")

        await h.press("colon")
        await h.type("nonsense")
        await h.press("enter")
        assert h.warned("unknown command :nonsense")

        await h.press("colon")
        await h.type("stats")
        await h.press("enter")
        await h.until(lambda: isinstance(h.app.screen, TextScreen), what="stats")
        assert "rows applied" in h.app.screen.plain  # type: ignore[attr-defined]
        await h.press("escape")
        # the view's dismissal finishes before the next key (CI: a ":" pressed while it was
        # still on top went nowhere)
        await h.until(lambda: not isinstance(h.app.screen, TextScreen), what="stats closed")
        await h.press("colon")
        await h.type("audit")
        await h.press("enter")
        await h.until(lambda: isinstance(h.app.screen, TextScreen), what="audit")
        assert "console" in h.app.screen.plain and "submit" in h.app.screen.plain  # type: ignore[attr-defined]


async def test_attaches_to_a_running_engine(env: Env) -> None:
    headless = EmbeddedEngine(EngineConfig(home=env.home, landing=env.landing))
    thread: threading.Thread = headless.start_thread()
    try:
        for _ in range(100):
            if headless.status.state == "active":
                break
            await asyncio.sleep(0.05)
        async with console(env, engine="auto", ready=False) as h:
            assert h.app.embedded is None and h.app.engine_mode == "none"
            await h.until(
                lambda: (
                    "engine: active (attached to pid" in str(h.main.query_one("#header").render())
                ),
                what="attached",
            )
            hourly = None
            await h.until(lambda: len(h.coords()) == 2, what="bundle started by the other engine")
            hourly = hourly_of(h)
            await h.select(hourly)
            await h.press("s", "tab", "enter")  # carried out by the headless engine's store
            await h.until(lambda: h.coords()["hourly"].status == "SUSPENDED", what="suspended")
    finally:
        headless.stop()
        thread.join(10)


async def test_engine_start_stands_by_and_takes_over_when_the_attached_engine_stops(
    env: Env,
) -> None:
    headless = EmbeddedEngine(EngineConfig(home=env.home, landing=env.landing, lease_ttl=2.0))
    thread: threading.Thread = headless.start_thread()
    try:
        await until_active(headless)
        async with console(env, engine="auto", ready=False) as h:
            assert h.app.embedded is None
            await h.press("colon")
            await h.type("engine")
            await h.press("enter")
            assert h.warned(":engine start runs one")
            await h.press("colon")
            await h.type("engine start")
            await h.press("enter")
            embedded = h.app.embedded
            assert embedded is not None
            await h.until(
                lambda: "engine: standby (in console" in str(h.main.query_one("#header").render()),
                what="standby",
            )

            headless.stop()  # the attached engine goes away: the console's takes the store
            thread.join(10)
            await h.until(lambda: embedded.status.state == "active", what="took over")
            await h.until(
                lambda: "engine: active (in console" in str(h.main.query_one("#header").render()),
                what="header",
            )
            await h.until(lambda: len(h.coords()) == 2, what="bundle started")
            hourly = hourly_of(h)
            await h.select(hourly)
            await h.press("s", "tab", "enter")  # carried out by the console's engine now
            await h.until(lambda: h.coords()["hourly"].status == "SUSPENDED", what="suspended")

            await h.press("colon")
            await h.type("engine start")
            await h.press("enter")
            assert h.warned("an engine already runs in this console (active)")
            assert h.app.embedded is embedded
    finally:
        headless.stop()
        thread.join(10)


async def until_active(engine: EmbeddedEngine) -> None:
    for _ in range(200):
        if engine.status.state == "active":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"engine not active: {engine.status}")


async def test_works_at_80_by_24(env: Env) -> None:
    async with console(env, size=(80, 24)) as h:
        hourly = hourly_of(h)
        await h.expand(hourly)
        await h.select(f"{hourly}@1")
        header = str(h.main.query_one("#header").render())
        keys = str(h.main.query_one("#keys").render())
        assert "engine: active (in console" in header  # the pid may be cut at 80 columns
        assert "Kill" in keys and "Quit" in keys
        await h.press("ctrl+k")
        assert isinstance(h.app.screen, ConfirmDialog)
        assert h.app.screen.query_one("#cancel").region.bottom <= 24
        await h.press("escape")


async def test_freeze_key_and_the_paged_action_table(env: Env) -> None:
    async with console(env, page_size=2) as h:
        hourly = hourly_of(h)
        await h.select(hourly)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.coord_id == hourly and table.row_count == 2, what="page 1")
        assert table.action_ids == [f"{hourly}@6", f"{hourly}@5"]
        assert "1-2 of 6" in str(table.border_subtitle)
        await h.press("right_square_bracket")  # older
        await h.until(lambda: table.action_ids == [f"{hourly}@4", f"{hourly}@3"], what="page 2")
        await h.press("left_square_bracket")
        await h.until(lambda: table.action_ids[0] == f"{hourly}@6", what="back to page 1")

        table.focus()  # keys act on the highlighted row when the table has the focus
        await h.pilot.pause(0.05)
        await h.press("down")
        assert h.main.selected_id == f"{hourly}@5"
        await h.press("ctrl+k")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog) and dialog.targets[0].id == f"{hourly}@5"
        await h.press("escape")

        h.tree.focus()
        await h.press("f")
        assert "FROZEN" in str(h.main.query_one("#header").render())
        env.land(0)
        first = f"{hourly}@1"
        await h.until(lambda: h.status(ActionRow, first) == "SUCCEEDED", what="engine ran @1")
        await h.pilot.pause(0.3)
        assert h.main.model.counts_of(hourly).get("SUCCEEDED") is None
        await h.press("f")
        await h.until(
            lambda: h.main.model.counts_of(hourly).get("SUCCEEDED") == 1, what="caught up"
        )


async def test_its_own_engine_does_not_move_a_simulated_store_to_the_real_clock(env: Env) -> None:
    from datetime import UTC, datetime

    from bundletui.store.clockstate import set_clock_mode

    with env.store() as store, store.write() as tx:
        set_clock_mode(store, tx, "simulated", datetime(2024, 1, 1, tzinfo=UTC))
    async with console(env, engine="auto", ready=False) as h:
        assert h.app.engine_mode == "embedded"
        await h.until(
            lambda: "EB203" in str(h.main.query_one("#header").render()), what="refused, said"
        )
    with env.store() as store:  # still simulated, at its time: nothing was made due
        assert store.meta("clock") == "simulated"
        assert store.meta("sim_now") == str(
            int(datetime(2024, 1, 1, tzinfo=UTC).timestamp() * 1000)
        )


async def test_the_first_job_of_an_empty_store_is_selected(env: Env, tmp_path: Path) -> None:
    empty = Env(env.root, tmp_path / "empty-home", env.landing, env.out, props=dict(env.props))
    Store(empty.home).close()  # a store with no job (a console never makes one: EB001)
    async with console(empty, ready=False) as h:
        assert h.tree.cursor_node is None
        await h.press("colon")
        await h.type(f"submit {env.props['wf']}")
        await h.press("enter")
        await h.until(lambda: len(h.tree.root.children) == 1, what="the job in the tree")
        wf = h.tree.root.children[0].data
        await h.until(lambda: h.main.selected_id == wf, what="selected, details shown")


async def test_safemode_set_elsewhere_shows_in_the_header_and_keys_are_refused(
    env: Env,
) -> None:
    from bundletui.commands.admin import set_system_mode
    from bundletui.commands.base import Ctx
    from bundletui.store.rows import CoordRow

    async with console(env) as h:
        hourly = hourly_of(h)

        def header() -> str:
            return str(h.main.query_one("#header").render())

        assert "SAFEMODE" not in header()
        set_system_mode(Ctx(h.store, face="cli"), "SAFEMODE")  # `oozie admin` in another shell
        await h.until(lambda: "SAFEMODE" in header(), what="the SAFEMODE badge")
        await h.select(hourly)
        await h.press("s", "tab", "enter")
        await h.until(lambda: h.warned("E0002"), what="the refusal")
        assert h.status(CoordRow, hourly) == "RUNNING"
        set_system_mode(Ctx(h.store, face="cli"), "NORMAL")
        await h.until(lambda: "SAFEMODE" not in header(), what="the badge gone")


def pane_text(h: Harness) -> str:
    return str(h.main.query_one("#details-text").render())


async def waiting_filter_on_action_3(h: Harness) -> tuple[str, str]:
    """/waiting with the cursor on the hourly coordinator's action 3: (coordinator, action)."""
    hourly = hourly_of(h)
    await h.expand(hourly)
    await h.press("slash")
    await h.type("waiting")
    await h.press("enter")
    action = f"{hourly}@3"
    await h.select(action)
    return hourly, action


async def test_a_filter_that_stops_matching_everything_leaves_nothing_selected(env: Env) -> None:
    """/waiting, the cursor on a WAITING action, and every waiting action is killed from the
    CLI: the tree empties, and the panes say nothing is selected instead of showing the
    killed action as WAITING (and its coordinator's page of WAITING rows) under a header
    that counts them killed."""
    async with console(env, engine="none") as h:
        hourly, action = await waiting_filter_on_action_3(h)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: "@3" in pane_text(h), what="the action's details")
        await h.until(lambda: table.coord_id == hourly and table.row_count, what="the page")

        kill_actions(Ctx(h.store, face="cli"), hourly, actions="1-6")  # another shell
        await h.until(lambda: not h.tree.root.children, what="the filter matches nothing")
        await h.until(lambda: h.warned(f"{action} is no longer shown"), what="the toast")
        note = next(m for _s, m in h.toasts if action in m)
        assert "nothing is selected" in note and "parent" not in note, note
        assert "/waiting" in note
        assert h.main.selected_id is None and h.tree.cursor_node is None
        await h.until(lambda: "Nothing selected" in pane_text(h), what="the empty details")
        assert "@3" not in pane_text(h) and "/waiting" in pane_text(h)
        assert table.row_count == 0 and table.coord_id is None
        await h.pilot.pause(0.3)  # no late page or details put the stale job back
        assert table.row_count == 0 and "Nothing selected" in pane_text(h)

        await h.press("escape")  # every job again: the cursor is on one, the panes follow
        await h.until(lambda: h.main.selected_id == env.bundle, what="the cursor back")
        await h.until(lambda: "Nothing selected" not in pane_text(h), what="details again")


async def test_when_only_the_selection_stops_matching_the_cursor_goes_to_its_parent(
    env: Env,
) -> None:
    async with console(env, engine="none") as h:
        hourly, action = await waiting_filter_on_action_3(h)
        kill_actions(Ctx(h.store, face="cli"), hourly, actions="3")
        await h.until(lambda: action not in h.tree.nodes, what="@3 filtered out")
        await h.until(lambda: h.main.selected_id == hourly, what="the cursor on the parent")
        assert h.warned(f"{action} is no longer shown (the filter /waiting); the cursor moved "
                        "to its parent, coordinator hourly")  # fmt: skip
        table = h.main.query_one(ActionTable)

        def row3() -> str:
            return str(table.get_row(f"{hourly}@3")[2]) if f"{hourly}@3" in table.rows else ""

        await h.until(lambda: row3() == "KILLED", what="the page shows @3 KILLED")
        await h.until(lambda: "coordinator hourly" in pane_text(h), what="the parent's details")


async def test_a_long_name_is_cut_so_its_status_stays_in_sight(env: Env) -> None:
    """A coordinator named with 120 characters: its line keeps the status (and the counts)
    at 80, 120 and 200 columns, the name cut with an ellipsis; the tree never scrolls
    sideways."""
    long_name = "an-extremely-long-coordinator-name-" + "x" * 85
    xml = env.root / "long.xml"
    xml.write_text(
        (env.root / "daily.xml").read_text().replace('name="daily"', f'name="{long_name}"')
    )
    props = env.root / "long.properties"
    props.write_text(env.props["wf"].read_text().replace(
        f"oozie.wf.application.path={env.root / 'wf'}", f"oozie.coord.application.path={xml}"
    ))  # fmt: skip
    env.props["long"] = props
    long_id = submit(env, "long")
    async with console(env, engine="none", size=(80, 24)) as h:
        await h.until(lambda: long_id in h.tree.nodes, what="the coordinator in the tree")
        status = h.main.model.items[long_id].status
        for size in ((80, 24), (120, 40), (200, 60)):
            await h.pilot.resize_terminal(*size)
            await h.pilot.pause(0.2)
            lines = [h.tree.render_line(y).text for y in range(h.tree.size.height)]
            line = next(x for x in lines if "an-extremely-long" in x)
            assert f"…  {status}" in line, (size, line)
            assert long_name not in line
            hourly = next(x for x in lines if "hourly" in x)
            assert "RUNNING" in hourly and "◷6" in hourly, (size, hourly)
            assert h.tree.virtual_size.width <= h.tree.scrollable_content_region.width, size


async def test_a_home_without_a_store_is_refused_and_nothing_is_made(tmp_path: Path) -> None:
    """README: commands other than submit on a home without a store say so (EB001); the
    console too, rather than make an empty store and run an engine in it."""
    home = tmp_path / "typo"
    done = bundletui("console", "--home", str(home), timeout=30)
    assert done.returncode == 1, done
    assert done.stderr.startswith(f"Error: EB001: no store at {home / 'bundletui.db'}"), done
    assert not home.exists()
    with pytest.raises(StoreError) as refused:  # nor does the app, started some other way
        ConsoleApp(ConsoleConfig(home=home))
    assert refused.value.code == "EB001"
    assert not home.exists()


async def test_the_action_table_fits_its_pane(env: Env) -> None:
    """QA: at 120×40 and 160×50 the action table was 101 cells wide, wider than its pane, and
    the workflow id was seen only by scrolling sideways. Its columns are fitted to the pane:
    the id is shortened to its sequence number and kind, why / error comes in when there is
    room, and nothing scrolls sideways."""
    async with console(env, size=(120, 40)) as h:
        hourly = hourly_of(h)
        first = f"{hourly}@1"
        env.land(0)  # @1 runs and names its workflow

        def workflow() -> str:
            row = jobs.get(h.store.conn, ActionRow, first)
            return (row.external_id if row is not None else None) or ""

        wf = await h.until(workflow, what="@1's workflow")
        seq, kind = wf.split("-")[0], wf.split("-")[-1]
        await h.select(hourly)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: first in table.action_ids, what="@1 in the table")
        table.focus()
        table.move_cursor(row=table.action_ids.index(first))
        for size, why in (((120, 40), False), ((160, 50), True), ((80, 24), False)):
            await h.pilot.resize_terminal(*size)
            await h.pilot.pause(0.3)
            assert table.max_scroll_x == 0, (size, table.virtual_size, table.size)
            assert table.highlighted_id() == first, size  # the cursor stays on its action
            lines = [table.render_line(y).text for y in range(table.size.height)]
            row = next(line for line in lines if line.lstrip().startswith("1 "))
            assert "SUCCEEDED" in row or "RUNNING" in row, (size, row)
            assert f"{seq}-…-" in row and row.rstrip().endswith(f"-{kind}"), (size, row)
            assert ("why / error" in lines[0]) is why, (size, lines[0])
            if not why:  # no column of its own: a waiting row says why in the workflow's place
                assert "workflow / why" in lines[0], (size, lines[0])
                waiting = [line for line in lines if "WAITING" in line]
                assert waiting and all("missing" in line for line in waiting), (size, waiting)


async def test_a_narrow_tree_says_when_counts_gave_way(env: Env) -> None:
    """QA: a label too long for a narrow tree dropped its lower-priority counts with nothing
    to say so; now ``+N`` counts the actions of the groups that gave way."""
    async with console(env, size=(64, 24)) as h:
        hourly = hourly_of(h)
        kill_actions(Ctx(h.store, face="cli"), hourly, actions="2")  # ✗1 and a longer status
        await h.until(lambda: h.main.model.counts_of(hourly).get("KILLED") == 1, what="killed")
        await h.until(
            lambda: h.main.model.items[env.bundle].status == "RUNNINGWITHERROR", what="rolled up"
        )
        await h.pilot.pause(0.2)
        lines = [h.tree.render_line(y).text for y in range(h.tree.size.height)]
        feeds = next(line for line in lines if "feeds" in line).rstrip()
        hidden = sum(
            n
            for coord in h.main.model.items[env.bundle].children or []
            for status, n in h.main.model.counts_of(coord).items()
            if status not in ("FAILED", "KILLED", "TIMEDOUT")
        )
        assert feeds.endswith(f"RUNNINGWITHERROR ✗1 +{hidden}"), feeds  # was "… ◷6 ✗1"


async def test_submit_says_the_new_job_id(env: Env) -> None:
    """QA: the toast of ``:submit`` named the file submitted, not the job it made."""
    async with console(env) as h:
        await h.press("colon")
        await h.type(f"submit {env.props['wf']}")
        await h.press("enter")
        await h.until(lambda: h.audit()[0].command == "submit", what="submitted")
        wf = h.audit()[0].target or ""
        assert wf.endswith("-W")
        await h.until(lambda: h.warned("submit"), what="the toast")
        toast = next(m for _s, m in h.toasts if m.startswith("submit"))
        assert toast == f"submit wf.properties: {wf}", toast


async def test_a_refused_submit_says_which_file_and_line_and_the_hint(env: Env) -> None:
    """QA: the toast of a refused ``:submit`` named the properties file, not the coordinator
    file and line the error is in, and dropped the hint."""
    bad = env.home.parent / "bad"
    bad.mkdir()
    coordinator = bad / "c.xml"
    coordinator.write_text(
        '<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z"\n'
        '    end="2026-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">\n'
        "  <action><workflow><app-path>/tmp/wf</app-path><configuration>\n"
        "    <property><name>x</name><value>${coord:dataIn('nope')}</value></property>\n"
        "  </configuration></workflow></action>\n</coordinator-app>\n"
    )
    props = bad / "job.properties"
    props.write_text(f"oozie.coord.application.path={coordinator}\n")
    async with console(env, engine="none") as h:
        await h.press("colon")
        await h.type(f"submit {props}")
        await h.press("enter")
        await h.until(lambda: h.warned("E1004"), what="the toast")
        toast = next(m for _s, m in h.toasts if "E1004" in m)
        assert f"E1004: {coordinator}:4: " in toast, toast
        assert "hint: defined: none" in toast, toast


async def test_tab_out_of_the_filter_keeps_it_and_hides_the_prompt(env: Env) -> None:
    """QA: Tab out of the ``/`` prompt left it open. As k9s: leaving the box keeps the filter
    applied and hides the prompt (esc still clears it, from the tree)."""
    async with console(env) as h:
        hourly, daily = hourly_of(h), h.coords()["daily"].id
        row = h.main.query_one("#prompt-row")
        await h.press("slash")
        await h.type("daily")
        await h.until(lambda: hourly not in h.tree.nodes, what="filtered")
        assert row.has_class("-open")
        await h.press("tab")
        assert not row.has_class("-open") and h.main.prompt_mode == ""
        assert not isinstance(h.app.focused, Input)
        assert h.main.model.filter_text == "daily" and hourly not in h.tree.nodes
        assert daily in h.tree.nodes and "/daily" in str(h.main.query_one("#header").render())
        h.tree.focus()
        await h.press("escape")
        await h.until(lambda: hourly in h.tree.nodes, what="cleared")

        await h.press("colon")  # the command prompt too: hidden, nothing run
        await h.type("q")
        prompt = h.main.query_one("#prompt", Input)
        await h.until(lambda: prompt._suggestion == "quit", what="quit suggested")
        await h.press("tab")  # k9s: tab first accepts the suggestion
        assert row.has_class("-open") and prompt.value == "quit"
        await h.press("tab")  # nothing left to complete: it leaves the prompt
        assert not row.has_class("-open") and h.app.return_code is None

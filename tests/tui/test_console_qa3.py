"""Console QA, third pass: ``--clock`` for the console's engine, ``:`` completion without the
colon, the action table's "why" column keeping what tells rows apart, a sort and ``:job C@N``
keeping the cursor on its action beyond page one, error codes that do not read as counts, keys
the help lists, the bulk dialog's question, and a finished fs workflow's log tail."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest
from textual.widgets import Input, Log
from typer.testing import CliRunner

from bundletui.cli import _register, app
from bundletui.commands.base import Ctx
from bundletui.commands.dispatch import kill_actions
from bundletui.store import lease as lease_store
from bundletui.store.changes import WORKFLOW, TreeRow
from bundletui.store.clockstate import set_clock_mode, stored_sim_now
from bundletui.store.db import Store
from bundletui.store.rows import ActionRow
from bundletui.tui import widgets
from bundletui.tui.app import ConsoleApp
from bundletui.tui.details import workflow_page
from bundletui.tui.dialogs import ConfirmDialog, HelpScreen
from bundletui.tui.labels import error_text, label
from bundletui.tui.model import ConsoleModel
from bundletui.tui.widgets import ActionTable
from tests.tui.conftest import Env, console

pytestmark = pytest.mark.usefixtures("fast_keys")

_register()


# ---------------------------------------------------------------- 1. --clock for the console


def _simulated(env: Env, at: datetime) -> None:
    """Put ``env``'s store on a simulated clock at ``at``, as ``bundletui run --clock simulated
    --start-time T --until T`` leaves it."""
    with Store(env.home) as store, store.write() as tx:
        set_clock_mode(store, tx, "simulated", at)


def _run_console(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> tuple[Any, dict[str, Any]]:
    """``bundletui console ARGS`` as the command runs it, its app headless: it quits once its
    own engine is active or has failed."""
    seen: dict[str, Any] = {}
    run = ConsoleApp.run

    async def pilot(p: Any) -> None:
        a: ConsoleApp = p.app
        end = time.monotonic() + 30
        while a.embedded is None or a.embedded.status.state not in ("active", "failed"):
            assert time.monotonic() < end, "the console's engine neither started nor failed"
            await p.pause(0.05)
        seen.update(status=a.embedded.status, config=a.embedded.config)
        a.exit()

    def headless(self: ConsoleApp, **kw: Any) -> Any:
        return run(self, headless=True, size=(120, 40), auto_pilot=pilot)

    monkeypatch.setattr(ConsoleApp, "run", headless)
    # headless under CliRunner: the terminal is the test's (a true boundary)
    monkeypatch.setattr("bundletui.cli.console_cmds._need_terminal", lambda: None)
    result = CliRunner().invoke(app, ["console", *args])
    return result, seen


def test_console_clock_simulated_runs_its_engine_on_the_stores_simulated_clock(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA: on a store made with ``run --clock simulated --start-time T --until T`` (as the
    README has it before submitting) the console's engine failed with EB203, whose hint named
    ``--clock``, an option the console did not have. ``console --clock simulated`` goes on
    with the store's simulated clock (from its own time, as ``run`` resumes)."""
    at = datetime(2024, 1, 1, 3, tzinfo=UTC)
    _simulated(env, at)
    result, seen = _run_console(monkeypatch, ["--home", str(env.home), "--clock", "simulated"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert seen["status"].state == "active", seen["status"]
    assert seen["config"].clock == "simulated"
    with Store(env.home) as store:
        assert store.meta("clock") == "simulated"
        now = stored_sim_now(store)
        assert now is not None and now >= at


def test_console_on_a_simulated_store_without_clock_is_refused_before_it_opens(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``--clock`` the store is not moved to the real clock: EB203, said before the
    screen opens, as ``run`` says it (QA (w): the console opened with it in its header); the
    hint names the console's own ways on."""
    _simulated(env, datetime(2024, 1, 1, 3, tzinfo=UTC))
    result, seen = _run_console(monkeypatch, ["--home", str(env.home)])
    assert result.exit_code == 1, (result.output, result.exception)
    assert "Error: EB203: this store runs on a simulated clock" in result.output, result.output
    assert "pass --clock simulated to go on" in result.output
    assert "--read-only to look at it without an engine" in result.output
    assert seen == {}  # no console ran


def test_console_on_a_simulated_store_attaches_to_the_engine_that_holds_it(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (z): with a `bundletui run --clock simulated` holding the store, a plain `console`
    was refused EB203; it opens and attaches (it starts no engine of its own), as README says."""
    _simulated(env, datetime(2024, 1, 1, 3, tzinfo=UTC))
    with Store(env.home) as store:
        now = int(time.time() * 1000)
        assert lease_store.try_acquire(store, "other", 1, "elsewhere", "run", now, 60_000) is None
    modes: list[str] = []
    run = ConsoleApp.run

    async def pilot(p: Any) -> None:
        modes.append(p.app.engine_mode)
        p.app.exit()

    def headless(self: ConsoleApp, **kw: Any) -> Any:
        return run(self, headless=True, size=(120, 40), auto_pilot=pilot)

    monkeypatch.setattr(ConsoleApp, "run", headless)
    monkeypatch.setattr("bundletui.cli.console_cmds._need_terminal", lambda: None)
    result = CliRunner().invoke(app, ["console", "--home", str(env.home)])
    assert result.exit_code == 0, (result.output, result.exception)
    assert modes == ["none"]  # attached


def test_console_start_time_goes_with_a_simulated_clock(env: Env) -> None:
    """As for ``run``: --start-time without --clock simulated is refused before anything
    starts, and so is --clock on a read-only console (it runs no engine)."""
    runner = CliRunner()
    done = runner.invoke(
        app, ["console", "--home", str(env.home), "--start-time", "2024-01-01T00:00Z"]
    )
    assert done.exit_code == 2 and "goes with --clock simulated" in done.output, done.output
    done = runner.invoke(
        app, ["console", "--home", str(env.home), "--read-only", "--clock", "real"]
    )
    assert done.exit_code == 2 and "runs no engine" in done.output, done.output


# ---------------------------------------------------------------- 2. ':' completion and history


async def test_colon_prompt_completes_a_verb_typed_without_the_colon(env: Env) -> None:
    """QA: the suggestions were ``:coord``, ``:bundles``… while the input holds ``coo`` (the
    ``:`` is a label beside it), so nothing was ever suggested. ``coo`` suggests ``coord``;
    tab accepts it (as → does), as in k9s."""
    async with console(env, engine="none") as h:
        await h.press("colon")
        prompt = h.main.query_one("#prompt", Input)
        for key in "coo":
            await h.press(key)
        await h.until(lambda: prompt._suggestion == "coord", what="coord suggested")
        await h.press("tab")
        assert prompt.value == "coord" and h.app.focused is prompt
        await h.press("backspace", "backspace", "backspace", "backspace", "backspace", "b")
        await h.until(lambda: prompt._suggestion == "bundles", what="bundles suggested")
        await h.press("right")
        assert prompt.value == "bundles"


async def test_colon_prompt_recalls_this_sessions_commands_with_up_and_down(env: Env) -> None:
    async with console(env, engine="none") as h:
        for line in ("faults", "stats"):
            await h.press("colon")
            await h.type(line)
            await h.press("enter")
            if line == "stats":
                await h.press("escape")
        await h.press("colon")
        prompt = h.main.query_one("#prompt", Input)
        await h.type("fr")
        await h.press("up")
        assert prompt.value == "stats"
        await h.press("up")
        assert prompt.value == "faults"
        await h.press("up")  # the oldest stays
        assert prompt.value == "faults"
        await h.press("down", "down")
        assert prompt.value == "fr"  # back to what was being typed


# ---------------------------------------------------------------- 3. the why column


def test_why_column_keeps_the_end_of_a_missing_path_and_an_errors_code_and_node() -> None:
    """QA: the path was shortened in its middle, then the table cut its end, so every WAITING
    row read ``missing …/01/02/``; a failed row ``3 node a: shell action``."""
    path = "/data/landing/clicks/2026/01/02/10"
    assert widgets.fit_path(path, 9) == "…/02/10"
    assert widgets.fit_path(path, 10) == "…/01/02/10"
    assert widgets.fit_path(path, 16) == "…/2026/01/02/10"
    assert widgets.fit_path(path, 40) == path
    assert widgets.fit_path("/averyveryverylongname", 8) == "…ongname"
    error = "error 3: node a: shell action a: exit code 3"
    assert widgets.fit_error(error, 60) == error
    assert widgets.fit_error(error, 31) == "error 3: node a: …: exit code 3"
    assert widgets.fit_error(error, 26) == "error 3: …: exit code 3"
    assert widgets.fit_error(error, 20) == "error 3: node a: sh…"
    held = "EB0802: run constraints not met in time: timeout reached (window): discarded"
    assert widgets.fit_error(held, 23) == "EB0802: …: discarded"


@pytest.mark.parametrize("size", [(134, 30), (96, 30)])
async def test_waiting_rows_each_show_their_own_missing_partition_in_a_narrow_table(
    env: Env, size: tuple[int, int]
) -> None:
    """A why column of 16 cells, and no why column (the reason in the workflow column): each
    row ends with its own hour (too narrow for "missing " as well, the path is kept)."""
    async with console(env, engine="none", size=size) as h:
        hourly = h.coords()["hourly"].id
        await h.select(hourly)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.coord_id == hourly and table.row_count >= 6, what="page")
        key = "why" if "why" in table.widths else "wf"
        width = table.widths[key]
        assert width <= 20  # narrow: the end of the path is what is cut away without the fix
        column = list(table.widths).index(key)
        for row, action_id in enumerate(table.action_ids):
            hour = int(action_id.rpartition("@")[2]) - 1  # @1 waits for hour 00
            text = str(table.get_row_at(row)[column])
            assert text.startswith(("missing …/", "…/")) and len(text) <= width, text
            assert text.endswith(f"/{hour:02d}"), text


# ---------------------------------------------------------------- 6. error codes are not counts


def test_a_failed_workflows_error_code_reads_as_an_error_not_a_count() -> None:
    """QA: ``failing-dag  FAILED 3`` and ``why: 3 node a: …``: the exit code read like a
    count. As the CLI's ``Error : 3: node a: …``."""
    m = ConsoleModel()
    wf = TreeRow(WORKFLOW, "W", None, "failing-dag", "FAILED", 1, 1, error="3")
    m.load_top([wf], [], {})
    assert label(m, m.items["W"]).plain == "failing-dag  FAILED (error 3)"
    page = workflow_page(
        {
            "id": "W",
            "appName": "failing-dag",
            "status": "FAILED",
            "errorCode": "3",
            "errorMessage": "node a: shell action a: exit code 3",
            "actions": [],
        }
    ).plain
    assert "why: error 3: node a: shell action a: exit code 3" in page, page
    assert error_text("EB0501", "no <exec>") == "EB0501: no <exec>"  # no number: no "error"


# ---------------------------------------------------------------- 4/5. the page that holds it


async def test_a_sort_loads_the_page_that_holds_the_cursors_action(env: Env) -> None:
    """QA: with the cursor on an action beyond page one, ``S`` reloaded page one and the
    cursor landed on another action (the README: "the cursor stays on its action"). Pages of
    two, newest first: @2 is on the third page; by status (@3 KILLED first) it is on the
    third page again, as the fifth action; oldest first, on the first."""
    async with console(env, engine="none", page_size=2) as h:
        hourly = h.coords()["hourly"].id
        a = {n: f"{hourly}@{n}" for n in range(1, 7)}
        kill_actions(Ctx(h.store, face="cli"), hourly, actions="3")
        await h.until(lambda: h.status(ActionRow, a[3]) == "KILLED", what="@3 killed")
        await h.select(hourly)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.action_ids == [a[6], a[5]], what="page 1")
        await h.press("right_square_bracket")
        await h.until(lambda: table.action_ids == [a[4], a[3]], what="page 2")
        await h.press("right_square_bracket")
        await h.until(lambda: table.action_ids == [a[2], a[1]], what="page 3")
        table.focus()
        await h.until(lambda: h.main.selected_id == a[2], what="cursor on @2")

        await h.press("S")  # KILLED @3, then WAITING newest first: 3 6 | 5 4 | 2 1
        await h.until(lambda: table.action_ids == [a[2], a[1]] and table.page_offset == 5)
        assert table.highlighted_id() == a[2] == h.main.selected_id
        await h.press("S")  # the other way: 6 5 | 4 2 | 1 3
        await h.until(lambda: table.action_ids == [a[4], a[2]], what="@2 on page 2")
        assert table.highlighted_id() == a[2] == h.main.selected_id
        await h.press("N", "N")  # oldest first: 1 2 | …
        await h.until(lambda: table.action_ids == [a[1], a[2]], what="@2 on page 1")
        assert table.highlighted_id() == a[2] == h.main.selected_id


async def test_job_command_opens_the_action_table_at_an_action_the_tree_does_not_hold(
    env: Env,
) -> None:
    """QA: ``:job C@17`` on a coordinator with thousands of actions selected the coordinator
    and toasted that @17 was not among the newest in the tree; the table stayed on page one.
    The tree holding the newest two, pages of two: ``:job C@2`` opens the third page, the
    cursor (and the focus, and the details) on @2."""
    async with console(env, engine="none", page_size=2, action_limit=2) as h:
        hourly = h.coords()["hourly"].id
        h.app.backend.action_limit = 2  # the tree loads a coordinator's newest two
        await h.expand(hourly)
        assert f"{hourly}@2" not in h.main.model.items
        await h.press("colon")
        await h.type(f"job {hourly}@2")
        await h.press("enter")
        table = h.main.query_one(ActionTable)
        await h.until(lambda: h.main.selected_id == f"{hourly}@2", what="@2 selected")
        assert table.coord_id == hourly and table.page_offset == 5
        assert table.action_ids == [f"{hourly}@2", f"{hourly}@1"]
        assert h.app.focused is table and table.highlighted_id() == f"{hourly}@2"
        assert not h.warned("not among the newest")


# ---------------------------------------------------------------- 7. keys and the help


async def test_action_table_g_and_home_go_to_the_first_row_and_G_and_end_to_the_last(
    env: Env,
) -> None:
    """QA: home / end and g / G left the cursor on row 0 of the action table."""
    async with console(env, engine="none") as h:
        hourly = h.coords()["hourly"].id
        await h.select(hourly)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.coord_id == hourly and table.row_count == 6, what="page")
        table.focus()
        await h.press("G")
        assert table.cursor_row == 5 and h.main.selected_id == f"{hourly}@1"
        await h.press("g")
        assert table.cursor_row == 0 and h.main.selected_id == f"{hourly}@6"
        await h.press("end")
        assert table.cursor_row == 5
        await h.press("home")
        assert table.cursor_row == 0


async def test_tree_g_and_home_go_to_the_first_line_and_G_and_end_to_the_last(env: Env) -> None:
    """Left-alone item from QA: g / G (and home / end) were not bound in the tree."""
    async with console(env, engine="none") as h:
        await h.expand(env.bundle)
        tree = h.tree
        await h.until(lambda: tree.last_line >= 2, what="the bundle's coordinators")
        for key, line in (("G", tree.last_line), ("g", 0), ("end", tree.last_line), ("home", 0)):
            await h.press(key)
            assert tree.cursor_line == line, key
            node = tree.get_node_at_line(line)
            assert node is not None
            await h.until(lambda n=node: h.main.selected_id == n.data, what=f"{key} selects")


async def test_help_lists_the_keys_of_the_log_and_text_views_and_where_j_k_work(
    env: Env,
) -> None:
    async with console(env, engine="none") as h:
        await h.press("question_mark")
        screen = h.app.screen
        assert isinstance(screen, HelpScreen)
        lines = {f"{e.key} {e.description}" for e in screen.entries}
        assert "j k down / up (↓ ↑): tree, action table, help, log and text views" in lines
        assert "S ctrl+s save to <home>/saved/" in lines
        assert "g G top / bottom (also home / end)" in lines
        assert (
            "g G first / last line of the tree or row of the action table (also home / end)"
            in lines
        )
        for key in ("ctrl+r", "esc", "space", "→ ←", ":filter", ":faults", ":freeze", ":help"):
            assert any(e.key == key for e in screen.entries), key


# ---------------------------------------------------------------- 8. the bulk dialog's question


async def test_bulk_dialog_asks_its_question_before_the_note_on_what_it_leaves_out(
    env: Env,
) -> None:
    """QA: two running workflows and a KILLED one marked, ctrl+k asked "Kill 2 marked jobs;
    1 other marked job cannot be killed?": the question mark after the note."""
    async with console(env, engine="none") as h:
        hourly = h.coords()["hourly"].id
        kill_actions(Ctx(h.store, face="cli"), hourly, actions="3")
        await h.until(lambda: h.status(ActionRow, f"{hourly}@3") == "KILLED", what="@3 killed")
        await h.expand(hourly)
        await h.select(f"{hourly}@5")
        await h.press("m", "m", "m")  # @5, @4, @3 (m marks and moves down)
        await h.until(lambda: len(h.main.model.marks) == 3, what="three marked")
        await h.press("ctrl+k")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert dialog.title_text == "Kill 2 marked jobs? (1 other marked job cannot be killed)"
        await h.press("escape")


# ---------------------------------------------------------------- 9. a finished job's log tail


async def test_log_tail_of_a_finished_fs_workflow_does_not_say_no_output_yet(env: Env) -> None:
    """QA: a SUCCEEDED workflow of in-process fs actions said "(no output yet)": nothing will
    come. ``daily``'s actions ran the fs workflow and succeeded."""
    async with console(env, engine="none") as h:
        daily = h.coords()["daily"].id
        await h.expand(daily)
        await h.select(f"{daily}@1")
        log = h.main.query_one("#logtail", Log)
        await h.until(lambda: log.line_count > 0 and log.lines[0].strip(), what="the log tail")
        assert log.lines[0].startswith("(no output: SUCCEEDED without writing any"), log.lines


async def test_engine_start_on_a_simulated_store_says_it_is_refused(env: Env) -> None:
    """QA (aa): ``:engine start`` on a store left on a simulated clock toasted "engine started
    in this console" while the header said ``FAILED EB203``; it is refused, saying why."""
    _simulated(env, datetime(2024, 1, 1, 3, tzinfo=UTC))
    async with console(env, engine="none", ready=False) as h:
        await h.press("colon")
        await h.type("engine start")
        await h.press("enter")
        await h.until(
            lambda: h.warned("engine start: EB203: this store runs on a simulated"),
            what="the refusal",
        )
        assert not h.warned("engine started")
        assert h.warned("quit, then start bundletui console again: pass --clock simulated")
        assert h.app.embedded is None

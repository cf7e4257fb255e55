"""Console QA (ag), a big store as an operator drives it: action numbers past 9,999, the cursor
on an action the newest-N window drops as the engine goes on, where a page of the action table
is, a finished job's log view, and a terminal that shrinks."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import ContentSwitcher, Log

from bundletui.tui.views import LogScreen
from bundletui.tui.widgets import ActionTable, fit_columns
from tests.tui.conftest import Env, console

pytestmark = pytest.mark.usefixtures("fast_keys")


def test_the_number_column_is_as_wide_as_the_numbers() -> None:
    assert fit_columns(76)["n"] == 4
    assert fit_columns(76, 5)["n"] == 5
    assert sum(w + 2 for w in fit_columns(76, 6).values()) <= 76


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield ActionTable()


def action(n: int) -> dict[str, object]:
    return {
        "id": f"0000001-260101000000000-bundletui-x-C@{n}",
        "actionNumber": n,
        "status": "SUCCEEDED",
        "nominalTime": "Thu, 01 Jan 2026 00:00:00 GMT",
    }


async def test_action_numbers_past_9999_show_whole() -> None:
    """Numbers of 10,000 and more were cut to 4 digits: rows @35065, @35064 … all read 3506."""
    async with One().run_test(size=(80, 24)) as pilot:
        table = pilot.app.query_one(ActionTable)
        data = {"actions": [action(35065), action(35064)], "offset": 1, "total": 35065}
        table.show_page("0000001-260101000000000-bundletui-x-C", data, str)
        await pilot.pause()
        assert table.widths["n"] == 5
        assert [str(table.get_row_at(i)[0]) for i in range(2)] == ["35065", "35064"]
        assert "1-2 of 35065" in str(table.border_subtitle)
        few = {"actions": [action(7)], "offset": 1, "total": 7}  # another coordinator: narrow
        table.show_page("0000002-260101000000000-bundletui-x-C", few, str)
        await pilot.pause()
        assert table.widths["n"] == 4


async def test_an_action_that_leaves_the_shown_window_takes_the_cursor_to_its_coordinator(
    env: Env,
) -> None:
    """The tree shows a coordinator's newest N actions; as the engine went on, the selected
    action left that window and the cursor hopped to whatever row took its place, poll after
    poll, with a toast each time. It goes to the coordinator, which stays; and the action
    table's page says where it is (``1-3 of 8``: it was never drawn, the table has no border)."""
    async with console(env, action_limit=3, page_size=3) as h:
        hourly = h.coords()["hourly"].id
        await h.expand(hourly)
        oldest = f"{hourly}@4"  # @6, @5, @4 shown
        await h.until(lambda: oldest in h.tree.nodes, what="the newest three actions")
        await h.select(oldest)
        env.land(0)
        env.land(1)  # @1 and @2 run; the throttle lets @7 and @8 come
        await h.until(lambda: oldest not in h.tree.nodes, what="@4 out of the window")
        await h.until(lambda: h.main.selected_id == hourly, what="the cursor on the coordinator")
        assert h.warned(f"{oldest} is no longer shown"), h.toasts
        assert any(m.endswith("still shown, coordinator hourly") for _s, m in h.toasts), h.toasts
        switcher = h.main.query_one(ContentSwitcher)
        await h.until(lambda: "1-3 of 8" in str(switcher.border_subtitle), what="the page")


async def test_the_log_view_of_an_ended_action_does_not_say_yet(env: Env) -> None:
    async with console(env, engine="none") as h:
        daily = h.coords()["daily"].id
        await h.expand(daily)
        await h.select(f"{daily}@1")
        await h.press("l")
        await h.until(lambda: isinstance(h.app.screen, LogScreen), what="the log view")
        log = h.app.screen.query_one(Log)
        await h.until(lambda: log.line_count > 0, what="its first line")
        assert log.lines[0].startswith("(no output: it ended without writing any"), log.lines


def test_a_wide_table_shows_the_year_of_each_nominal_time() -> None:
    """QA (aj): a yearly coordinator's rows read ``02-29 12:00``, ``02-28 12:00``, ``02-28
    12:00``…: the year, which tells them apart, never showed, even 200 columns wide."""
    assert fit_columns(76)["nominal"] == 11  # 160 columns: the why first
    assert fit_columns(96)["nominal"] == 16


async def test_the_year_shows_in_a_wide_table() -> None:
    async with One().run_test(size=(120, 24)) as pilot:
        table = pilot.app.query_one(ActionTable)
        table.show_page("0000001-260101000000000-bundletui-x-C", {"actions": [action(1)]}, str)
        await pilot.pause()
        assert str(table.get_row_at(0)[1]) == "2026-01-01 00:00"


async def test_the_action_table_cursor_stays_on_its_action_as_newer_ones_come(env: Env) -> None:
    """QA (ag): with the table's cursor on an action of page 1 (newest first), new actions
    pushed that action to page 2 and the cursor stayed on its row, so on another action,
    poll after poll (the details following it). It goes with its action to its new page."""
    async with console(env, page_size=3) as h:
        hourly = h.coords()["hourly"].id
        await h.select(hourly)
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.action_ids[:1] == [f"{hourly}@6"], what="page 1")
        table.focus()
        await h.pilot.pause(0.05)
        await h.press("down", "down")
        assert table.highlighted_id() == f"{hourly}@4"
        env.land(0)
        env.land(1)  # @1 and @2 run; the throttle lets @7 and @8 come
        await h.until(lambda: h.coords()["hourly"].last_action_number >= 8, what="@7 and @8")
        await h.until(lambda: table.page_offset == 4, what="the page that holds @4")
        assert table.highlighted_id() == f"{hourly}@4", table.action_ids
        # the selection follows the table's highlight by a message: waited for, not raced
        # (CI under load read it before the message came)
        await h.until(lambda: h.main.selected_id == f"{hourly}@4", what="the selection on @4")
        switcher = h.main.query_one(ContentSwitcher)
        assert "4-6 of 8" in str(switcher.border_subtitle)
        await h.press("left_square_bracket")  # paging still pages: no pull back to @4
        await h.until(lambda: table.page_offset == 1, what="page 1 again")
        await h.pilot.pause(0.5)
        assert table.page_offset == 1 and table.action_ids[0] == f"{hourly}@8"

"""The keys a k9s operator expects: kill is ``ctrl+k`` / ``f9`` (``k`` is up), ``j`` / ``k``
move the cursor in the tree and the action table but type letters in the ``/`` and ``:``
prompts, and ``N`` / ``S`` sort the action table (all of a coordinator's actions, read in that
order) with the cursor kept on its action.

Real stores and the real app driven by Pilot (no engine: nothing moves unless a test moves
it)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from bundletui.commands.base import Ctx
from bundletui.commands.dispatch import kill_actions
from bundletui.store.rows import ActionRow
from bundletui.tui.dialogs import ConfirmDialog, HelpScreen
from bundletui.tui.widgets import ActionTable
from tests.tui.conftest import Env, Harness, console

pytestmark = pytest.mark.usefixtures("fast_keys")


async def loaded(h: Harness) -> str:
    """The hourly coordinator, expanded, with its page of actions in the table."""
    hourly = h.coords()["hourly"].id
    await h.until(lambda: hourly in h.tree.nodes, what="hourly in the tree")
    await h.expand(hourly)
    table = h.main.query_one(ActionTable)
    await h.until(lambda: table.coord_id == hourly and table.row_count == 6, what="the table")
    return hourly


def dialog_targets(h: Harness) -> list[str]:
    dialog = h.app.screen
    assert isinstance(dialog, ConfirmDialog), dialog
    assert dialog.focused is not None and dialog.focused.id == "cancel"  # as with k before
    return [t.id for t in dialog.targets]


def labels(table: ActionTable) -> list[str]:
    return [str(c.label) for c in table.ordered_columns]


async def test_ctrl_k_and_f9_open_the_kill_dialog_and_k_does_not(env: Env) -> None:
    async with console(env, engine="none", ready=False) as h:
        hourly = await loaded(h)
        action = f"{hourly}@3"
        await h.select(action)
        await h.press("ctrl+k")
        assert dialog_targets(h) == [action]
        await h.press("escape")
        await h.press("f9")
        assert dialog_targets(h) == [action]
        await h.press("escape")
        assert not isinstance(h.app.screen, ConfirmDialog)

        await h.press("k")  # k9s: up, not kill (the tree lists actions oldest first)
        assert not isinstance(h.app.screen, ConfirmDialog)
        assert h.main.selected_id == f"{hourly}@2"

        # the action table and the details pane let ctrl+k through to the screen
        table = h.main.query_one(ActionTable)
        table.focus()
        await h.until(lambda: h.main.selected_id == f"{hourly}@6", what="table row")
        await h.press("down")
        await h.press("ctrl+k")
        assert dialog_targets(h) == [f"{hourly}@5"]
        await h.press("escape")
        h.main.query_one("#details").focus()
        await h.pilot.pause(0.05)
        await h.press("f9")
        assert dialog_targets(h) == [h.main.selected_id]
        await h.press("escape")

        # a text prompt keeps ctrl+k (delete to the end): typing never kills
        h.tree.focus()
        prompt = h.main.query_one("#prompt", Input)
        await h.press("slash")  # under load the prompt takes focus a frame or two later
        await h.until(lambda: h.app.focused is prompt, what="the prompt's focus")
        await h.press("w", "a", "i", "t", "home")
        assert prompt.value == "wait"
        await h.press("ctrl+k")
        assert prompt.value == "" and not isinstance(h.app.screen, ConfirmDialog)
        await h.press("escape")
        assert all(r.face != "console" for r in h.audit())  # nothing was confirmed


async def test_read_only_refuses_ctrl_k_and_f9(env: Env) -> None:
    async with console(env, engine="none", read_only=True, ready=False) as h:
        await h.until(lambda: env.bundle in h.tree.nodes, what="tree")
        await h.select(env.bundle)
        assert h.main.check_action("kill", ()) is False
        assert "Kill" not in str(h.main.query_one("#keys").render())
        for key in ("ctrl+k", "f9"):
            h.toasts.clear()
            await h.press(key)
            assert not isinstance(h.app.screen, ConfirmDialog), key
            assert h.warned("read-only"), (key, h.toasts)
        await h.press("question_mark")
        help_screen = h.app.screen
        assert isinstance(help_screen, HelpScreen)
        assert all(e.action != "kill" for e in help_screen.entries)  # hidden, as k was
        await h.press("escape")


async def test_the_key_bar_and_help_name_ctrl_k(env: Env) -> None:
    async with console(env, engine="none", ready=False) as h:
        hourly = await loaded(h)
        await h.select(f"{hourly}@3")
        keys = str(h.main.query_one("#keys").render())
        assert "^k Kill" in keys and "k Kill" not in keys.replace("^k Kill", ""), keys
        await h.press("question_mark")
        help_screen = h.app.screen
        assert isinstance(help_screen, HelpScreen)
        kill = next(e for e in help_screen.entries if e.action == "kill")
        assert kill.key == "ctrl+k f9"
        assert any(e.key == "j k" for e in help_screen.entries)
        await h.press("escape")


async def test_j_and_k_move_the_tree_cursor(env: Env) -> None:
    async with console(env, engine="none", ready=False) as h:
        hourly = await loaded(h)
        await h.select(hourly)
        line = h.tree.cursor_line
        await h.press("j")  # the tree lists a coordinator's actions oldest first
        assert h.tree.cursor_line == line + 1
        assert h.main.selected_id == f"{hourly}@1"
        await h.press("j", "j")
        assert h.main.selected_id == f"{hourly}@3"
        await h.press("k")
        assert h.main.selected_id == f"{hourly}@2"
        await h.press("k", "k")
        assert h.tree.cursor_line == line and h.main.selected_id == hourly
        assert not isinstance(h.app.screen, ConfirmDialog)


async def test_j_and_k_move_the_action_table_cursor(env: Env) -> None:
    async with console(env, engine="none", ready=False) as h:
        hourly = await loaded(h)
        table = h.main.query_one(ActionTable)
        table.focus()
        await h.until(lambda: h.main.selected_id == f"{hourly}@6", what="first row")
        await h.press("j")
        assert table.cursor_row == 1 and h.main.selected_id == f"{hourly}@5"
        await h.press("j", "j")
        assert table.highlighted_id() == f"{hourly}@3" == h.main.selected_id
        await h.press("k")
        assert table.cursor_row == 2 and h.main.selected_id == f"{hourly}@4"
        await h.press("k", "k", "k")  # past the top: stays on the first row
        assert table.cursor_row == 0 and h.main.selected_id == f"{hourly}@6"
        assert not isinstance(h.app.screen, ConfirmDialog)


@pytest.mark.parametrize("opener", ["slash", "colon"])
async def test_j_and_k_type_into_the_prompts(env: Env, opener: str) -> None:
    async with console(env, engine="none", ready=False) as h:
        hourly = await loaded(h)
        await h.select(hourly)
        line = h.tree.cursor_line
        await h.press(opener, "j", "k", "k", "j", "N", "S")
        prompt = h.main.query_one("#prompt", Input)
        assert h.app.focused is prompt
        assert prompt.value == "jkkjNS"
        if opener == "slash":  # the letters went into the filter (it matches nothing)
            assert h.main.model.filter_text.lower() == "jkkjns"
        else:  # nor did they move the cursor
            assert h.tree.cursor_line == line and h.main.selected_id == hourly
        assert not isinstance(h.app.screen, ConfirmDialog)
        assert h.main.query_one(ActionTable).sort_key == ActionTable.DEFAULT_SORT
        await h.press("escape")


async def test_sort_keys_order_the_page_and_keep_the_cursor_on_its_action(env: Env) -> None:
    async with console(env, engine="none", ready=False) as h:
        hourly = await loaded(h)
        a = {n: f"{hourly}@{n}" for n in range(1, 7)}
        table = h.main.query_one(ActionTable)
        kill_actions(Ctx(h.store, face="cli"), hourly, actions="3")  # another shell
        await h.until(lambda: h.status(ActionRow, a[3]) == "KILLED", what="@3 killed")
        table.focus()
        await h.until(
            lambda: "KILLED" in str(table.get_row(a[3])), timeout=10, what="@3 KILLED shown"
        )
        await h.until(lambda: h.main.selected_id == a[6], what="first row")
        await h.press("j")
        assert h.main.selected_id == a[5]

        def order(*numbers: int) -> list[str]:
            return [a[n] for n in numbers]

        await h.press("S")  # by status: KILLED first; ties newest first (read so, in SQL)
        await h.until(lambda: table.action_ids == order(3, 6, 5, 4, 2, 1), what="by status")
        assert table.highlighted_id() == a[5] == h.main.selected_id
        assert table.cursor_row == 2
        assert "status ↑" in labels(table)

        # a poll's reload (another kill, elsewhere) keeps the order and the cursor's action
        kill_actions(Ctx(h.store, face="cli"), hourly, actions="1")
        await h.until(lambda: table.action_ids == order(3, 1, 6, 5, 4, 2), what="re-sorted")
        assert table.highlighted_id() == a[5] == h.main.selected_id

        await h.press("S")  # again: the other way
        await h.until(lambda: table.action_ids == order(6, 5, 4, 2, 3, 1), what="reversed")
        assert table.highlighted_id() == a[5] and table.cursor_row == 1
        assert "status ↓" in labels(table)

        await h.press("N")  # by number: the table's own order, newest first
        await h.until(lambda: table.action_ids == order(6, 5, 4, 3, 2, 1), what="by number")
        assert labels(table)[:3] == ["#", "nominal", "status"]  # no arrow on the default
        await h.press("N")  # oldest first
        await h.until(lambda: table.action_ids == order(1, 2, 3, 4, 5, 6), what="oldest first")
        assert table.highlighted_id() == a[5] == h.main.selected_id
        assert table.cursor_row == 4 and labels(table)[0] == "# ↑"
        await h.press("j")  # j follows the sorted rows
        assert h.main.selected_id == a[6]

        # from the tree too (the table below is the coordinator's); where there is none: why
        await h.select(hourly)
        await h.press("N")
        await h.until(lambda: table.action_ids == order(6, 5, 4, 3, 2, 1), what="newest first")
        await h.select(env.bundle)
        h.toasts.clear()
        await h.press("S")
        assert h.warned("sort: no action table here")


async def test_a_sort_orders_all_the_actions_not_only_the_page_shown(env: Env) -> None:
    """Pages of two: by status, the one KILLED action (@3, on the third page newest first)
    heads the first page, and the next page goes on in that order."""
    async with console(env, engine="none", ready=False) as h:
        hourly = await loaded(h)
        a = {n: f"{hourly}@{n}" for n in range(1, 7)}
        table = h.main.query_one(ActionTable)
        kill_actions(Ctx(h.store, face="cli"), hourly, actions="3")
        await h.until(lambda: h.status(ActionRow, a[3]) == "KILLED", what="@3 killed")
        table.page_size = 2
        table.focus()
        await h.press("N", "N")  # newest first again, read in pages of two
        await h.until(lambda: table.action_ids == [a[6], a[5]], what="newest two")
        await h.press("S")
        await h.until(lambda: table.action_ids == [a[3], a[6]], what="KILLED first")
        assert table.page_total == 6
        await h.press("right_square_bracket")
        await h.until(lambda: table.action_ids == [a[5], a[4]], what="the next two by status")


async def test_g_and_shift_g_bring_the_line_they_select_into_view(env: Env) -> None:
    """QA (p): ``G`` selected the last line of a tree taller than its pane and left the view
    where it was, the cursor off-screen."""
    async with console(env, engine="none", size=(80, 14), ready=False) as h:
        hourly = await loaded(h)
        await h.expand(h.coords()["daily"].id)
        tree = h.tree
        tree.focus()
        await h.pilot.pause(0.05)

        def in_view() -> bool:
            top = int(tree.scroll_offset.y)
            return top <= tree.cursor_line < top + tree.scrollable_content_region.height

        assert tree.last_line >= tree.scrollable_content_region.height  # taller than the pane
        await h.press("G")
        await h.until(in_view, what="the last line in view")
        assert tree.cursor_line == tree.last_line
        await h.press("g")
        await h.until(in_view, what="the first line in view")
        assert tree.cursor_line == 0 and hourly


async def test_ctrl_s_saves_a_screen_dump_under_the_home(env: Env) -> None:
    """QA (p): the views saved their text, the main screen nothing (tui.md: a screen dump)."""
    async with console(env, engine="none", ready=False) as h:
        await loaded(h)
        await h.press("ctrl+s")
        saved = env.home / "saved"
        await h.until(lambda: any(saved.glob("console-*.svg")), what="the dump")
        (dump,) = saved.glob("console-*.svg")
        assert "hourly" in dump.read_text()  # the tree as drawn


async def test_keys_typed_straight_after_slash_or_colon_go_into_the_prompt(env: Env) -> None:
    """QA (aa): keys that arrive with the ``/`` (type-ahead, a paste, a laggy SSH link) ran
    as tree keys before the prompt had focus: ``/failed`` froze the view (f), refused logs
    (l) and opened the describe view (d)."""
    from textual import events

    async with console(env, engine="none", ready=False) as h:
        await loaded(h)
        driver = h.app._driver
        assert driver is not None
        for line in ("/fld", ":fld", ":submit /x/:y"):
            for ch in line:  # all sent before any of them is handled, as Pilot sends one
                key = events.Key({"/": "slash", ":": "colon"}.get(ch, ch), ch)
                key.set_sender(h.app)
                driver.send_message(key)
            await h.until(
                lambda t=line[1:]: h.main.query_one("#prompt", Input).value == t,
                what=f"{line} in the prompt",
            )
            assert not h.main.frozen and h.app.screen is h.main, h.app.screen
            assert not h.toasts, h.toasts
            await h.press("escape")


async def test_a_focus_given_just_before_slash_leaves_the_prompt_open(env: Env) -> None:
    """CI flake, a real race: a focus given just before ``/`` (a click on the tree, then ``/``
    at once) sent its DescendantFocus after the prompt took focus; the prompt closed on it,
    hidden while focused, and focus was None: the typed filter went nowhere."""
    async with console(env, engine="none", ready=False) as h:
        await loaded(h)
        h.main.query_one("#details").focus()
        await h.until(lambda: h.app.focused is h.main.query_one("#details"), what="details")
        prompt = h.main.query_one("#prompt", Input)
        h.main.set_focus(h.tree)  # its DescendantFocus is queued, not yet handled
        h.main.action_filter()
        await h.pilot.pause(0.05)
        assert h.main.prompt_mode == "filter" and h.app.focused is prompt, h.app.focused
        await h.press("w", "a", "i", "t")
        assert prompt.value == "wait"
        await h.press("tab")  # leaving it still hides it
        assert h.main.prompt_mode == "" and h.app.focused is not prompt


async def test_ctrl_c_quits_as_in_k9s(env: Env) -> None:
    """QA (aa): it showed "Press [b]q[/b] to quit", markup and all, and stayed. In the ``:``
    or ``/`` prompt it drops the half-typed line instead (QA (ad): it quit the console)."""
    async with console(env, engine="none", ready=False) as h:
        await loaded(h)
        for opener in ("colon", "slash"):
            await h.press(opener)
            await h.type("abc")
            await h.press("ctrl+c")
            assert h.app.is_running and h.app.screen is h.main
            assert not h.main.prompt_mode and h.main.model.filter_text == ""
        await h.press("ctrl+c")
        await h.until(lambda: not h.app.is_running, what="the console to quit")
        assert not h.toasts, h.toasts

"""``j`` / ``k`` in the console's full-screen views (a text page, the log view, the help), as
in k9s and less: one line down / up. They did nothing there (the tree and the action table
had them). The real screens, on a bare Textual app driven by Pilot."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Log, OptionList

from bundletui.tui.backend import LogFile
from bundletui.tui.dialogs import HelpEntry, HelpScreen
from bundletui.tui.views import LogScreen, TextScreen

LINES = "\n".join(f"line {i}" for i in range(200))


async def test_j_and_k_scroll_a_text_page_line_by_line() -> None:
    app: App[None] = App()
    async with app.run_test(size=(80, 20)) as pilot:
        app.push_screen(TextScreen("long", LINES, plain=LINES))
        await pilot.pause()
        scroll = app.screen.query_one(VerticalScroll)
        await pilot.press("j", "j", "j")
        await pilot.pause()
        assert scroll.scroll_y == 3
        await pilot.press("k")
        await pilot.pause()
        assert scroll.scroll_y == 2


async def test_j_and_k_scroll_the_log_view(tmp_path: Path) -> None:
    out = tmp_path / "out.log"
    out.write_text(LINES + "\n")
    screen = LogScreen(
        "log",
        lambda: [LogFile("nap", "out", out)],
        live=lambda: False,
        save_to=lambda text: tmp_path / "saved.log",
    )
    app: App[None] = App()
    async with app.run_test(size=(80, 20)) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        log = screen.query_one(Log)
        for _ in range(50):
            await pilot.pause(0.05)
            if len(screen.lines) == 200 and log.max_scroll_y > 0:
                break
        await pilot.press("g")  # to the top (it follows the tail)
        await pilot.press("j", "j")
        await pilot.pause()
        assert log.scroll_y == 2
        await pilot.press("k")
        await pilot.pause()
        assert log.scroll_y == 1


async def test_j_and_k_move_through_the_help() -> None:
    entries = [HelpEntry(f"{i}", f"key {i}", f"action{i}") for i in range(10)]
    app: App[None] = App()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(HelpScreen(entries))
        await pilot.pause()
        keys = app.screen.query_one(OptionList)
        start = keys.highlighted or 0
        await pilot.press("j", "j")
        assert keys.highlighted == start + 2
        await pilot.press("k")
        assert keys.highlighted == start + 1

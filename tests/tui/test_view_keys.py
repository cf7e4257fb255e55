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


WRAPPING = "\n".join(
    ("a long line that the page wraps " * 6 + f"end {i}")
    if i % 10 != 5
    else f"line {i} holds the Needle"
    for i in range(60)
)


async def test_slash_searches_a_text_page_as_shown_and_marks_the_matches() -> None:
    """QA: ``/`` worked in the log view only; the describe, definition and audit pages had
    nothing. The page wraps its long lines, so a match's row is found among the lines as shown
    (its index in the text would land the view rows too early)."""
    from rich.text import Text
    from textual.widgets import Input, Static

    app: App[None] = App()
    async with app.run_test(size=(80, 20)) as pilot:
        screen = TextScreen("long", Text(WRAPPING), plain=WRAPPING)
        app.push_screen(screen)
        await pilot.pause()
        scroll = screen.query_one(VerticalScroll)
        await pilot.press("slash", "n", "e")  # letters typed into the box run no keys
        box = screen.query_one("#search", Input)
        assert box.value == "ne" and app.screen is screen
        box.value = ""
        await pilot.press(*"NEEDLE", "enter")
        await pilot.pause()
        shown = screen.search_lines()

        def top() -> str:
            return shown[int(scroll.scroll_y)]

        assert "line 5 holds the Needle" in top(), (scroll.scroll_y, top())
        assert scroll.scroll_y > 5  # wrapped rows come before it
        assert "/NEEDLE: line" in str(scroll.border_subtitle)
        page = screen.query_one("#page", Static)
        assert repr(page.render()).count("reverse=True") == 6  # every match is marked
        await pilot.press("n")
        await pilot.pause()
        assert "line 15 holds" in top()
        await pilot.press("N", "N")
        await pilot.pause()
        # before the first: round to the last, near the end, shown though not at the top
        assert screen.found is not None and "line 55 holds" in shown[screen.found]
        assert scroll.scroll_y <= screen.found < scroll.scroll_y + scroll.size.height
        await pilot.press("slash")
        box.value = "no such words"
        await pilot.press("enter")
        assert screen.found is None and "not found" in str(scroll.border_subtitle)
        await pilot.press("slash")
        box.value = ""
        await pilot.press("enter")  # cleared: no marks, no state in the frame
        assert screen.needle == "" and str(scroll.border_subtitle) in ("", "None")
        assert "reverse=True" not in repr(page.render())
        await pilot.press("escape")
        assert app.screen is not screen


async def test_slash_finds_text_in_a_syntax_page() -> None:
    from textual.widgets import Static

    from bundletui.tui.views import syntax

    rows = [f"  <b n='{i}'/>\n" for i in range(80)]
    xml = "<a>\n" + "".join(rows[:40]) + "  <target/>\n" + "".join(rows[40:]) + "</a>\n"
    app: App[None] = App()
    async with app.run_test(size=(80, 20)) as pilot:
        screen = TextScreen("xml", syntax(xml, "xml"), plain=xml)
        app.push_screen(screen)
        await pilot.pause()
        await pilot.press("slash", *"target", "enter")
        await pilot.pause()
        scroll = screen.query_one(VerticalScroll)
        assert screen.found == 41 and scroll.scroll_y == 41, (screen.found, scroll.scroll_y)
        body = screen.query_one("#page", Static).content
        rows = app.console.render_lines(body, app.console.options.update_width(70))
        marked = [
            (i, seg.text)
            for i, row in enumerate(rows)
            for seg in row
            if seg.style and seg.style.reverse
        ]
        assert marked == [(41, "target")], marked

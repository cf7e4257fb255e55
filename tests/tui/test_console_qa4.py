"""Console QA, fourth pass, through the real console (Pilot). A job's text is shown, never
obeyed by the operator's terminal (a job that printed ``ESC ]0;…`` set the window's title,
``ESC [2J`` cleared the screen and a cursor move wrote into the job tree, through the log view
and the details pane's log tail; a property value with an escape lost the whole configuration
block); a big log says what it left out; help works on a tiny terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Log, OptionList

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from bundletui.tui.backend import read_tail
from bundletui.tui.dialogs import HelpScreen
from bundletui.tui.views import LogScreen
from tests.tui.conftest import Env, console

LOUD = r"""<dag-app xmlns="uri:bundletui:dag:1.0" name="loud">
  <job name="say"><shell><exec>sh</exec><argument>-c</argument>
    <argument>printf '\033]0;PWNED\007\033[2J\033[5;5HMOVED\r\n'</argument></shell></job>
</dag-app>
"""


def _submit_dag(env: Env, name: str, xml: str, defines: list[str] | None = None) -> str:
    """A DAG workflow written under ``env.root/name``, submitted and started."""
    app = env.root / name
    app.mkdir(exist_ok=True)
    (app / "workflow.xml").write_text(xml)
    props = env.root / f"{name}.properties"
    props.write_text(f"oozie.wf.application.path={app}\n")
    with Store(env.home) as store:
        loaded = load_job(props, defines or [], store.clock, user="alice")
        return submit_loaded(Ctx(store), loaded, start=True)


async def test_a_jobs_escape_codes_are_shown_not_sent_to_the_terminal(env: Env) -> None:
    wf = _submit_dag(env, "loud", LOUD, ["evil=\x1b[2Jcleared"])
    async with console(env) as h:
        await h.until(lambda: wf in h.tree.nodes, what="workflow in tree")
        await h.until(lambda: h.workflow_status(wf) == "SUCCEEDED", what="it ran")
        await h.expand(wf)
        await h.select(f"{wf}@say")
        tail = h.main.query_one("#logtail", Log)
        await h.until(lambda: "MOVED" in "\n".join(tail.lines), what="log tail")
        said = "\n".join(tail.lines)
        assert "\x1b" not in said and "\x07" not in said and "\r" not in said, repr(said)
        assert "␛]0;PWNED␇␛[2J␛[5;5HMOVED" in said, repr(said)
        await h.press("l")
        screen = h.app.screen
        assert isinstance(screen, LogScreen)
        await h.until(lambda: any("MOVED" in line for line in screen.lines), what="log view")
        assert not any("\x1b" in line for line in screen.lines), screen.lines
        await h.press("escape")
        await h.select(wf)
        pane = h.main.query_one("#details-text")
        await h.until(lambda: "configuration" in str(pane.render()), what="its configuration")
        shown = str(pane.render())
        assert "evil = ␛[2Jcleared" in shown and "\x1b" not in shown, shown


def test_a_log_view_says_what_it_left_out_of_a_big_file(tmp_path: Path) -> None:
    """QA: a log past 256 KB opened part-way in, and nothing said so."""
    big = tmp_path / "out.log"
    big.write_text("".join(f"line {n}\n" for n in range(100_000)))
    text, offset = read_tail(big, 0)
    skipped = big.stat().st_size - 256 * 1024
    first, rest = text.split("\n", 1)
    assert first == f"(… {skipped:,} earlier bytes not shown; the whole file: {big})"
    assert rest.endswith("line 99999\n") and offset == big.stat().st_size
    with big.open("a") as f:
        f.write("more\n")
    assert read_tail(big, offset) == ("more\n", offset + 5)  # later reads: only what is new
    small = tmp_path / "small.log"
    small.write_text("a\nb\n")
    assert read_tail(small, 0) == ("a\nb\n", 4)


@pytest.mark.parametrize("size", [(40, 10), (30, 8)])
async def test_help_on_a_tiny_terminal_pages_without_a_crash(
    env: Env, size: tuple[int, int]
) -> None:
    """QA: on a 40x10 terminal the help's key list had no row at all, and PageUp there
    crashed the console (Textual's OptionList paged by a height of 0)."""
    async with console(env, size=size, engine="none", ready=False) as h:
        await h.press("question_mark")
        assert isinstance(h.app.screen, HelpScreen)
        keys = h.app.screen.query_one(OptionList)
        await h.press("pageup", "pagedown", "down", "pageup")
        assert isinstance(h.app.screen, HelpScreen) and h.app._exception is None
        assert keys.size.height >= 1  # at least one key row to scroll through


MANY = r"""<dag-app xmlns="uri:bundletui:dag:1.0" name="many">
  <job name="count"><shell><exec>sh</exec><argument>-c</argument>
    <argument>for i in $(seq 1 600); do echo "row $i"; if [ $((i % 50)) = 0 ]; then echo; fi; if [ $i = 250 ] || [ $i = 420 ]; then echo "the Needle at $i"; fi; done</argument></shell></job>
</dag-app>
"""


async def test_slash_searches_the_log_view_and_n_goes_to_the_next_match(env: Env) -> None:
    """QA: ``/`` did nothing in the log view; k9s users look for a line in a long log. The log
    holds blank lines (which Textual's Log drops): the view still lands on the match."""
    wf = _submit_dag(env, "many", MANY)
    async with console(env) as h:
        await h.until(lambda: h.workflow_status(wf) == "SUCCEEDED", what="it ran")
        await h.until(lambda: wf in h.tree.nodes, what="workflow in tree")
        await h.select(wf)
        await h.press("l")
        screen = h.app.screen
        assert isinstance(screen, LogScreen)
        await h.until(lambda: len(screen.lines) > 600, what="the whole log")
        first = next(i for i, line in enumerate(screen.lines) if "Needle at 250" in line)
        second = next(i for i, line in enumerate(screen.lines) if "Needle at 420" in line)
        await h.press("g", "slash")
        follow, stream = screen.follow, screen.stream
        await h.press("s", "e", "n")  # letters typed into the box do not run the view's keys
        box = screen.query_one("#search", Input)
        assert box.value == "sen" and (screen.follow, screen.stream) == (follow, stream)
        box.value = ""
        await h.type("needle")  # case does not matter
        await h.press("enter")
        log = screen.query_one(Log)

        def top() -> str:  # the line the view shows first
            return str(log.lines[int(log.scroll_offset.y)])

        assert screen.found == first and "Needle at 250" in top(), (screen.found, top())
        assert not screen.follow
        assert "/needle: line" in str(log.border_subtitle)
        await h.press("n")
        assert screen.found == second and "Needle at 420" in top(), top()
        await h.press("n")  # past the last: back to the first
        assert screen.found == first
        await h.press("N")
        assert screen.found == second
        await h.press("slash")
        box.value = ""
        await h.press("enter")  # nothing to look for: the search is cleared, the view kept
        assert screen.needle == "" and screen.found is None
        assert "Needle at 420" in top() and "/" not in str(log.border_subtitle)
        await h.press("slash")
        await h.type("nowhere-to-be-seen")
        await h.press("enter")
        assert screen.found is None and "not found" in str(log.border_subtitle)
        await h.press("escape")
        assert h.app.screen is h.main

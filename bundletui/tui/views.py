"""Full-screen views: a text page (details, describe, definition, audit, engine log) and the
log view (follow, wrap, stdout/stderr, save)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Log, RichLog, Static
from textual.worker import get_current_worker

from bundletui.tui.backend import LogFile, read_tail
from bundletui.tui.printable import printable, printable_text

SAFE_NAME = re.compile(r"[^A-Za-z0-9_.@-]+")


def save_path(home: Path, name: str, suffix: str, stamp: str) -> Path:
    folder = home / "saved"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{SAFE_NAME.sub('_', name)}-{stamp}{suffix}"


class SearchScreen(Screen[None]):
    """A full-screen view with ``/``: a box under the view; enter goes to the next line holding
    its text (case-insensitive) from the top of the view, ``n`` / ``N`` to the next / previous
    one, round the end; an empty search clears it. Subclasses say what their lines are and how
    to show one."""

    BINDINGS: ClassVar[list[BindingType]] = [  # `/` is the subclasses': the footer's order
        Binding("n", "match(1)", "Next", show=False),
        Binding("N", "match(-1)", "Previous", show=False),
    ]
    DEFAULT_CSS = """
    SearchScreen #search { dock: bottom; display: none; }
    SearchScreen.-searching #search { display: block; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.needle = ""  # what `/` looks for; `n` / `N` go to its next / previous line
        self.found: int | None = None  # the line the last search went to

    def search_box(self, what: str) -> Input:
        return Input(
            placeholder=f"search {what} (enter: find; n / N: next / previous)", id="search"
        )

    def search_lines(self) -> list[str]:
        raise NotImplementedError

    def show_line(self, index: int) -> None:
        """Bring line ``index`` of :meth:`search_lines` to the top of the view."""
        raise NotImplementedError

    def top_line(self) -> int:
        raise NotImplementedError

    def focus_view(self) -> None:
        raise NotImplementedError

    def indicate(self) -> None:
        """Show the search's state (``/text: line N`` or ``not found``) in the view's frame."""

    def search_state(self) -> str:
        if not self.needle:
            return ""
        at = "not found" if self.found is None else f"line {self.found + 1}"
        return f"/{self.needle}: {at}"

    def action_search(self) -> None:
        self.add_class("-searching")
        box = self.query_one("#search", Input)
        box.value = self.needle
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.remove_class("-searching")
        self.needle = event.value
        self.found = None
        if not self.needle:  # nothing to look for: the search is cleared, the view stays
            self.searched()
            self.focus_view()
            self.indicate()
            return
        self._go(1, start=self.top_line())

    def on_key(self, event: Any) -> None:
        if event.key == "escape" and self.has_class("-searching"):
            event.stop()
            self.remove_class("-searching")
            self.focus_view()

    def action_match(self, step: int) -> None:
        if self.needle:
            here = self.found if self.found is not None else self.top_line()
            self._go(step, start=here + step)

    def searched(self) -> None:
        """The needle changed (or was cleared): a view that marks matches marks them anew."""

    def _go(self, step: int, *, start: int) -> None:
        """The next line holding the needle from ``start`` on (``step`` -1: before it), with
        a wrap around the end, shown at the top of the view."""
        needle = self.needle.casefold()
        lines = self.search_lines()
        count = len(lines)
        self.found = None
        for k in range(count):
            i = (start + step * k) % count
            if needle in lines[i].casefold():
                self.found = i
                break
        self.searched()
        if self.found is not None:
            self.show_line(self.found)
        self.focus_view()
        self.indicate()


class TextScreen(SearchScreen):
    """A scrollable page with a title; ``ctrl+s`` saves it under ``<home>/saved/``; ``/``
    searches the page as shown (its wrapped lines) and marks every match."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back"),
        Binding("ctrl+s,S", "save", "Save"),
        Binding("slash", "search", "Search"),
        Binding("home,g", "top", "Top", show=False),
        Binding("end,G", "bottom", "Bottom", show=False),
        Binding("j", "line(1)", "Down", show=False),  # vim / k9s
        Binding("k", "line(-1)", "Up", show=False),
    ]
    DEFAULT_CSS = """
    TextScreen VerticalScroll { border: round $primary; padding: 0 1; }
    """

    def __init__(
        self,
        title: str,
        body: RenderableType,
        *,
        plain: str,
        save_to: Callable[[str], Path] | None = None,
        name: str = "page",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.body = printable_text(body) if isinstance(body, Text) else body
        self.plain = plain
        self.save_to = save_to
        self.page_name = name
        self._rendered: tuple[int, list[str]] | None = None  # (width, the page's lines)

    def compose(self) -> ComposeResult:
        scroll = VerticalScroll()
        scroll.border_title = self.title_text
        with scroll:
            yield Static(self.body, id="page")
        yield self.search_box("the page")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_top(self) -> None:
        self.query_one(VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(VerticalScroll).scroll_end(animate=False)

    def action_line(self, step: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=step, animate=False)

    def action_save(self) -> None:
        if self.save_to is None:
            self.notify("nowhere to save", severity="warning")
            return
        path = self.save_to(self.plain)
        self.notify(f"saved {path}")

    def _renderable(self) -> RenderableType:
        return Text(self.body) if isinstance(self.body, str) else self.body

    def search_lines(self) -> list[str]:
        """The page's lines as shown: wrapped at the page's width, so a line's index is its
        row in the scroll."""
        width = max(self.query_one("#page", Static).size.width, 1)
        if self._rendered is None or self._rendered[0] != width:
            console = self.app.console
            rows = console.render_lines(
                self._renderable(), console.options.update_width(width), pad=False
            )
            self._rendered = (width, ["".join(seg.text for seg in row) for row in rows])
        return self._rendered[1]

    def show_line(self, index: int) -> None:
        self.query_one(VerticalScroll).scroll_to(y=index, animate=False)

    def top_line(self) -> int:
        return int(self.query_one(VerticalScroll).scroll_offset.y)

    def focus_view(self) -> None:
        self.query_one(VerticalScroll).focus()

    def indicate(self) -> None:
        self.query_one(VerticalScroll).border_subtitle = self.search_state()

    def searched(self) -> None:
        self.query_one("#page", Static).update(marked(self._renderable(), self.needle))


def marked(body: RenderableType, needle: str) -> RenderableType:
    """``body`` with every case-insensitive match of ``needle`` shown reversed (a copy)."""
    if not needle:
        return body
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    if isinstance(body, Text):
        text = body.copy()
        text.highlight_regex(pattern, "reverse")
        return text
    if isinstance(body, Syntax):
        code = syntax(body.code, body.lexer or "text")
        for number, line in enumerate(body.code.splitlines(), start=1):
            for m in pattern.finditer(line):
                code.stylize_range("reverse", (number, m.start()), (number, m.end()))
        return code
    return body


def syntax(text: str, lexer: Any) -> Syntax:
    # a definition file or a job's values may hold control characters: shown, not obeyed
    return Syntax(
        printable(text), lexer, theme="ansi_dark", word_wrap=True, background_color="default"
    )


class LogScreen(SearchScreen):
    """``l``: the logs of a node (or every node of a workflow), tailed while it runs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back"),
        Binding("s", "follow", "Follow"),
        Binding("w", "wrap", "Wrap"),
        Binding("e", "stream", "Streams"),
        Binding("ctrl+s,S", "save", "Save"),
        Binding("slash", "search", "Search"),
        Binding("home,g", "top", "Top", show=False),
        Binding("end,G", "bottom", "Bottom", show=False),
        Binding("j", "line(1)", "Down", show=False),  # vim / k9s
        Binding("k", "line(-1)", "Up", show=False),
    ]
    DEFAULT_CSS = """
    LogScreen Log, LogScreen RichLog { border: round $primary; height: 1fr; }
    LogScreen RichLog { display: none; }
    LogScreen.-wrap Log { display: none; }
    LogScreen.-wrap RichLog { display: block; }
    """
    STREAMS: ClassVar[list[tuple[str, tuple[str, ...]]]] = [
        ("stdout+stderr", ("out", "err")),
        ("stdout", ("out",)),
        ("stderr", ("err",)),
    ]

    def __init__(
        self,
        title: str,
        sources: Callable[[], list[LogFile]],
        *,
        live: Callable[[], bool],
        save_to: Callable[[str], Path],
        interval: float = 0.5,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.sources = sources
        self.live = live
        self.save_to = save_to
        self.interval = interval
        self.follow = True
        self.wrap = False
        self.stream = 0
        self.lines: list[str] = []
        self._offsets: dict[Path, int] = {}
        self._last_source: tuple[str, int, str] | None = None  # (node, attempt, stream)

    def compose(self) -> ComposeResult:
        log = Log(highlight=False, auto_scroll=True, id="log")
        log.border_title = self.title_text
        yield log
        rich = RichLog(wrap=True, highlight=False, markup=False, id="wrapped", max_lines=2000)
        rich.border_title = self.title_text
        yield rich
        yield self.search_box("the log")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.indicate()
        self.query_one(Log).focus()
        self._tail()

    def indicate(self) -> None:
        text = (
            f"Follow:{'On' if self.follow else 'Off'}  Wrap:{'On' if self.wrap else 'Off'}"
            f"  {self.STREAMS[self.stream][0]}  {len(self.lines)} lines"
        )
        if self.needle:
            text += f"  {self.search_state()}"
        self.query_one(Log).border_subtitle = text
        self.query_one(RichLog).border_subtitle = text

    @work(thread=True, exclusive=True, group="log-tail", exit_on_error=False)
    def _tail(self) -> None:
        worker = get_current_worker()
        first = True
        while not worker.is_cancelled:
            chunks = self._read_new()
            if chunks or first:
                self.app.call_from_thread(self._append, chunks)
            first = False
            if not self.live():
                # one last read after the job ended, then stop tailing
                chunks = self._read_new()
                if chunks:
                    self.app.call_from_thread(self._append, chunks)
                return
            worker_sleep(worker, self.interval)

    def _read_new(self) -> list[str]:
        wanted = self.STREAMS[self.stream][1]
        out: list[str] = []
        for f in self.sources():
            if f.stream not in wanted:
                continue
            text, self._offsets[f.path] = read_tail(f.path, self._offsets.get(f.path, 0))
            if not text:
                continue
            if self._last_source != (f.node, f.attempt, f.stream):
                out.append(f"── {f.label(named=f.headed)} ──")  # named: several sections
                self._last_source = (f.node, f.attempt, f.stream)
            out += text.splitlines()
        return out

    def _append(self, lines: list[str]) -> None:
        if not lines and not self.lines:  # "yet" only while more can come
            lines = [
                "(no output yet)"
                if self.live()
                else "(no output: it ended without writing any; in-process actions such as fs"
                " write none)"
            ]
        self.lines += lines
        log = self.query_one(Log)
        # Log drops an empty line: kept as a blank, so its rows stay the lines' indexes
        log.write_lines([line or " " for line in lines], scroll_end=self.follow)
        if self.wrap:
            rich = self.query_one(RichLog)
            for line in lines:
                rich.write(Text(line), scroll_end=self.follow)
        self.indicate()

    def action_follow(self) -> None:
        self.follow = not self.follow
        self.query_one(Log).auto_scroll = self.follow
        self.query_one(RichLog).auto_scroll = self.follow
        if self.follow:
            self.action_bottom()
        self.indicate()

    def action_wrap(self) -> None:
        self.wrap = not self.wrap
        self.set_class(self.wrap, "-wrap")
        rich = self.query_one(RichLog)
        if self.wrap:
            rich.clear()
            for line in self.lines[-2000:]:
                rich.write(Text(line), scroll_end=self.follow)
            rich.focus()
        else:
            self.query_one(Log).focus()
        self.indicate()

    def action_stream(self) -> None:
        self.stream = (self.stream + 1) % len(self.STREAMS)
        self.lines = []
        self._offsets = {}
        self._last_source = None
        self.query_one(Log).clear()
        self.query_one(RichLog).clear()
        self._tail()
        self.indicate()

    def action_save(self) -> None:
        path = self.save_to("\n".join(self.lines) + "\n")
        self.notify(f"saved {path}")

    def action_top(self) -> None:
        self.query_one(RichLog if self.wrap else Log).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(RichLog if self.wrap else Log).scroll_end(animate=False)

    def action_line(self, step: int) -> None:
        self.query_one(RichLog if self.wrap else Log).scroll_relative(y=step, animate=False)

    def search_lines(self) -> list[str]:
        return self.lines

    def show_line(self, index: int) -> None:
        """A line's place is known in the unwrapped view only; following stops."""
        if self.wrap:
            self.action_wrap()
        if self.follow:
            self.action_follow()
        self.query_one(Log).scroll_to(y=index, animate=False)

    def top_line(self) -> int:
        return int(self.query_one(Log).scroll_offset.y)

    def focus_view(self) -> None:
        self.query_one(RichLog if self.wrap else Log).focus()

    def action_close(self) -> None:
        self.workers.cancel_group(self, "log-tail")
        self.dismiss(None)


def worker_sleep(worker: Any, seconds: float) -> None:
    """Sleep in small steps so a cancelled tail stops quickly."""
    import time

    end = time.monotonic() + seconds
    while not worker.is_cancelled and time.monotonic() < end:
        time.sleep(0.05)

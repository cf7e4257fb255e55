"""The operator console: a live tree of bundles › coordinators › actions › workflow nodes over
one store, with k9s-style keys that run the same commands as the CLI (audited as ``console``).

Data flow: thread workers read the store (:mod:`bundletui.tui.backend`); the UI thread applies
their results to :class:`~bundletui.tui.model.ConsoleModel`, whose diff operations update the
tree in place. Polls are rescheduled only after the previous one was applied (never overlap),
skip when ``PRAGMA data_version`` did not move, and are not applied while a dialog is open or
the view is frozen.

This module holds the app, its configuration and the main screen's layout and keys; the
screen's concerns are mixins of their own modules (:mod:`bundletui.tui.screen_state` says
which).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.notifications import SeverityLevel
from textual.widgets import ContentSwitcher, Input, Label, Log

from bundletui.engine.service import EngineConfig, check_clock
from bundletui.errors import BundletuiError
from bundletui.model.clock import Clock, RealClock
from bundletui.store.db import Store
from bundletui.tui.backend import Backend
from bundletui.tui.demo import Demo
from bundletui.tui.engine_host import EmbeddedEngine, live_lease
from bundletui.tui.header import HeaderMixin
from bundletui.tui.job_actions import JobActionsMixin
from bundletui.tui.job_views import JobViewsMixin
from bundletui.tui.keys import KeyBar, KeysMixin
from bundletui.tui.polling import PollingMixin
from bundletui.tui.prompt import PromptMixin
from bundletui.tui.selection import SelectionMixin
from bundletui.tui.view_state import ViewStateMixin
from bundletui.tui.widgets import ActionTable, HeaderBar, JobTree, Pane, PromptInput


@dataclass
class ConsoleConfig:
    """How a console runs. Tests and snapshots pass a fixed clock, a slow or no poll, aliases
    for temporary paths and ``engine='none'``."""

    home: Path
    landing: Path | None = None
    read_only: bool = False
    engine: str = "auto"  # auto | embedded | none
    engine_config: EngineConfig | None = None
    poll_interval: float = 1.0
    auto_poll: bool = True
    clock: Clock = field(default_factory=RealClock)
    frozen_clock: bool = False  # snapshots: header time is clock.now(), ages read 0
    path_aliases: dict[str, str] = field(default_factory=dict)
    action_limit: int = 200
    page_size: int = 50
    demo: Demo | None = None
    handle_signals: bool = False  # SIGTERM/SIGHUP (an SSH hang-up) quit cleanly


class MainScreen(
    PollingMixin,
    SelectionMixin,
    HeaderMixin,
    KeysMixin,
    JobActionsMixin,
    JobViewsMixin,
    ViewStateMixin,
    PromptMixin,
):
    """The console's one screen: header, job tree, details and bottom panes, prompt, keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "suspend", "Suspend", id="suspend"),
        Binding("r", "resume", "Resume", id="resume"),
        Binding("p", "pause", "Pause time", id="pause"),
        # not k (k9s/vim: up) and never a priority binding: a focused prompt keeps ctrl+k
        # (delete to the end), every other widget of the screen lets it through
        Binding("ctrl+k,f9", "kill", "Kill", id="kill"),
        Binding("R", "rerun", "Rerun", id="rerun"),
        Binding("l", "logs", "Logs", id="logs"),
        Binding("d", "describe", "Describe", id="describe"),
        Binding("y", "definition", "Definition XML", id="definition"),
        # priority: taken as the key arrives, before the keys queued behind it reach the
        # tree (type-ahead, a paste: `/failed` froze the view and opened logs); a focused
        # prompt types them (check_action)
        Binding("slash", "filter", "Filter", id="filter", priority=True),
        Binding("x", "faults", "Faults only", id="faults"),
        Binding("f", "freeze", "Freeze updates", id="freeze"),
        Binding("m", "mark", "Mark", id="mark"),
        Binding("M", "clear_marks", "Clear marks", id="clear_marks"),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("colon", "command", "Command", id="command", priority=True),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("escape", "escape", "Back / clear", id="escape"),
        Binding("ctrl+r", "poll_now", "Poll now", id="poll_now"),
        Binding("left_square_bracket", "page(-1)", "Newer actions", id="page_prev"),
        Binding("right_square_bracket", "page(1)", "Older actions", id="page_next"),
        # k9s's shift-<letter>: sort all the coordinator's actions (again: the other way)
        Binding("N", "sort('n')", "Sort by number", id="sort_number"),
        Binding("S", "sort('status')", "Sort by status", id="sort_status"),
        Binding("ctrl+s", "screen_dump", "Save a screen dump", id="screen_dump"),
    ]
    DEFAULT_CSS = """
    MainScreen #body { height: 1fr; }
    MainScreen #right { width: 1fr; }
    MainScreen #details { height: 1fr; border: round $primary 40%; padding: 0 1; }
    MainScreen #details:focus-within { border: round $primary; }
    MainScreen #bottom { height: 1fr; border: round $primary 40%; }
    MainScreen #bottom:focus-within { border: round $primary; }
    MainScreen #prompt-row { height: 1; display: none; background: $panel; }
    MainScreen #prompt-row.-open { display: block; }
    MainScreen #prompt-sign { width: 2; padding: 0 0 0 1; text-style: bold; color: $accent; }
    MainScreen #prompt { height: 1; border: none; padding: 0 1 0 0; width: 1fr; }
    MainScreen #logtail { height: 1fr; }
    MainScreen #audit { height: 1fr; padding: 0 1; }
    """

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header")
        with Horizontal(id="body"):
            yield JobTree(self.model, id="tree")
            with Vertical(id="right"):
                details = VerticalScroll(id="details")
                details.border_title = "details"
                with details:
                    yield Pane("loading…", id="details-text")
                bottom = ContentSwitcher(initial="table", id="bottom")
                bottom.border_title = "actions"
                with bottom:
                    yield ActionTable(id="table")
                    yield Log(id="logtail", max_lines=400, auto_scroll=True)
                    yield Pane("", id="audit")
        with Horizontal(id="prompt-row"):
            yield Label("/", id="prompt-sign")
            yield PromptInput(id="prompt")
        yield KeyBar(id="keys")

    def on_unmount(self) -> None:
        self.closing = True
        for timer in (self._details_timer, self._poll_timer):
            if timer is not None:
                timer.stop()

    def on_mount(self) -> None:
        self.query_one(ActionTable).page_size = self.config.page_size
        self.query_one(JobTree).focus()
        self._refresh_header()
        self._refresh_keys()
        self.set_interval(1.0, self._refresh_header, name="header-clock")
        self._in_thread(self.backend.initial, self._apply_initial, group="initial")


class ConsoleApp(App[None]):
    """``bundletui console``."""

    TITLE = "bundletui console"
    ENABLE_COMMAND_PALETTE = False

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Toasts carry job names, ids and errors: never read as markup (a name such as
        ``x-[prod]`` lost its brackets, tui.md §2.2), whoever asks for one."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        """ctrl+c quits, as in k9s (Textual only says which key quits, and its hint was shown
        as raw markup here). A text box copies a selection with it; with nothing selected
        (Textual passes the key on) the ``/`` or ``:`` prompt is abandoned, as a shell drops
        a half-typed line, and a dialog's box keeps its dialog: neither quits the console."""
        focused = self.focused
        if isinstance(focused, Input):
            if isinstance(focused, PromptInput) and isinstance(self.screen, MainScreen):
                self.screen.action_escape()
            return
        self.exit()

    def __init__(self, config: ConsoleConfig) -> None:
        super().__init__()
        self.config = config
        self.embedded: EmbeddedEngine | None = None
        self.started = config.clock.monotonic()
        self.backend = Backend(config.home, action_limit=config.action_limit)
        self.engine_mode = "none"

    def on_mount(self) -> None:
        # the engine and the pollers are threads of this process: hand the GIL back to the
        # UI loop every 2 ms instead of 5 ms (tui.md §3.1: halves the worst lag)
        sys.setswitchinterval(0.002)
        cfg = self.config
        mode = cfg.engine
        if mode == "auto":
            if cfg.read_only:
                mode = "none"
            else:
                mode = "none" if live_lease(cfg.home) is not None else "embedded"
        self.engine_mode = mode
        if mode == "embedded":
            self.start_engine()
        if cfg.handle_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self._quit_on_signal)
        self.push_screen(MainScreen(cfg, self.backend, self))

    def _quit_on_signal(self) -> None:
        """SIGTERM, or SIGHUP (an SSH drop): quit. Once in a while Textual's shutdown hung on
        a terminal that was gone, stuck in its output thread and deaf to signals (QA (ag));
        a watchdog ends the process if the quitting has not within 20 s (longer than the 10 s
        its own engine is given to stop). The store needs no goodbye: every change is its own
        transaction, and an engine's lease lapses."""
        timer = threading.Timer(20.0, os._exit, (1,))
        timer.daemon = True
        timer.start()
        self.exit()

    def _engine_config(self) -> EngineConfig:
        cfg = self.config
        # clock "": a store last run on a simulated clock is refused (EB203), not moved
        return cfg.engine_config or EngineConfig(home=cfg.home, landing=cfg.landing, clock="")

    def engine_refusal(self) -> str | None:
        """Why an engine started now would stop at once (its clock options: EB201, EB203),
        as ``bundletui console`` checks them before it opens."""
        engine_config = self._engine_config()
        try:
            with Store(self.config.home, create=False) as store:
                check_clock(store, engine_config.clock, engine_config.start_time)
        except BundletuiError as exc:
            # its options are the console command's, not :engine start's (QA (ad))
            return (
                f"engine start: {exc.code}: {exc.message}; quit, then start bundletui console"
                f" again: {exc.hint}"
            )
        return None

    def start_engine(self) -> None:
        """Run an engine in this console: active at once when nobody holds the lease, else a
        standby that takes over when the holder stops or dies (its lease expires)."""
        self.embedded = EmbeddedEngine(self._engine_config())
        self.embedded.start_thread()
        self.engine_mode = "embedded"

    @property
    def main(self) -> MainScreen:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("no main screen")

    def on_unmount(self) -> None:
        self.shutdown()

    def shutdown(self) -> None:
        """Stop the embedded engine (running jobs keep running) and the demo feeder."""
        if self.embedded is not None:
            self.embedded.stop(10.0)
        if self.config.demo is not None:
            self.config.demo.stop_feeder()
        self.backend.close()

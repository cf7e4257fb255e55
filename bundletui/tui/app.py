"""The operator console: a live tree of bundles › coordinators › actions › workflow nodes over
one store, with k9s-style keys that run the same commands as the CLI (audited as ``console``).

Data flow: thread workers read the store (:mod:`bundletui.tui.backend`); the UI thread applies
their results to :class:`~bundletui.tui.model.ConsoleModel`, whose diff operations update the
tree in place. Polls are rescheduled only after the previous one was applied (never overlap),
skip when ``PRAGMA data_version`` did not move, and are not applied while a dialog is open or
the view is frozen.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.events import DescendantFocus, Key
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.timer import Timer
from textual.widgets import ContentSwitcher, DataTable, Input, Label, Log, Static, Tree
from textual.worker import Worker, WorkerState, get_current_worker

from bundletui._host import host_label
from bundletui.commands import dispatch
from bundletui.commands.base import Ctx
from bundletui.commands.queries import one_line
from bundletui.engine.service import EngineConfig, check_clock
from bundletui.errors import BundletuiError
from bundletui.model.clock import Clock, RealClock, from_ms, to_ms
from bundletui.model.status import COORD_SUSPENDED, has_ended
from bundletui.model.timeutil import format_oozie_time
from bundletui.store.changes import ACTION, BUNDLE, COORD, NODE, WORKFLOW, Totals, TreeRow
from bundletui.store.db import DB_NAME, Store
from bundletui.store.lease import Lease, holder_process
from bundletui.tui import details as pages
from bundletui.tui import labels
from bundletui.tui.backend import Backend, Initial, LogFile, Poll, read_tail
from bundletui.tui.demo import Demo
from bundletui.tui.dialogs import ConfirmDialog, HelpEntry, HelpScreen, PauseDialog, RerunDialog
from bundletui.tui.engine_host import EmbeddedEngine, ago, live_lease
from bundletui.tui.inputs import COMMANDS, PauseTime, number_ranges, parse_command, suggestions
from bundletui.tui.model import (
    BULK,
    KIND_NAME,
    MORE,
    Availability,
    ConsoleModel,
    Item,
    Op,
    Target,
    availability,
    past_tense,
)
from bundletui.tui.views import LogScreen, TextScreen, save_path, syntax
from bundletui.tui.widgets import (
    ActionTable,
    HeaderBar,
    HeaderState,
    JobTree,
    Lost,
    Pane,
    PromptInput,
)

T = TypeVar("T")


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


# Keys of the main screen: (key, action, footer text, shown in the footer's first row?)
JOB_KEYS: list[tuple[str, str, str]] = [
    ("s", "suspend", "Suspend"),
    ("r", "resume", "Resume"),
    ("p", "pause", "Pause"),
    ("ctrl+k", "kill", "Kill"),
    ("R", "rerun", "Rerun"),
    ("enter", "details", "Details"),
    ("l", "logs", "Logs"),
    ("d", "describe", "Describe"),
    ("y", "definition", "XML"),
]
VIEW_KEYS: list[tuple[str, str, str]] = [
    ("/", "filter", "Filter"),
    ("x", "faults", "Faults"),
    ("f", "freeze", "Freeze"),
    ("m", "mark", "Mark"),
    (":", "command", "Cmd"),
    ("?", "help", "Help"),
    ("q", "quit", "Quit"),
]
_KEY_NAMES = {"/": "slash", ":": "colon", "?": "question_mark"}
# more keys for an action (htop's F-keys): they do what the listed key does
KEY_ALIASES: dict[str, tuple[str, ...]] = {"kill": ("f9",)}
TARGETED = frozenset(
    {"suspend", "resume", "pause", "kill", "rerun", "details", "logs", "describe", "definition",
     "mark"}
)  # fmt: skip


class KeyBar(Static):
    """Two lines of key hints for the selection: job keys, then view keys. Keys that do not
    apply now are dim (pressing one says why); read-only hides the destructive ones."""

    DEFAULT_CSS = """
    KeyBar { height: 2; background: $panel; padding: 0 1; }
    """

    def show_keys(self, state: Callable[[str], Availability]) -> None:
        self._state = state
        self.update(self.render_keys(state, (self.size.width or 80) - 2))

    def on_resize(self) -> None:
        if getattr(self, "_state", None) is not None:
            self.update(self.render_keys(self._state, self.size.width - 2))

    @staticmethod
    def render_keys(state: Callable[[str], Availability], width: int) -> Text:
        """Job keys on the first line, view keys on the second; shorter words when narrow."""
        rows: list[list[tuple[str, str, bool]]] = []
        for keys in (JOB_KEYS, VIEW_KEYS):
            row = []
            for key, action, title in keys:
                avail = state(action)
                if avail.state not in ("hidden", "absent"):
                    row.append((key, title, avail.state == "enabled"))
            rows.append(row)
        for short, gap in ((False, 2), (True, 2), (True, 1)):
            lines = [_key_line(row, short, gap) for row in rows]
            if all(line.cell_len <= width for line in lines):
                break
        out = Text()
        for i, line in enumerate(lines):
            line.truncate(width)
            if i:
                out.append("\n")
            out.append_text(line)
        return out


SHORT_TITLES = {
    "Suspend": "Susp",
    "Resume": "Res",
    "Details": "Info",
    "Describe": "Desc",
    "Filter": "Find",
    "Faults": "Fault",
    "Freeze": "Frz",
}


def _key_line(row: list[tuple[str, str, bool]], short: bool, gap: int) -> Text:
    line = Text()
    for key, title, enabled in row:
        if line:
            line.append(" " * gap)
        word = SHORT_TITLES.get(title, title) if short else title
        line.append(bar_key(key), style="bold reverse" if enabled else "dim")
        line.append(" " + word, style="" if enabled else "dim")
    return line


def bar_key(key: str) -> str:
    """A key as the key bar shows it: ``ctrl+k`` is ``^k`` (Textual's footer, a terminal's)."""
    return "^" + key.removeprefix("ctrl+") if key.startswith("ctrl+") else key


def help_key(key: str, action: str) -> str:
    """A key as the help lists it, with its aliases: ``ctrl+k f9``."""
    return " ".join((key, *KEY_ALIASES.get(action, ())))


class MainScreen(Screen[None]):
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

    def __init__(self, config: ConsoleConfig, backend: Backend, console: ConsoleApp) -> None:
        super().__init__()
        self.config = config
        self.backend = backend
        self.console = console
        self.model = ConsoleModel(action_limit=config.action_limit)
        self.rev = 0
        self.frozen = False
        self.ready = False
        self.first_paint: float | None = None  # clock.monotonic() when the loaded tree painted
        self.polls = 0
        self.skipped_polls = 0
        self.rows_applied = 0
        self.last_poll_mono: float | None = None
        self.last_poll_seconds = 0.0
        self.server_now: datetime | None = None
        self.server_mono = 0.0
        self.simulated = False
        self.system_mode = "NORMAL"  # Oozie's: SAFEMODE refuses every change to jobs
        self.purged: str | None = None  # the store's last purge, as of the tree's last load
        self.totals: Totals | None = None
        self.lease: Lease | None = None
        self.poll_error: str | None = None
        self.selected_id: str | None = None
        self.table_items: dict[str, Item] = {}
        self.prompt_mode = ""
        self.command_history: list[str] = []  # ':' lines typed this session, oldest first
        self._page_around: tuple[str, str] | None = None  # (coordinator, action) to page to
        self._focus_row: str | None = None  # an action row to focus once its page shows
        self.closing = False
        self._details_timer: Timer | None = None
        self._poll_timer: Timer | None = None
        self._bottom_key: tuple[str, str] | None = None
        self._pending_walk: tuple[str, list[tuple[str, str]]] | None = None
        self._sticky: str | None = None  # the job the cursor was on when a filter hid it
        self._sticky_to: str | None = None  # where the filter moved the cursor then
        self._since_floor: int | None = None  # the next poll starts no later than this
        # event schedules seen in the details: what their trigger has seen changes no job row
        self._event_coords: set[str] = set()

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

    # ------------------------------------------------------------------ workers

    def _in_thread(
        self,
        fn: Callable[[], T],
        then: Callable[[T], None],
        *,
        group: str,
        exclusive: bool = False,
    ) -> Worker[None]:
        """Run ``fn`` on a thread worker and hand its result to ``then`` on the UI thread."""

        def job() -> None:
            result = fn()
            if not get_current_worker().is_cancelled and not self.closing:
                self.app.call_from_thread(self._guarded, then, result)

        return self.run_worker(
            job, thread=True, group=group, exclusive=exclusive, exit_on_error=False
        )

    def _guarded(self, then: Callable[[T], None], result: T) -> None:
        if not self.closing:
            then(result)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state is not WorkerState.ERROR:
            return
        error = worker.error
        message = error.describe() if isinstance(error, BundletuiError) else f"{error!r}"
        if worker.group == "poll":
            self.poll_error = message
            self._schedule_poll()
        elif worker.group == "initial":
            self.query_one("#details-text", Pane).set(Text(f"cannot read the store: {message}"))
        else:
            self.notify(message, severity="error", timeout=8)

    # ------------------------------------------------------------------ initial load & polls

    def _apply_initial(self, initial: Initial) -> None:
        tree = self.query_one(JobTree)
        self.rev = initial.rev
        self.totals = initial.totals
        self.lease = initial.lease
        self.system_mode = initial.system_mode
        self.purged = initial.purged
        self._set_server_now(initial.server_now, initial.simulated)
        ops = self.model.load_top(initial.top, initial.coordinators, initial.counts)
        with self.app.batch_update():
            tree.apply(ops)
            for root in tree.root.children:
                if root.data is not None and self.model.items[root.data].kind == BUNDLE:
                    root.expand()
        if tree.root.children:
            _ = tree._tree_lines
            tree.move_cursor(tree.root.children[0])
        self.last_poll_mono = self.config.clock.monotonic()
        self.ready = True
        if not tree.root.children:
            self._show_nothing_selected()
        self.call_after_refresh(self._painted)
        self._refresh_header()
        self._refresh_keys()
        self._schedule_poll()

    def _apply_reload(self, reloaded: tuple[Initial, set[str]]) -> None:
        """The top of the tree again, after a purge: the jobs it deleted leave the tree (and a
        toast says where the cursor went, if it was on one); the others stay, those beyond
        the first load's newest workflows too."""
        initial, gone = reloaded
        self.model.forget(gone)
        self.totals = initial.totals
        self._apply_ops(self.model.load_top(initial.top, initial.coordinators, initial.counts))
        self._refresh_header()

    def _painted(self) -> None:
        if self.first_paint is None:
            self.first_paint = self.config.clock.monotonic()
            freeze_garbage()
            self.set_timer(5.0, freeze_garbage)  # again once the engine has warmed up

    def _schedule_poll(self) -> None:
        if self.config.auto_poll:
            if self._poll_timer is not None:
                self._poll_timer.stop()
            self._poll_timer = self.set_timer(self.config.poll_interval, self._poll_tick)

    def _poll_tick(self) -> None:
        if self.frozen or self.app.screen is not self:
            self.skipped_polls += 1
            self._refresh_header()
            self._schedule_poll()
            return
        self.start_poll()

    def start_poll(self, *, force: bool = False) -> Worker[None]:
        """Poll now (a thread worker; the next one is scheduled once this one is applied)."""
        loaded = frozenset(
            i for i, item in self.model.items.items() if item.kind == COORD and item.children
        )
        since = self.rev
        if self._since_floor is not None:
            since, force = min(since, self._since_floor), True
            self._since_floor = None
        return self._in_thread(
            lambda: self.backend.poll(since, loaded, force=force),
            self._apply_poll,
            group="poll",
            exclusive=True,
        )

    def _apply_poll(self, poll: Poll) -> None:
        self.polls += 1
        self.poll_error = None
        self.last_poll_mono = self.config.clock.monotonic()
        self.last_poll_seconds = poll.seconds
        if poll.changes is not None:
            self.lease = poll.lease
            self.system_mode = poll.system_mode
            if poll.purged != self.purged:  # jobs were deleted: no newer row says so
                self.purged = poll.purged
                shown = self.model.top_ids()
                self._in_thread(
                    lambda: self.backend.reload(shown), self._apply_reload, group="initial"
                )
            if poll.server_now is not None:
                self._set_server_now(poll.server_now, poll.simulated)
        if poll.changes is not None and (poll.changes or poll.counts):
            self.rows_applied += len(poll.changes.rows)
            if poll.totals is not None:
                self.totals = poll.totals
            self.rev = max(self.rev, poll.changes.rev)
            ops, reload = self.model.apply(poll.changes, poll.counts, poll.reloaded)
            self._apply_ops(ops)
            tree = self.query_one(JobTree)
            for item_id in reload:
                node = tree.nodes.get(item_id)
                if node is not None and node.is_expanded:
                    self._load_children(item_id)
            changed = {r.id for r in poll.changes.rows} | set(poll.counts)
            changed |= {r.parent for r in poll.changes.rows if r.parent}
            self._after_data_change(changed)
        elif poll.changes is not None and poll.changes.rev > self.rev:
            self.rev = poll.changes.rev
        if poll.changes is not None and self.selected_id in self._event_coords:
            # a partition that counts towards an event schedule's trigger (its "N events so
            # far") is written to the store without touching the schedule's row: read its
            # details again whenever the store changed (the pane repaints only on a change)
            self._schedule_details(0.0)
        self._refresh_header()
        if poll.changes is not None and poll.changes.more:
            self.start_poll(force=True)  # a backlog (after a freeze): catch up at once
        else:
            self._schedule_poll()

    def _apply_ops(self, ops: list[Op], *, view: bool = False) -> None:
        if not ops:
            return
        tree = self.query_one(JobTree)
        with self.app.batch_update():
            lost = tree.apply(ops)
        if tree.cursor_node is None and tree.root.children:  # the first job of an empty store
            _ = tree._tree_lines
            tree.move_cursor(tree.root.children[0])
        if lost is not None:
            if view:
                self._sticky = self._sticky or lost.id  # back on it when the filter lets it be
                self._sticky_to = lost.to
            else:
                self.notify(self._lost_note(lost), timeout=6)
        self._sync_selection()

    def _lost_note(self, lost: Lost) -> str:
        """What the toast says when the job under the cursor left the tree: where the cursor
        really went (tui.md §2.2: on purpose, said out loud)."""
        model = self.model
        why = ""
        if lost.id in model.items and not model.visible(lost.id):
            why = f" (the filter /{model.filter_text})" if model.filter_text else " (faults only)"
        head = f"{lost.id} is no longer shown{why}"
        target = model.items.get(lost.to) if lost.to is not None else None
        if target is None:
            return f"{head}; nothing is selected"
        what = f"{KIND_NAME[target.kind]} {target.name}"
        if lost.how == "ancestor":
            parent = model.tree_parent(lost.id) if lost.id in model.items else None
            kin = "parent" if parent == lost.to else "nearest ancestor still shown"
            return f"{head}; the cursor moved to its {kin}, {what}"
        return f"{head}; the cursor moved to the row in its place, {what}"

    def _after_data_change(self, changed: set[str]) -> None:
        """Refresh what shows the selection when the poll touched it."""
        item = self._selected_item()
        if item is None:
            return
        related = {item.id, item.row.parent or "", item.row.link or ""}
        if related & changed or item.kind in (BUNDLE, WORKFLOW):
            self._schedule_details(0.0)
            self._refresh_bottom(force=True)
            self._refresh_keys()

    def _set_server_now(self, now: datetime, simulated: bool) -> None:
        self.server_now = now
        self.server_mono = self.config.clock.monotonic()
        self.simulated = simulated

    # ------------------------------------------------------------------ loading children

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        item_id = event.node.data
        if item_id is not None and self.model.needs_load(item_id):
            self._load_children(item_id)

    def _load_children(self, item_id: str) -> None:
        item = self.model.items.get(item_id)
        if item is None:
            return
        kind, link = item.kind, item.row.link

        def then(result: tuple[list[TreeRow], int, int]) -> None:
            if item_id not in self.model.items:
                return
            rows, total, rev = result
            self._apply_ops(self.model.set_children(item_id, rows, total))
            if rev < self.rev:
                # a poll went past the revision these were read at, while their parent was
                # not loaded: the next poll looks again from there (applying is idempotent)
                self._since_floor = min(self._since_floor or rev, rev)
            if self._pending_walk is not None and self._pending_walk[0] == item_id:
                chain = self._pending_walk[1]
                self._pending_walk = None
                self._walk_to(chain)

        self._in_thread(
            lambda: self.backend.children(kind, item_id, link),
            then,
            group=f"load-{item_id}",
            exclusive=True,
        )

    # ------------------------------------------------------------------ selection

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        self._sync_selection()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        if self.prompt_mode and event.widget is not self.query_one("#prompt", Input):
            # k9s: leaving the prompt (tab, a click) hides it; a filter stays applied
            self._close_prompt(refocus=False)
        self._sync_selection(force=True)

    @on(DataTable.RowHighlighted, "#table")
    def _row_highlighted(self) -> None:
        if self.focused is self.query_one(ActionTable):
            self._sync_selection(force=True)

    @on(DataTable.RowSelected, "#table")
    def _row_selected(self) -> None:
        self.action_details()

    def _sync_selection(self, force: bool = False) -> None:
        item = self._selected_item()
        new = item.id if item is not None else None
        if new == self.selected_id and not force:
            return
        changed = new != self.selected_id
        self.selected_id = new
        self._refresh_keys()
        if new is None:
            if self.ready:
                self._show_nothing_selected()
        elif changed:
            self._schedule_details(0.08)
            if self.focused is not self.query_one(ActionTable):
                self._refresh_bottom()

    def _show_nothing_selected(self) -> None:
        """No cursor (an empty store, or a filter that matches nothing): the panes say so
        instead of showing the last job, whose statuses would go stale under the header."""
        if self._details_timer is not None:
            self._details_timer.stop()
            self._details_timer = None
        if not self.model.roots:
            text = Text(
                "No jobs in this store yet.\n\n"
                "Submit one with  :submit <job.properties>  or  bundletui submit …",
                style="dim",
            )
        elif self.model.filter_text or self.model.faults_only:
            view = f"the filter /{self.model.filter_text}" if self.model.filter_text else ""
            if self.model.faults_only:
                view += (" with " if view else "") + "faults only"
            text = Text(
                f"Nothing selected: no job shown matches {view}.\n\n"
                "esc clears it; :bundles shows every job. The tree holds each coordinator's "
                f"newest {self.model.action_limit} actions: :job C@N opens an older one.",
                style="dim",
            )
        else:
            text = Text("Nothing selected.", style="dim")
        self.query_one("#details-text", Pane).set(text)
        self._bottom_key = None
        table = self.query_one(ActionTable)
        table.show_nothing()
        self.table_items = {}
        self.query_one("#logtail", Log).clear()
        self.query_one("#audit", Pane).set("")
        switcher = self.query_one(ContentSwitcher)
        switcher.current = "table"
        switcher.border_title = "actions"
        switcher.border_subtitle = ""

    def _tree_item(self) -> Item | None:
        if self.closing:
            return None
        try:
            node = self.query_one(JobTree).cursor_node
        except NoMatches:
            return None
        if node is None or node.data is None:
            return None
        return self.model.items.get(node.data)

    def _table_focused(self) -> bool:
        return isinstance(self.focused, ActionTable)

    def _selected_item(self) -> Item | None:
        """The highlighted action row when the action table has the focus, else the tree's."""
        if self.closing:
            return None
        try:
            table = self.query_one(ActionTable)
        except NoMatches:  # shutting down
            return None
        if self.focused is table:
            action_id = table.highlighted_id()
            if action_id is not None:
                return self.model.items.get(action_id) or self.table_items.get(action_id)
        return self._tree_item()

    # ------------------------------------------------------------------ details & bottom

    def _schedule_details(self, delay: float) -> None:
        if self._details_timer is not None:
            self._details_timer.stop()
        self._details_timer = self.set_timer(max(delay, 0.001), self._load_details)

    def _load_details(self) -> None:
        item = self._selected_item()
        if item is None:
            return
        if item.kind == MORE:
            self.query_one("#details-text", Pane).set(
                Text(
                    f"{item.total} earlier actions are not in the tree.\n"
                    "The action table below pages through all of them ([ and ]).",
                    style="dim",
                )
            )
            return
        item_id, kind = item.id, item.kind

        def then(info: dict[str, Any]) -> None:
            if kind == COORD and info.get("schedule") == "event":
                self._event_coords.add(item_id)
            if self.selected_id == item_id:
                self.query_one("#details-text", Pane).set(
                    pages.page(kind, info, self.alias, self.config.read_only)
                )

        self._in_thread(
            lambda: self._details_info(item_id, kind), then, group="details", exclusive=True
        )

    def _details_info(self, item_id: str, kind: str) -> dict[str, Any]:
        """The job's info JSON, and for a coordinator with READY actions the first of them
        (its ``waitingFor`` is the commands' answer to what holds them, which the details'
        why repeats rather than work it out again)."""
        info = self.backend.info(item_id, kind)
        if kind == COORD and (info.get("counts") or {}).get("READY"):
            numbers = self.backend.action_numbers(item_id, ("READY",))
            with contextlib.suppress(BundletuiError):  # purged since: no hold said then
                if numbers:
                    first = self.backend.info(f"{item_id}@{numbers[0]}", ACTION)
                    info["actions"] = [*(info.get("actions") or []), first]
        return info

    def _bottom_target(self) -> tuple[str, str] | None:
        item = self._tree_item()
        if item is None:
            return None
        if item.kind == COORD:
            return ("table", item.id)
        if item.kind == MORE:
            return ("table", item.row.parent or "")
        if item.kind in (NODE, WORKFLOW) or (item.kind == ACTION and item.row.link):
            return ("logtail", item.id)
        if item.kind == ACTION:
            return ("table", item.row.parent or "")
        return ("audit", item.id)

    def _refresh_bottom(self, *, force: bool = False) -> None:
        target = self._bottom_target()
        if target is None:
            return
        if target == self._bottom_key and not force:
            return
        mode, item_id = target
        switcher = self.query_one(ContentSwitcher)
        switcher.current = mode
        if mode == "table":
            table = self.query_one(ActionTable)
            offset = (
                table.page_offset if table.coord_id == item_id and target == self._bottom_key else 1
            )
            self._bottom_key = target
            self._load_page(item_id, offset)
        elif mode == "logtail":
            self._bottom_key = target
            self._load_tail(item_id)
        else:
            self._bottom_key = target
            switcher.border_title = "commands run on it (audit log)"
            switcher.border_subtitle = ""

            def show(rows: list[Any]) -> None:
                if self._bottom_key == target:
                    self.query_one("#audit", Pane).set(_audit_text(rows) or "none yet")

            self._in_thread(
                lambda: self.backend.audit(item_id, 50), show, group="bottom", exclusive=True
            )

    def _load_page(self, coord_id: str, offset: int, follow: str | None = None) -> None:
        """``follow``: an action the page must hold, once (the cursor's, pushed to another
        page by newer actions)."""
        table = self.query_one(ActionTable)
        size = table.page_size
        # a poll's reload of the page shown (not a `[`/`]`, not another coordinator's)
        reload = table.coord_id == coord_id and table.page_offset == offset
        # the page asked for, now: a poll's refresh while this loads asks for it too (it read
        # the old offset and, loading exclusively, undid a `]` pressed just before)
        table.page_offset = offset
        self.query_one(ContentSwitcher).border_title = table.order_title()
        sort = table.sort_key
        # an action the page must hold (after a sort, :job C@N), wherever it is in the order;
        # kept until a page shows it, so a poll's reload meanwhile asks for it too
        wanted = self._page_around
        around = follow or (wanted[1] if wanted is not None and wanted[0] == coord_id else None)

        def then(data: dict[str, Any]) -> None:
            if self._bottom_key != ("table", coord_id):  # the selection moved on meanwhile
                return
            if around is not None and self._page_around == wanted:
                self._page_around = None
            self.table_items = {}
            for a in data["actions"]:
                row = TreeRow(
                    ACTION,
                    a["id"],
                    coord_id,
                    f"@{a['actionNumber']}",
                    a["status"],
                    a["actionNumber"],
                    0,
                    link=a.get("externalId"),
                )
                self.table_items[a["id"]] = Item(row)
            kept = table.highlighted_id() if reload and around is None else None
            table.show_page(coord_id, data, self.alias, keep=around)
            # the table has no border of its own: the pane's shows where the page is
            self.query_one(ContentSwitcher).border_subtitle = table.border_subtitle
            if kept is not None and kept not in table.action_ids:
                # newer actions pushed the cursor's action off this page: the cursor goes
                # with it (it stayed on the row, and so on another action, poll after poll)
                self._load_page(coord_id, table.page_offset, follow=kept)
            if around is not None and around == self._focus_row and around in table.action_ids:
                self._focus_row = None
                table.focus()  # :job C@N: the cursor on it, its details shown

        self._in_thread(
            lambda: self.backend.action_page(coord_id, offset, size, sort, around),
            then,
            group="bottom",
            exclusive=True,
        )

    def _load_tail(self, item_id: str) -> None:
        item = self.model.items.get(item_id)
        if item is None:
            return
        kind, link = item.kind, item.row.link
        switcher = self.query_one(ContentSwitcher)
        switcher.border_title, switcher.border_subtitle = "log tail (l opens the log view)", ""
        # nothing written by a job that has ended will come: "yet" would be untrue
        status = item.row.status
        empty = (
            f"(no output: {status} without writing any; in-process actions such as fs write none)"
            if has_ended(status)
            else "(no output yet)"
        )

        def read() -> list[str]:
            lines: list[str] = []
            for f in self.backend.log_files(kind, item_id, link):
                text, _ = read_tail(f.path, 0, limit=4096)
                if text:
                    lines.append(f"── {f.node} {'stdout' if f.stream == 'out' else 'stderr'}")
                    lines += text.splitlines()[-30:]
            return lines[-200:] or [empty]

        def then(lines: list[str]) -> None:
            if self._bottom_key != ("logtail", item_id):
                return
            log = self.query_one("#logtail", Log)
            log.clear()
            log.write_lines(lines)

        self._in_thread(read, then, group="bottom", exclusive=True)

    def action_page(self, direction: int) -> None:
        table = self.query_one(ActionTable)
        if table.coord_id is None or self.query_one(ContentSwitcher).current != "table":
            self.notify("no action table: select a coordinator", severity="warning")
            return
        offset = table.page_offset + direction * table.page_size
        if offset < 1 or offset > max(table.page_total, 1):
            self.notify("no more actions that way")
            return
        self._load_page(table.coord_id, offset)

    def action_sort(self, column: str) -> None:
        table = self.query_one(ActionTable)
        if table.coord_id is None or self.query_one(ContentSwitcher).current != "table":
            self.notify("sort: no action table here; select a coordinator", severity="warning")
            return
        keep = table.highlighted_id()
        table.sort_by(column)
        self.notify(table.order_title())
        # all the actions in that order: the page that holds the cursor's action (the first
        # page when it has none)
        self._page_around = (table.coord_id, keep) if keep is not None else None
        self._load_page(table.coord_id, 1)

    # ------------------------------------------------------------------ header & keys

    def alias(self, text: str) -> str:
        for real, shown in self.config.path_aliases.items():
            text = text.replace(real, shown)
        return text

    @property
    def _db_path(self) -> Path:
        return self.config.home / DB_NAME

    def _engine_text(self) -> tuple[str, str, str]:
        """What the header says of the engine: the text, a shorter one for a narrow header,
        and its style. A lease past its expiry whose holder still runs on this host is an
        engine that exists but does not respond (SIGSTOP, Ctrl-Z, a stall): nothing takes
        over from it, so it is not "none"."""
        console = self.console
        lease = self.lease
        now_ms = to_ms(RealClock().now())
        late = lease is not None and lease.expires <= now_ms
        # asked at every refresh, not only once the lease is late: a holder killed on this
        # host (kill -9) is gone at once, not when its lease runs out (one read of /proc)
        holder = holder_process(lease, self._db_path) if lease is not None else "unknown"
        hung = lease is not None and late and holder in ("alive", "stopped")
        since = ago(now_ms - lease.expires) if lease is not None else ""
        why = f"{'stopped; ' if holder == 'stopped' else ''}lease expired {since} ago"
        if console.embedded is not None:
            status = console.embedded.status
            if status.state == "active":
                pid = status.holder.split(":")[1] if status.holder.count(":") >= 2 else "?"
                return (
                    f"engine: active (in console, pid {pid})",
                    "engine: active (in console)",
                    "green",
                )
            if status.state == "failed":
                failed = f"engine: FAILED {status.error}"  # the error wins over the path
                return failed, failed, "bold red"
            if lease is not None and hung:
                # it waits for a holder that will not go (a standby), or for the store's
                # write lock that a stopped engine may hold (starting)
                return (
                    f"engine: {status.state}; pid {lease.pid} not responding ({why})",
                    f"engine: {status.state}; pid {lease.pid} not responding",
                    "bold red",
                )
            if status.state == "standby":
                who = f" pid {self.lease.pid}@{host_label(self.lease.host)}" if self.lease else ""
                return (
                    f"engine: standby (in console; lease held by{who})",
                    "engine: standby (in console)",
                    "yellow",
                )
            return f"engine: {status.state} (in console)", f"engine: {status.state}", "yellow"
        if lease is not None and not late and holder != "gone":
            return (
                f"engine: active (attached to pid {lease.pid}@{host_label(lease.host)})",
                f"engine: active (pid {lease.pid})",
                "green",
            )
        if lease is not None and hung:
            return (
                f"engine: pid {lease.pid} not responding ({why})",
                f"engine: pid {lease.pid} not responding",
                "bold red",
            )
        hint = "" if self.config.read_only else "; :engine start"
        if lease is not None:
            if holder == "gone" and not late:  # killed: its lease has not run out yet
                text = f"engine: none (pid {lease.pid} exited{hint})"
            elif holder == "gone":
                text = f"engine: none (pid {lease.pid} exited, lease expired {since} ago{hint})"
            else:
                text = f"engine: none (pid {lease.pid}@{host_label(lease.host)}'s lease expired {since} ago{hint})"
            return text, "engine: none", "bold red"
        if self.config.read_only:  # no command is sent from here: nothing waits
            return "engine: none", "engine: none", "yellow"
        return "engine: none (commands wait)", "engine: none", "yellow"

    def header_state(self) -> HeaderState:
        clock = self.config.clock
        badges: list[tuple[str, str]] = []
        if self.config.read_only:
            badges.append(("RO", "bold black on yellow"))
        if self.config.demo is not None:
            badges.append(("DEMO", "bold black on cyan"))
        dialog = self.is_mounted and self.app.screen is not self
        if self.frozen:
            badges.append(("FROZEN", "bold black on magenta"))
        if self.system_mode == "SAFEMODE":  # why every control key answers E0002
            badges.append(("SAFEMODE", "bold white on red"))
        elif self.system_mode != "NORMAL":
            badges.append((self.system_mode, "bold black on yellow"))
        if self.config.frozen_clock or self.server_now is None:
            now = clock.now()
        elif self.simulated:
            now = self.server_now
        else:
            now = RealClock().now()
        server = f"{now:%Y-%m-%d %H:%M:%S}Z" + (" sim" if self.simulated else "")
        if self.last_poll_mono is None:
            poll, style = "loading", "yellow"
        elif self.config.frozen_clock:
            poll, style = "poll 0.0s", "dim"
        else:
            age = clock.monotonic() - self.last_poll_mono
            if self.frozen or dialog:
                poll, style = f"paused {age:.0f}s", "magenta"
            elif self.poll_error:
                poll, style = f"POLL ERROR {age:.0f}s", "bold red"
            elif age > max(10.0, 5 * self.config.poll_interval):
                poll, style = f"STALE {age:.0f}s", "bold red"
            elif age > 3 * self.config.poll_interval:
                poll, style = f"poll {age:.1f}s", "yellow"
            else:
                poll, style = f"poll {age:.1f}s", "dim"
        engine, engine_short, engine_style = self._engine_text()
        return HeaderState(
            path=self.alias(str(self.backend.db_path)),
            engine=engine,
            engine_short=engine_short,
            engine_style=engine_style,
            server_time=server,
            poll=poll,
            poll_style=style,
            badges=badges,
            totals=self.totals,
            marked=len(self.model.marks),
            filter_text=self.model.filter_text,
            faults_only=self.model.faults_only,
        )

    def _refresh_header(self) -> None:
        if self.is_mounted and not self.closing:
            self.query_one(HeaderBar).show(self.header_state())

    def _refresh_keys(self) -> None:
        if self.is_mounted and not self.closing:
            self.query_one(KeyBar).show_keys(self.availability)
            self.refresh_bindings()

    def availability(self, action: str) -> Availability:
        item = self._selected_item()
        marked = self.model.marked_items() if action in BULK else None
        coord = None
        if item is not None and item.kind == ACTION and item.row.parent:
            coord = self.model.items.get(item.row.parent)  # every coordinator is in the model
        avail = availability(
            action,
            item,
            read_only=self.config.read_only,
            marked=marked,
            coord_status=coord.status if coord is not None else None,
        )
        if action == "details" and item is None:
            return Availability("greyed", "details: nothing selected")
        if action == "faults" or action == "filter":
            return Availability("enabled")
        if action == "mark" and avail.state != "hidden" and self._table_focused():
            # marks are drawn in the tree and bulk commands take them from it: not from here
            return Availability("absent", "mark: marks are set in the tree (tab back to it)")
        if avail.state == "greyed" and item is not None and _not_for_kind(action, item):
            return Availability("absent", avail.reason)
        return avail

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TARGETED:
            state = self.availability(action).state
            return True if state == "enabled" else (None if state == "greyed" else False)
        if action in ("filter", "command") and isinstance(self.focused, Input):
            return False  # a priority binding: the focused prompt types / and : itself
        if action == "clear_marks":
            return bool(self.model.marks) and not self.config.read_only
        if action == "page":
            return self.query_one(ContentSwitcher).current == "table" if self.is_mounted else False
        return True

    def on_key(self, event: Key) -> None:
        """A key that does not apply says why (lazygit), instead of doing nothing."""
        if isinstance(self.focused, Input):
            return
        action = _KEY_ACTIONS.get(event.key)
        if action is None:
            return
        avail = self.availability(action)
        if not avail.enabled:
            event.stop()
            event.prevent_default()
            self.notify(avail.reason, severity="warning", timeout=4)

    # ------------------------------------------------------------------ targets & commands

    def _targets(self, action: str) -> list[Target]:
        marked = self.model.marked_items()
        if marked and action in BULK:
            return [Target.of(m) for m in marked if availability(action, m).enabled]
        item = self._selected_item()
        return [Target.of(item)] if item is not None else []

    def _run_commands(
        self,
        verb: str,
        calls: list[tuple[str, Callable[[Ctx], object]]],
        *,
        poll: bool = True,
        new_job: bool = False,
        notes: list[str] | None = None,
    ) -> None:
        """Run commands one by one on a worker (each its own transaction and audit row) and
        toast what happened. ``new_job``: each call returns the id of the job it made (a
        submit), and the toast names that id rather than the target (a file). ``notes``:
        filled by the calls with what they passed over; toasted as a warning."""

        def work() -> tuple[list[str], list[str]]:
            ok: list[str] = []
            failed: list[str] = []
            for target, call in calls:
                try:
                    made = self.backend.command(call)
                    ok.append(str(made) if new_job else target)
                except BundletuiError as exc:
                    # an error in a file says where itself (a submit's target is the
                    # properties file, the error may be in the coordinator it names)
                    text = f"{exc.code} {exc.located}"
                    text = text if exc.file else f"{target}: {text}"
                    failed.append(f"{text}\n  hint: {exc.hint}" if exc.hint else text)
            return ok, failed

        def then(result: tuple[list[str], list[str]]) -> None:
            ok, failed = result
            if ok and not failed:
                what = ok[0] if len(ok) == 1 else f"{len(ok)} jobs"
                self.notify(f"{verb}: {what}", title="done", timeout=5)
            if failed:
                head = (
                    f"{verb}: {len(ok)} done, {len(failed)} failed\n" if ok else f"{verb} failed\n"
                )
                self.notify(head + "\n".join(failed[:4]), severity="error", timeout=10)
            if notes:
                self.notify("\n".join(notes[:4]), title=verb, severity="warning", timeout=10)
            if poll:
                self.start_poll(force=True)

        self._in_thread(work, then, group="command")

    def _confirm(
        self,
        verb: str,
        targets: list[Target],
        calls: list[tuple[str, Callable[[Ctx], object]]],
        *,
        note: str = "",
        type_to_confirm: str | None = None,
        danger: bool = True,
    ) -> None:
        hidden = self.model.hidden_count(t.id for t in targets if len(targets) > 1)
        count = f"{len(targets)} marked jobs" if len(targets) > 1 else targets[0].describe()
        if hidden:
            count += f" ({hidden} hidden by the filter)"
        title = f"{verb.capitalize()} {count}?"
        marked = self.model.marked_items() if verb in BULK else []
        left = len(marked) - len(targets)
        if marked and left > 0:  # marked, but the verb does not apply (a KILLED job's kill)
            jobs = "job" if left == 1 else "jobs"
            title += f" ({left} other marked {jobs} cannot be {past_tense(verb)})"

        def done(ok: bool | None) -> None:
            if ok:
                if marked:  # done with them, as k9s: the next key acts on the cursor again
                    self.action_clear_marks()
                self._run_commands(verb, calls)

        self.app.push_screen(
            ConfirmDialog(
                title, verb.capitalize(), targets, note=note, type_to_confirm=type_to_confirm,
                danger=danger,
            ),
            done,
        )  # fmt: skip

    def action_suspend(self) -> None:
        self._suspend_resume("suspend")

    def action_resume(self) -> None:
        self._suspend_resume("resume")

    def _suspend_resume(self, verb: str) -> None:
        targets = self._targets(verb)
        if not targets:
            return
        fn = dispatch.suspend if verb == "suspend" else dispatch.resume
        calls: list[tuple[str, Callable[[Ctx], object]]] = []
        notes = []
        for t in targets:
            job = t.link if t.kind == ACTION and t.link else t.id
            if job != t.id:
                notes.append(f"{t.name} acts on its workflow {job}")
            calls.append((job, _bind(fn, job)))
        cascade = {
            BUNDLE: "its coordinators and their running workflows follow",
            COORD: "its running workflows follow",
        }
        if verb == "suspend" and any(t.event for t in targets):
            # a suspend drops what an event schedule holds; a pause would keep it
            cascade[COORD] += (
                "; an event schedule drops its pending jobs and ignores events until resumed"
                " (pause keeps them)"
            )
        note = "; ".join(notes) or "; ".join(
            dict.fromkeys(cascade[t.kind] for t in targets if t.kind in cascade)
        )
        self._confirm(verb, targets, calls, note=note, danger=verb == "suspend")

    def action_kill(self) -> None:
        targets = self._targets("kill")
        if not targets:
            return
        calls = [(t.id, _bind(dispatch.kill, t.id)) for t in targets]
        typed: str | None = None
        if len(targets) > 1:
            typed = f"kill {len(targets)}"
        elif targets[0].kind == BUNDLE:
            typed = targets[0].name
        self._confirm(
            "kill",
            targets,
            calls,
            note="A kill cannot be undone; everything under it is killed too.",
            type_to_confirm=typed,
        )

    def action_pause(self) -> None:
        targets = self._targets("pause")
        if not targets:
            return
        target = targets[0]
        item = self.model.items.get(target.id)
        current = item.row.pause_time if item is not None else None
        now = self.server_now or self.config.clock.now()
        if self.server_now is not None and not self.simulated:
            now = RealClock().now() if not self.config.frozen_clock else self.config.clock.now()

        def done(result: PauseTime | None) -> None:
            if result is None:
                return
            value = f"pausetime={result.text}"
            verb = "clear pause time" if result.when is None else f"pause at {result.text}"
            self._run_commands(verb, [(target.id, _bind(dispatch.change, target.id, value))])

        self.app.push_screen(
            PauseDialog(target, format_oozie_time(from_ms(current)) if current else None, now),
            done,
        )

    def action_rerun(self) -> None:
        targets = self._targets("rerun")
        if not targets:
            return
        target = targets[0]

        def open_dialog(prefill: tuple[str, int | None]) -> None:
            actions, last = prefill
            coords = ""
            if target.kind == BUNDLE:
                kids = self.model.items[target.id].children or []
                coords = ",".join(self.model.items[k].name for k in kids if k in self.model.items)
            self.app.push_screen(
                RerunDialog(
                    target,
                    actions=actions,
                    coordinators=coords,
                    note=self._resumes(target),
                    last_action=last,
                ),
                lambda choice: self._rerun(target, choice),
            )

        def coord_prefill() -> tuple[str, int | None]:
            # its failed actions, and its last number: the dialog checks a scope against it,
            # as the command does
            failed = self.backend.action_numbers(target.id, ("FAILED", "KILLED", "TIMEDOUT"))
            last = self.backend.info(target.id, COORD).get("lastActionNumber")
            return number_ranges(failed), last if isinstance(last, int) else None

        if target.kind == COORD:
            self._in_thread(coord_prefill, open_dialog, group="prefill")
        else:
            open_dialog(("", None))

    def _resumes(self, target: Target) -> str:
        """A rerun of a suspended coordinator's actions resumes it (as Oozie's rerun does):
        the dialog says so, since its why said nothing launches until it is resumed."""
        coord_id = target.id.rpartition("@")[0] if target.kind == ACTION else target.id
        coord = self.model.items.get(coord_id)
        if target.kind in (ACTION, COORD) and coord is not None and coord.status in COORD_SUSPENDED:
            return f"Its coordinator is {coord.status}: the rerun resumes it."
        return ""

    def _rerun(self, target: Target, choice: Any) -> None:
        if choice is None:
            return
        a = choice.args()
        call: Callable[[Ctx], object]
        # a bundle's rerun by dates: the coordinators it passed over; a coordinator's: the
        # actions LAST_ONLY / NONE will skip at once
        notes: list[str] = []
        if target.kind == WORKFLOW:
            call = _bind(
                dispatch.rerun,
                target.id,
                skip_nodes=a["skip_nodes"],
                failed_nodes=a["failed_nodes"],
            )
        elif target.kind == ACTION:
            coord_id, _, number = target.id.rpartition("@")
            call = _bind(
                dispatch.rerun, coord_id, actions=number, refresh=a["refresh"],
                nocleanup=a["nocleanup"], failed=a["failed"], notes=notes,
            )  # fmt: skip
        elif target.kind == COORD:
            call = _bind(
                dispatch.rerun, target.id, actions=a["actions"], dates=a["dates"],
                refresh=a["refresh"], nocleanup=a["nocleanup"], failed=a["failed"], notes=notes,
            )  # fmt: skip
        else:
            call = _bind(
                dispatch.rerun, target.id, coordinators=a["coordinators"], dates=a["dates"],
                refresh=a["refresh"], nocleanup=a["nocleanup"], notes=notes,
            )  # fmt: skip
        self._run_commands("rerun", [(target.id, call)], notes=notes)

    # ------------------------------------------------------------------ views

    def action_details(self) -> None:
        item = self._selected_item()
        if item is None or item.kind == MORE:
            return
        item_id, kind = item.id, item.kind
        self._in_thread(
            lambda: self._details_info(item_id, kind),
            lambda info: self._open_text(
                f"details: {item_id}",
                pages.page(kind, info, self.alias, self.config.read_only),
                item_id,
            ),
            group="view",
        )

    def action_describe(self) -> None:
        item = self._selected_item()
        if item is None or item.kind == MORE:
            return
        item_id, kind = item.id, item.kind

        def then(info: dict[str, Any]) -> None:
            text = pages.describe_text(info)
            self._open_text(f"describe: {item_id}", syntax(text, "json"), item_id, text, ".json")

        self._in_thread(lambda: self.backend.info(item_id, kind), then, group="view")

    def action_definition(self) -> None:
        item = self._selected_item()
        if item is None or item.kind == MORE:
            return
        item_id = item.id

        def then(xml: str) -> None:
            self._open_text(f"definition: {item_id}", syntax(xml, "xml"), item_id, xml, ".xml")

        self._in_thread(lambda: self.backend.definition(item_id), then, group="view")

    def _open_text(
        self,
        title: str,
        body: Any,
        name: str,
        plain: str | None = None,
        suffix: str = ".txt",
    ) -> None:
        text = plain if plain is not None else (body.plain if isinstance(body, Text) else str(body))
        self.app.push_screen(
            TextScreen(title, body, plain=text, save_to=self._saver(name, suffix), name=name)
        )

    def _save_path(self, name: str, suffix: str) -> Path:
        stamp = f"{self.config.clock.now():%Y%m%dT%H%M%S}"
        demo = self.config.demo
        # a --demo home is deleted on exit: what is saved from it must outlive it
        where = Path.cwd() if demo is not None and demo.temporary else self.config.home
        return save_path(where, name, suffix, stamp)

    def _saver(self, name: str, suffix: str) -> Callable[[str], Path]:
        def save(text: str) -> Path:
            path = self._save_path(name, suffix)
            path.write_text(text, encoding="utf-8")
            return path

        return save

    def action_screen_dump(self) -> None:
        """The screen as it is, as SVG, under ``<home>/saved/`` (tui.md: a screen dump to
        attach to a ticket; the views save their text the same way)."""
        path = self._save_path("console", ".svg")
        self.app.save_screenshot(filename=path.name, path=str(path.parent))
        self.notify(f"saved {path}")

    def action_logs(self) -> None:
        item = self._selected_item()
        if item is None:
            return
        item_id, kind, link = item.id, item.kind, item.row.link
        backend = self.backend

        def sources() -> list[LogFile]:
            return backend.log_files(kind, item_id, link)

        def live() -> bool:  # a suspended workflow's running nodes still write
            current = self.model.items.get(item_id)
            return not has_ended(current.status if current is not None else item.status)

        self.app.push_screen(
            LogScreen(
                f"logs: {self.alias(item_id)}",
                sources,
                live=live,
                save_to=self._saver(item_id, ".log"),
            )
        )

    def action_help(self) -> None:
        entries: list[HelpEntry] = [HelpEntry("", "for the selection", None)]
        for key, action, title in JOB_KEYS:
            avail = self.availability(action)
            if avail.state == "hidden":
                continue
            entries.append(
                HelpEntry(
                    help_key(key, action),
                    title,
                    action,
                    "enabled" if avail.enabled else "greyed",
                    avail.reason,
                )
            )
        entries.append(HelpEntry("", "view", None))
        extra: list[tuple[str, str, str | None]] = [
            ("space", "expand / collapse", None),
            ("j k", "down / up (↓ ↑): tree, action table, help, log and text views", None),
            (
                "g G",
                "first / last line of the tree or row of the action table (also home / end)",
                None,
            ),
            ("→ ←", "expand or go to child / collapse or go to parent", None),
            ("tab", "switch between tree, details and action table", None),
            ("[ ]", "newer / older page of the action table", "page_prev"),
            ("N", "sort all the actions by number (again: reverse)", "sort('n')"),
            ("S", "sort all the actions by status (again: reverse)", "sort('status')"),
            ("M", "clear every mark", "clear_marks"),
            ("esc", "clear filter, faults-only or marks", "escape"),
            ("ctrl+r", "poll now", "poll_now"),
            ("ctrl+s", "save a screen dump (SVG) to <home>/saved/", "screen_dump"),
        ]
        for key, action, title in VIEW_KEYS:
            avail = self.availability(action)
            if avail.state == "hidden":
                continue
            state = "enabled" if avail.enabled else "greyed"  # m in the action table
            entries.append(HelpEntry(key, title, action, state, avail.reason))
        for key, text, extra_action in extra:
            entries.append(
                HelpEntry(key, text, extra_action or "", "enabled" if extra_action else "note")
            )
        entries.append(HelpEntry("", "commands (:)", None))
        for verb, text in COMMANDS.items():
            entries.append(HelpEntry(f":{verb}", text, f"cmd:{verb}"))
        entries.append(HelpEntry("", "log view (l)", None))
        for key, text in (
            ("s", "follow on/off"),
            ("w", "wrap on/off"),
            ("e", "stdout+stderr / stdout / stderr"),
        ):
            entries.append(HelpEntry(key, text, "", "note"))
        entries.append(
            HelpEntry("", "log view and text views (d, y, :audit, :engine, :stats)", None)
        )
        for key, text in (
            ("/", "search; n / N: next / previous line holding it"),
            ("S ctrl+s", "save to <home>/saved/"),
            ("g G", "top / bottom (also home / end)"),
            ("j k", "down / up a line"),
            ("esc q", "back"),
        ):
            entries.append(HelpEntry(key, text, "", "note"))

        def done(action: str | None) -> None:
            if not action:
                return
            if action.startswith("cmd:"):
                self._open_prompt("command", f"{action[4:]} ")
                return
            self.call_later(self.run_action, "page(-1)" if action == "page_prev" else action)

        self.app.push_screen(HelpScreen(entries, labels.LEGEND), done)

    # ------------------------------------------------------------------ view state

    def action_faults(self) -> None:
        ops, expand = self.model.set_faults_only(not self.model.faults_only)
        self._apply_view_change(ops, expand)
        self.notify("faults only" if self.model.faults_only else "every job shown")

    def _apply_view_change(self, ops: list[Op], expand: list[str]) -> None:
        if self._sticky is not None and self.selected_id != self._sticky_to:
            self._sticky = None  # chosen while filtered (QA (p)): the cursor stays on it
        self._apply_ops(ops, view=True)
        tree = self.query_one(JobTree)
        for item_id in expand:
            node = tree.nodes.get(item_id)
            if node is not None:
                node.expand()
        if self._sticky is not None and self._sticky in tree.nodes:
            tree.select_id(self._sticky)
            self._sticky = None
        if tree.cursor_node is None and tree.root.children:
            _ = tree._tree_lines
            tree.move_cursor(tree.root.children[0])
        self._refresh_header()
        self._sync_selection(force=True)

    def set_filter(self, text: str) -> None:
        ops, expand = self.model.set_filter(text)
        self._apply_view_change(ops, expand)

    def action_freeze(self) -> None:
        self.frozen = not self.frozen
        self.notify("updates frozen (f resumes)" if self.frozen else "updates resumed")
        self._refresh_header()
        if not self.frozen:
            self.start_poll()

    def action_mark(self) -> None:
        item = self._selected_item()
        if item is None or item.id not in self.model.items:
            self.notify("mark: select the job in the tree", severity="warning")
            return
        self.model.toggle_mark(item.id)
        self._apply_ops([_relabel(item.id)])
        tree = self.query_one(JobTree)
        if tree.has_focus:
            tree.action_cursor_down()
        self._refresh_header()
        self._refresh_keys()

    def action_clear_marks(self) -> None:
        marked = list(self.model.marks)
        self.model.marks.clear()
        self._apply_ops([_relabel(i) for i in marked])
        self._refresh_header()
        self._refresh_keys()

    def action_escape(self) -> None:
        if self.prompt_mode:
            filtering = self.prompt_mode == "filter"
            self._close_prompt()
            if filtering:  # k9s: esc while typing a filter drops it
                self.set_filter("")
        elif self.model.filter_text:
            self.set_filter("")
        elif self.model.faults_only:
            self.action_faults()
        elif self.model.marks:
            self.action_clear_marks()

    def action_poll_now(self) -> None:
        self.start_poll(force=True)

    def action_quit(self) -> None:
        self.app.exit()

    # ------------------------------------------------------------------ prompt: / and :

    def action_filter(self) -> None:
        self._open_prompt("filter", self.model.filter_text)

    def action_command(self) -> None:
        self._open_prompt("command", "")

    def _open_prompt(self, mode: str, value: str) -> None:
        prompt = self.query_one("#prompt", PromptInput)
        self.prompt_mode = mode
        prompt.placeholder = (
            "filter: name, id or status (esc clears)"
            if mode == "filter"
            else ":coord <id|name>  :job <id>  :submit <props>  :bundles  :audit  :q"
        )
        prompt.suggester = SuggestFromList(suggestions()) if mode == "command" else None
        prompt.reset_history(self.command_history if mode == "command" else None)
        prompt.value = value
        self.query_one("#prompt-sign", Label).update("/" if mode == "filter" else ":")
        row = self.query_one("#prompt-row")
        row.add_class("-open")
        # shown now (a class only restyles at the next idle): a prompt focused while still
        # hidden could be dropped from the focus chain by a layout in between, focus None
        row.display = True
        # focus now, not at the next idle (Widget.focus): keys already queued behind the / or
        # : (type-ahead, a paste, a laggy link) then go into the prompt, not to the tree
        self.set_focus(prompt)
        prompt.cursor_position = len(value)

    def _close_prompt(self, *, refocus: bool = True) -> None:
        row = self.query_one("#prompt-row")
        row.remove_class("-open")
        row.display = False
        self.prompt_mode = ""
        if refocus:
            self.query_one(JobTree).focus()

    @on(Input.Changed, "#prompt")
    def _prompt_changed(self, event: Input.Changed) -> None:
        if self.prompt_mode == "filter":
            self.set_filter(event.value)

    @on(Input.Submitted, "#prompt")
    def _prompt_submitted(self, event: Input.Submitted) -> None:
        mode = self.prompt_mode
        self._close_prompt()
        if mode == "filter":
            self.set_filter(event.value)
        elif mode == "command":
            line = event.value.strip()
            if line and self.command_history[-1:] != [line]:
                self.command_history.append(line)
            self.run_command_line(event.value)

    def run_command_line(self, line: str) -> None:
        try:
            cmd = parse_command(line)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        verb = cmd.verb
        if verb == "quit":
            self.app.exit()
        elif verb == "help":
            self.action_help()
        elif verb == "faults":
            self.action_faults()
        elif verb == "freeze":
            self.action_freeze()
        elif verb == "filter":
            self.set_filter(cmd.args[0] if cmd.args else "")
        elif verb == "bundles":
            self.set_filter("")
            if self.model.faults_only:
                self.action_faults()
            tree = self.query_one(JobTree)
            if tree.root.children:
                tree.move_cursor(tree.root.children[0])
                tree.scroll_home(animate=False)
        elif verb in ("coord", "job"):
            self.jump(cmd.args[0], coordinator=verb == "coord")
        elif verb == "submit":
            self._submit(cmd.args[0], cmd.defines)
        elif verb == "audit":
            self._in_thread(
                lambda: self.backend.audit(None, 500),
                lambda rows: self._open_text("audit log", _audit_text(rows), "audit"),
                group="view",
            )
        elif verb == "stats":
            self._open_text("console diagnostics", Text(self.stats_text()), "stats")
        elif verb == "engine" and cmd.args:
            self._start_engine()
        elif verb == "engine":
            embedded = self.console.embedded
            if embedded is None:
                # a read-only console refuses :engine start: it is not offered there
                start = (
                    " (it is read-only)" if self.config.read_only else " (:engine start runs one)"
                )
                self.notify(f"no engine runs in this console{start}", severity="warning")
                return
            text = "\n".join(embedded.ring.lines) or "(nothing logged yet)"
            self._open_text(
                f"engine log ({self.alias(str(embedded.log_path))})", Text(text), "engine"
            )

    def _start_engine(self) -> None:
        console = self.console
        if self.config.read_only:
            self.notify("engine start: the console is read-only", severity="warning")
            return
        running = console.embedded
        if running is not None and not running.done.is_set():
            self.notify(f"an engine already runs in this console ({running.status.state})")
            return
        lease = self.lease
        other = None
        if lease is not None:
            late = lease.expires <= to_ms(RealClock().now())
            holder = holder_process(lease, self._db_path)
            # what the new engine will find: a live lease, or a late one whose holder still
            # runs here (stopped), is held; an expired one, or a dead holder's, is taken over
            if holder != "gone" and (not late or holder in ("alive", "stopped")):
                other = f"pid {lease.pid}@{host_label(lease.host)}"
        refusal = console.engine_refusal()
        if refusal is not None:  # said now, not "started" with the failure in the header
            self.notify(refusal, severity="error", timeout=10)
            return
        console.start_engine()
        if other is None:
            self.notify("engine started in this console")
        else:
            self.notify(f"engine started in this console (standby while {other} holds the store)")
        self._refresh_header()

    def stats_text(self) -> str:
        tree = self.query_one(JobTree)
        lines = [
            f"store            {self.alias(str(self.backend.db_path))}",
            f"revision         {self.rev}",
            f"polls            {self.polls} applied, {self.skipped_polls} skipped (frozen/dialog)",
            f"rows applied     {self.rows_applied}",
            f"last poll        {self.last_poll_seconds * 1000:.1f} ms in its worker",
            f"poll interval    {self.config.poll_interval:g} s",
            f"jobs loaded      {len(self.model.items)} ({len(tree.nodes)} in the tree)",
            f"marked           {len(self.model.marks)}",
            f"gc               {gc.get_freeze_count()} objects frozen at start-up",
        ]
        embedded = self.console.embedded
        if embedded is not None:
            status = embedded.status
            lines.append(
                f"engine           in console, {status.state}, {embedded.engine.ticks} ticks"
            )
            lines.append(f"engine log       {self.alias(str(embedded.log_path))}")
        elif self.lease is not None:
            lines.append(
                f"engine           pid {self.lease.pid}@{host_label(self.lease.host)} ({self.lease.mode})"
            )
        return "\n".join(lines)

    def _submit(self, config: str, defines: list[str]) -> None:
        if self.config.read_only:
            self.notify("submit: the console is read-only", severity="warning")
            return
        from bundletui.commands.submit import submit_loaded
        from bundletui.spec.load import load_job

        path = Path(config).expanduser()
        home = self.config.home
        landing = self.config.landing or home / "landing"

        def call(ctx: Ctx) -> str:
            loaded = load_job(
                path, defines, ctx.store.clock, user=ctx.user, defaults={"landing": str(landing)}
            )
            return submit_loaded(ctx, loaded, start=True)

        self._run_commands(f"submit {path.name}", [(str(path), call)], new_job=True)

    def jump(self, text: str, *, coordinator: bool = False) -> None:
        """``:coord`` / ``:job``: find the job, expand its ancestors, put the cursor on it."""

        def find() -> list[tuple[str, str]]:
            chain = self.backend.lineage(text)
            if chain or not coordinator:
                return chain
            found = [r for r in self.backend.find(text) if r.kind == COORD]
            return self.backend.lineage(found[0].id) if found else []

        def then(chain: list[tuple[str, str]]) -> None:
            if not chain:
                self.notify(f"no job matches {text!r}", severity="warning")
                return
            if self.model.filter_text or self.model.faults_only:
                self.model.filter_text = ""
                self.model.faults_only = False
                self._apply_view_change(self.model._refresh_all(), [])
            self._walk_to(chain)

        self._in_thread(find, then, group="jump", exclusive=True)

    def _walk_to(self, chain: list[tuple[str, str]]) -> None:
        tree = self.query_one(JobTree)
        for depth, (kind, item_id) in enumerate(chain):
            last = depth == len(chain) - 1
            if item_id not in self.model.items:
                parent = chain[depth - 1] if depth else None
                if parent is not None and parent[0] == COORD and kind == ACTION:
                    # beyond the actions the tree holds: the action table's page that has it
                    self._show_in_table(parent[1], item_id, chain[-1][1])
                    return
                self.notify(f"{item_id} is not in the tree", severity="warning")
                if parent is not None:
                    tree.select_id(parent[1])
                return
            if last:
                tree.select_id(item_id)
                tree.focus()
                return
            node = tree.nodes.get(item_id)
            if node is None:
                return
            if self.model.needs_load(item_id):
                self._pending_walk = (item_id, chain[depth:])
                if node.is_expanded:
                    self._load_children(item_id)
                else:
                    node.expand()  # NodeExpanded loads the children, then the walk goes on
                return
            node.expand()

    def _show_in_table(self, coord_id: str, action_id: str, target: str) -> None:
        """Select the coordinator and open its action table at the page that holds
        ``action_id``, the cursor (and the focus) on it."""
        tree = self.query_one(JobTree)
        self._page_around = (coord_id, action_id)
        self._focus_row = action_id
        tree.select_id(coord_id)
        tree.focus()
        if target != action_id:  # its workflow or a node: reached from the action's row
            self.notify(f"{target} runs under {action_id}: its row is in the action table")
        if self._bottom_key == ("table", coord_id):  # already showing: no selection change
            self._load_page(coord_id, 1)
        else:
            self._refresh_bottom()


def freeze_garbage() -> None:
    """Move what exists now (schemas, stylesheets, the engine's caches: a million objects)
    out of the collector's reach. A full collection over them takes ~100 ms, which would
    freeze the screen whenever it ran; objects made from now on are collected as usual."""
    gc.freeze()


def _not_for_kind(action: str, item: Item) -> bool:
    """Keys that never apply to this kind of job (left out of the key bar, still explained)."""
    kind = item.kind
    never = {
        NODE: {"suspend", "resume", "pause", "kill", "rerun", "mark"},
        ACTION: {"pause"},
        WORKFLOW: {"pause"},
        BUNDLE: {"logs"},
        COORD: {"logs"},
        MORE: {"suspend", "resume", "pause", "kill", "rerun", "mark", "logs", "describe",
               "definition"},
    }  # fmt: skip
    return action in never.get(kind, set())


def _relabel(item_id: str) -> Op:
    from bundletui.tui.model import Relabel

    return Relabel(item_id)


def _bind(fn: Callable[..., object], *args: Any, **kw: Any) -> Callable[[Ctx], object]:
    def call(ctx: Ctx) -> object:
        return fn(ctx, *args, **kw)

    return call


def _audit_text(rows: list[Any]) -> Text:
    out = Text()
    for r in rows:
        when = f"{from_ms(r.time):%m-%d %H:%M:%S}"
        out.append(f"{when} ", style="dim")
        out.append(f"{r.face:<7} {one_line(r.user):<8} {r.command:<8} ")
        out.append(r.result, style="green" if r.result == "ok" else "red")
        if r.target:
            out.append(f" {r.target}", style="dim")
        values = _audit_values(r.args)
        if values:
            out.append(f" {values}")
        if r.error:
            out.append(f" {one_line(r.error)}", style="red")
        out.append("\n")
    return out


def _audit_values(args: str | None) -> str:
    """A command's values as the audit row stored them (JSON), said ``name=value``: the
    ``pausetime=…`` of a change, the actions of a rerun; unset options are left out."""
    try:
        values = json.loads(args or "{}")
    except ValueError:
        return one_line(args or "")
    if not isinstance(values, dict):
        return one_line(str(values))
    said = [
        f"{k}={json.dumps(v) if isinstance(v, (dict, list)) else v}"
        for k, v in values.items()
        if v not in (None, False, "", [], {})
    ]
    return one_line(" ".join(said))


_KEY_ACTIONS: dict[str, str] = {}
for _key, _action, _title in JOB_KEYS + VIEW_KEYS:
    if _action in TARGETED:
        for _name in (_key, *KEY_ALIASES.get(_action, ())):
            _KEY_ACTIONS[_KEY_NAMES.get(_name, _name)] = _action


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

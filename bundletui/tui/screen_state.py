"""What the parts of the main screen share: its state, the job under the cursor, and running
a read on a thread worker.

:class:`~bundletui.tui.app.MainScreen` is one Textual screen put together from mixins, one a
concern (polls, selection, header, keys, job actions, job views, view state, the prompt).
Each subclasses :class:`ScreenState`; what one asks of another is declared here, for the type
checker only (Textual finds bindings, ``action_*`` and ``on_*`` methods through the MRO).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, get_current_worker

from bundletui.store.changes import Totals
from bundletui.store.db import DB_NAME
from bundletui.store.lease import Lease
from bundletui.tui.backend import Backend
from bundletui.tui.model import ConsoleModel, Item, Op
from bundletui.tui.widgets import ActionTable, JobTree

if TYPE_CHECKING:
    from bundletui.tui.app import ConsoleApp, ConsoleConfig

T = TypeVar("T")


class ScreenState(Screen[None]):
    """The main screen's state, and what every part of it uses."""

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
            worker = get_current_worker()
            if not worker.is_cancelled and not self.closing:
                self.app.call_from_thread(self._guarded, worker, then, result)

        return self.run_worker(
            job, thread=True, group=group, exclusive=exclusive, exit_on_error=False
        )

    def _guarded(self, worker: Worker[None], then: Callable[[T], None], result: T) -> None:
        # asked again on the UI thread: an exclusive worker started after this one read its
        # result (a `[` pressed while a poll's reload was on its way) cancels it here, and
        # the stale page must not overwrite the page asked for
        if not self.closing and not worker.is_cancelled:
            then(result)

    # ------------------------------------------------------------------ paths

    def alias(self, text: str) -> str:
        for real, shown in self.config.path_aliases.items():
            text = text.replace(real, shown)
        return text

    @property
    def _db_path(self) -> Path:
        return self.config.home / DB_NAME

    # ------------------------------------------------------------------ the job under the cursor

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

    if TYPE_CHECKING:
        # what the mixins ask of one another, by the module that provides it

        # header, keys
        def _refresh_header(self) -> None: ...
        def stats_text(self) -> str: ...
        def _refresh_keys(self) -> None: ...
        def action_help(self) -> None: ...

        # polling
        def start_poll(self, *, force: bool = False) -> Worker[None]: ...
        def _apply_ops(self, ops: list[Op], *, view: bool = False) -> None: ...
        def _load_children(self, item_id: str) -> None: ...

        # selection
        def _sync_selection(self, force: bool = False) -> None: ...
        def _show_nothing_selected(self) -> None: ...
        def _schedule_details(self, delay: float) -> None: ...
        def _details_info(self, item_id: str, kind: str) -> dict[str, Any]: ...
        def _refresh_bottom(self, *, force: bool = False) -> None: ...
        def _load_page(self, coord_id: str, offset: int, follow: str | None = None) -> None: ...

        # job actions, job views
        def _submit(self, config: str, defines: list[str]) -> None: ...
        def action_details(self) -> None: ...
        def _open_text(
            self, title: str, body: Any, name: str, plain: str | None = None, suffix: str = ".txt"
        ) -> None: ...

        # view state
        def action_faults(self) -> None: ...
        def _apply_view_change(self, ops: list[Op], expand: list[str]) -> None: ...
        def set_filter(self, text: str) -> None: ...
        def action_freeze(self) -> None: ...
        def action_clear_marks(self) -> None: ...

        # prompt
        def _open_prompt(self, mode: str, value: str) -> None: ...
        def _close_prompt(self, *, refocus: bool = True) -> None: ...
        def _walk_to(self, chain: list[tuple[str, str]]) -> None: ...

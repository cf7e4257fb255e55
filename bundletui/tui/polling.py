"""Keeping the tree in step with the store: the first load, polls (each scheduled once the
last was applied, skipped while frozen or behind a dialog), their diffs applied to the tree in
place, and children loaded when a node is expanded."""

from __future__ import annotations

import gc
from datetime import datetime

from rich.text import Text
from textual.widgets import Tree
from textual.worker import Worker, WorkerState

from bundletui.errors import BundletuiError
from bundletui.store.changes import BUNDLE, COORD, WORKFLOW, TreeRow
from bundletui.tui.backend import Initial, Poll
from bundletui.tui.model import KIND_NAME, Op
from bundletui.tui.screen_state import ScreenState
from bundletui.tui.widgets import JobTree, Lost, Pane


class PollingMixin(ScreenState):
    """The first load, polls and lazy children of :class:`~bundletui.tui.app.MainScreen`."""

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
        self.backend.applied(poll)
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

    def action_poll_now(self) -> None:
        self.start_poll(force=True)

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


def freeze_garbage() -> None:
    """Move what exists now (schemas, stylesheets, the engine's caches: a million objects)
    out of the collector's reach. A full collection over them takes ~100 ms, which would
    freeze the screen whenever it ran; objects made from now on are collected as usual."""
    gc.freeze()

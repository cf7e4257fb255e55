"""What the cursor is on, and the panes that follow it: the details pane, and the bottom pane
(a coordinator's action table, paged and sorted in SQL; a log tail; a job's audit rows)."""

from __future__ import annotations

import contextlib
from typing import Any

from rich.text import Text
from textual import on
from textual.events import DescendantFocus
from textual.widgets import ContentSwitcher, DataTable, Input, Log, Tree

from bundletui.errors import BundletuiError
from bundletui.model.status import has_ended
from bundletui.store.changes import ACTION, COORD, NODE, WORKFLOW, TreeRow
from bundletui.tui import details as pages
from bundletui.tui.backend import read_tail
from bundletui.tui.labels import audit_text
from bundletui.tui.model import MORE, Item
from bundletui.tui.screen_state import ScreenState
from bundletui.tui.widgets import ActionTable, Pane


class SelectionMixin(ScreenState):
    """The selection and its panes in :class:`~bundletui.tui.app.MainScreen`."""

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        self._sync_selection()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        if self.prompt_mode and self.focused is not self.query_one("#prompt", Input):
            # k9s: leaving the prompt (tab, a click) hides it; a filter stays applied. What
            # has focus now decides, not the event: a focus given just before the / (a click,
            # then / at once) arrives after the prompt took focus, and closed it, focus None
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
                    self.query_one("#audit", Pane).set(audit_text(rows) or "none yet")

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
                    lines.append(f"── {f.label(named=True)}")
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

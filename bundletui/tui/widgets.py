"""The main screen's widgets: header, job tree, action table, log tail."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Input, Static, Tree
from textual.widgets.tree import TreeNode

from bundletui.store.changes import ACTION, BUNDLE, COORD, Totals
from bundletui.tui import labels
from bundletui.tui.details import short_rfc822, short_times
from bundletui.tui.model import Add, ConsoleModel, Op, Relabel, Remove
from bundletui.tui.printable import printable, printable_text

# ----------------------------------------------------------------------------- prompt


class PromptInput(Input):
    """The ``/`` and ``:`` prompt. As k9s's: tab (and →, Input's own) accepts the suggestion;
    with ``history`` set (the ``:`` mode), ↑/↓ recall the lines typed this session."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "accept_suggestion", "Complete", show=False),
        Binding("up", "history(-1)", "Previous command", show=False),
        Binding("down", "history(1)", "Next command", show=False),
    ]

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.history: list[str] | None = None
        self._recalled = 0  # lines back from the draft (0: the line being typed)
        self._draft = ""

    def reset_history(self, history: list[str] | None) -> None:
        self.history = history
        self._recalled = 0
        self._draft = ""

    def action_accept_suggestion(self) -> None:
        if not self._suggestion or len(self._suggestion) <= len(self.value):
            raise SkipAction()  # nothing to complete: tab moves the focus, as elsewhere
        self.value = self._suggestion
        self.cursor_position = len(self.value)

    def action_history(self, step: int) -> None:
        if not self.history:
            raise SkipAction()
        if self._recalled == 0:
            self._draft = self.value
        self._recalled = min(max(self._recalled - step, 0), len(self.history))
        self.value = self.history[-self._recalled] if self._recalled else self._draft
        self.cursor_position = len(self.value)


# ----------------------------------------------------------------------------- header


@dataclass
class HeaderState:
    path: str
    engine: str
    engine_style: str
    server_time: str
    poll: str
    poll_style: str
    badges: list[tuple[str, str]]
    totals: Totals | None
    marked: int
    filter_text: str
    faults_only: bool
    engine_short: str = ""  # the engine's state alone, for a narrow header


def path_forms(path: str, home: str | None = None) -> list[str]:
    """Ways to show a store's path, longest first: in full, then its home directory (the
    ``--home`` an operator typed; ``~``-relative when under the user's home), then that with
    its middle cut (``/tmp/…/s1/home``), down to ``…/home``."""
    forms = [path]
    where = path.removesuffix("/bundletui.db") or path
    if home is None:
        try:
            home = str(Path.home())
        except (RuntimeError, KeyError):
            home = ""
    if home and home != "/" and (where == home or where.startswith(home + "/")):
        where = "~" + where[len(home) :]
    forms.append(where)
    parts = where.split("/")
    lead = parts[0] + "/" + parts[1] if where.startswith("/") and len(parts) > 1 else parts[0]
    first_kept = 2 if where.startswith("/") else 1
    for keep in range(len(parts) - first_kept - 1, 0, -1):
        forms.append(f"{lead}/…/{'/'.join(parts[-keep:])}")
    real = len(parts) - (1 if where.startswith("/") else 0)  # components, not the root's ""
    for keep in range(min(real - 1, 2), 0, -1):  # "…" stands for at least one of them
        forms.append(f"…/{'/'.join(parts[-keep:])}")
    out: list[str] = []
    for form in sorted(dict.fromkeys(forms), key=len, reverse=True):
        if not out or len(form) < len(out[-1]):  # only what saves room
            out.append(form)
    return out


class HeaderBar(Static):
    """Two lines: where and what (store, engine, time, poll age, badges), then counts."""

    DEFAULT_CSS = """
    HeaderBar { height: 2; background: $panel; color: $foreground; padding: 0 1; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__("", **kw)
        self._last: Text | None = None

    def show(self, state: HeaderState) -> None:
        # ``size`` is the content's, inside the padding (it had 2 cells taken off again)
        text = self.render_state(state, self.size.width or 78)
        if self._last is not None and text.plain == self._last.plain and text == self._last:
            return
        self._last = text
        self.update(text)

    @staticmethod
    def render_state(s: HeaderState, width: int) -> Text:
        right = Text()
        for badge, style in s.badges:
            right.append(f" {badge} ", style=style)
            right.append(" ")
        right.append(s.server_time)
        right.append("  ")
        right.append(s.poll, style=s.poll_style)
        room = width - right.cell_len - 2
        forms = path_forms(s.path) if s.path else []
        # narrow: the product name goes, then the engine's details (its state stays), then
        # the path is shortened (never to nothing while "…/<dir>" fits) — QA: at 80×24 the
        # store was not shown at all
        line1 = Text()
        short = s.engine_short or s.engine
        for brand, engine in (
            (True, s.engine),
            (False, s.engine),
            (False, short),
            (False, short.split(" (")[0]),  # "engine: active": its state, no more
        ):
            used = len("bundletui ") * brand + Text(engine).cell_len
            path = next((f for f in forms if Text(f).cell_len <= room - used - 2), None)
            if path is not None:
                break
        else:
            brand, engine, path = False, short, None
        if brand:
            line1.append("bundletui ", style="bold")
        shown = Text(engine, style=s.engine_style)
        if shown.cell_len > room:  # narrower still: the right side (time, poll, badges) wins
            shown.truncate(max(room - 1, 0), overflow="ellipsis")
        line1.append_text(shown)
        if path:
            line1.append("  ")
            line1.append(path, style="dim")
        line1.append(" " * max(width - line1.cell_len - right.cell_len, 1))
        line1.append_text(right)
        line1.truncate(width)
        line2 = Text()
        t = s.totals
        if t is not None:
            for title, counts, groups in (
                ("bundles", t.bundles, labels.JOB_COUNT_GROUPS),
                ("coords", t.coordinators, labels.JOB_COUNT_GROUPS),
                ("actions", t.actions, labels.COUNT_GROUPS),
            ):
                line2.append(f"{title} ", style="dim")
                counted = labels.counts_text(counts, groups)
                line2.append_text(counted if counted else Text("0", style="dim"))
                line2.append("  ")
            if t.workflows:
                line2.append("workflows ", style="dim")
                line2.append_text(labels.counts_text(t.workflows, labels.JOB_COUNT_GROUPS))
                line2.append("  ")
        if s.marked:
            line2.append(f" {s.marked} marked ", style="bold reverse")
            line2.append(" ")
        if s.faults_only:
            line2.append(" FAULTS ONLY ", style="bold red reverse")
            line2.append(" ")
        if s.filter_text:
            line2.append(f"/{s.filter_text}", style="bold yellow")
        line2.truncate(width)
        out = Text()
        out.append_text(line1)
        out.append("\n")
        out.append_text(line2)
        return out


# ----------------------------------------------------------------------------- tree


@dataclass(frozen=True)
class Lost:
    """The job under the cursor left the tree: where the cursor went (``to`` None: nowhere)."""

    id: str
    to: str | None
    how: str  # ancestor | row | none


class JobTree(Tree[str]):
    """The live tree. Nodes carry job ids; :meth:`apply` mirrors model operations in place."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.details", "Details", show=False),
        Binding("right", "expand_or_child", "Expand", show=False),
        Binding("left", "collapse_or_parent", "Collapse", show=False),
        Binding("j", "cursor_down", "Cursor down", show=False),  # vim / k9s
        Binding("k", "cursor_up", "Cursor up", show=False),
        # the first / last line, as in the action table and the views (Tree's own home and
        # end only scrolled, the cursor stayed where it was)
        Binding("home,g", "cursor_first", "First line", show=False),
        Binding("end,G", "cursor_last", "Last line", show=False),
    ]
    DEFAULT_CSS = """
    JobTree { width: 1fr; min-width: 30; border: round $primary 40%; padding: 0;
              overflow-x: hidden; }
    JobTree:focus { border: round $primary; }
    """

    def action_cursor_first(self) -> None:
        self.cursor_line = 0
        self.scroll_home(animate=False)

    def action_cursor_last(self) -> None:
        # the cursor alone left the view where it was, the line it selected below it (QA (p))
        self.cursor_line = self.last_line
        self.scroll_end(animate=False)

    def __init__(self, model: ConsoleModel, **kw: Any) -> None:
        super().__init__("jobs", **kw)
        self.model = model
        self.expanded: set[str] = set()  # by job id, so a node hidden and shown again keeps it
        self.stale: set[str] = set()  # labels to rebuild when their line is next drawn
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 2
        self.nodes: dict[str, TreeNode[str]] = {}
        self.border_title = "jobs"

    def get_label_width(self, node: TreeNode[str]) -> int:
        # cheaper than rendering the label (tui.md §3.3): the label plus the expand icon, no
        # wider than the tree (a longer label is cut to fit when drawn: no sideways scrolling)
        width = node._label.cell_len + 2
        room = self._label_room(node)
        return width if room is None else min(width, room + 2)

    def watch_show_vertical_scrollbar(self) -> None:
        # the scrollbar takes cells from every line: labels are measured and cut again
        self._invalidate()

    def _label_room(self, node: TreeNode[str]) -> int | None:
        """Cells the label of ``node`` has on its line: the tree's width less the guides and
        the expand icon (None before the tree has a size)."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return None
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        return max(width - depth * self.guide_depth - 2, 1)

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        """Labels are rebuilt lazily: a poll that changes a thousand jobs only marks them, and
        only the lines on screen pay for a new label. A label wider than its line is drawn
        with its name cut (the status and counts stay in sight)."""
        item_id = node.data
        item = self.model.items.get(item_id) if item_id is not None else None
        if item_id is not None and item_id in self.stale:
            self.stale.discard(item_id)
            if item is not None:
                node._label = self.process_label(labels.label(self.model, item))
        room = self._label_room(node)
        if item is None or room is None or node._label.cell_len <= room:
            return super().render_label(node, base_style, style)
        full = node._label
        node._label = self.process_label(labels.label(self.model, item, room))
        try:
            return super().render_label(node, base_style, style)
        finally:
            node._label = full

    def apply(self, ops: Iterable[Op]) -> Lost | None:
        """Apply model operations; says where the cursor went when its job vanished: to the
        nearest ancestor still shown, else to the row now in its place, else nowhere (the
        tree is empty: nothing is selected)."""
        cursor = self.cursor_node
        cursor_id = cursor.data if cursor is not None else None
        cursor_line = self.cursor_line
        lost: str | None = None
        chain: list[str] = []
        relabelled = False
        for op in ops:
            if isinstance(op, Relabel):
                node = self.nodes.get(op.id)
                if node is not None and op.id in self.model.items:
                    self.stale.add(op.id)
                    item = self.model.items[op.id]
                    if item.kind in (ACTION, COORD, BUNDLE):  # what may gain or lose children
                        node.allow_expand = self.model.expandable(op.id)
                    node._updates += 1  # the Tree's line cache key: its line draws again
                    relabelled = True
            elif isinstance(op, Add):
                item = self.model.items[op.id]
                parent = self.root if op.parent is None else self.nodes.get(op.parent)
                if parent is None:
                    continue
                before = self.nodes.get(op.before) if op.before else None
                if before is not None and before.parent is not parent:
                    before = None
                # a plain first label (what its width is measured by); the styled one with
                # counts is built when the line is first drawn
                node = parent.add(
                    Text(f"{printable(item.name)}  {item.status}"),
                    op.id,
                    before=before,
                    expand=op.id in self.expanded,
                    allow_expand=self.model.expandable(op.id),
                )
                self.stale.add(op.id)
                self.nodes[op.id] = node
            elif isinstance(op, Remove):
                node = self.nodes.get(op.id)
                if node is None:
                    continue
                if cursor_id is not None and lost is None and self._under(cursor, node):
                    lost = cursor_id
                    # its parents as the tree had them: an action that left the shown window
                    # is gone from the model, and so are the ancestors it would name
                    chain = self._chain(cursor)
                self._forget(node)
                node.remove()
        if relabelled:
            self.refresh()  # one repaint; only lines whose node changed render again
        if lost is None:
            return None
        _ = self._tree_lines  # rebuild now so line numbers are right
        ancestors = self.model.ancestors(lost) if lost in self.model.items else chain
        survivor = next((a for a in ancestors if a in self.nodes), None)
        if survivor is not None:
            self.move_cursor(self.nodes[survivor])  # and in sight
            return Lost(lost, survivor, "ancestor")
        # its whole branch left the view: the row that took its place, if any row is left
        last = self.last_line
        if last < 0:
            self.cursor_line = -1
            return Lost(lost, None, "none")
        self.cursor_line = min(max(cursor_line, 0), last)
        node = self.cursor_node
        if node is not None:  # a line number alone does not scroll: keep it in sight
            self.scroll_to_node(node, animate=False)
        return Lost(lost, node.data if node is not None else None, "row")

    def _chain(self, node: TreeNode[str] | None) -> list[str]:
        """The ids of ``node``'s parents in the tree, nearest first."""
        out: list[str] = []
        parent = node.parent if node is not None else None
        while parent is not None and parent is not self.root:
            if parent.data is not None:
                out.append(parent.data)
            parent = parent.parent
        return out

    def on_resize(self) -> None:
        # a smaller terminal left the cursor's line out of sight (QA (ag))
        node = self.cursor_node
        if node is not None:
            self.call_after_refresh(self.scroll_to_node, node, animate=False)

    @staticmethod
    def _under(node: TreeNode[str] | None, ancestor: TreeNode[str]) -> bool:
        while node is not None:
            if node is ancestor:
                return True
            node = node.parent
        return False

    def _forget(self, node: TreeNode[str]) -> None:
        if node.data is not None:
            self.nodes.pop(node.data, None)
        for child in node.children:
            self._forget(child)

    def _on_tree_node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        if event.node.data is not None:
            self.expanded.add(event.node.data)

    def _on_tree_node_collapsed(self, event: Tree.NodeCollapsed[str]) -> None:
        if event.node.data is not None:
            self.expanded.discard(event.node.data)

    def select_id(self, item_id: str) -> bool:
        node = self.nodes.get(item_id)
        if node is None:
            return False
        parent = node.parent
        while parent is not None and parent is not self.root:
            parent.expand()
            parent = parent.parent
        _ = self._tree_lines
        self.move_cursor(node)
        self.scroll_to_node(node, animate=False)
        return True

    def action_expand_or_child(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and not node.is_expanded:
            node.expand()
        elif node.children:
            self.move_cursor(node.children[0])

    def action_collapse_or_parent(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)


# ----------------------------------------------------------------------------- action table


class ActionTable(DataTable[Text | str]):
    """One page of the selected coordinator's actions, newest first (paged in SQL). Its
    columns are fitted to the pane (:func:`fit_columns`): the id and the status are never
    scrolled out of sight. :meth:`sort_by` chooses the order (k9s's ``shift-<letter>``), in
    which the pages are then read, over all the coordinator's actions; it holds for the next
    pages and polls until changed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Cursor down", show=False),  # vim / k9s
        Binding("k", "cursor_up", "Cursor up", show=False),
        # the first / last row, as in the log and text views (DataTable's home and end only
        # scroll sideways in a row table: the cursor stayed on its row)
        Binding("home,g", "scroll_top", "First row", show=False),
        Binding("end,G", "scroll_bottom", "Last row", show=False),
    ]
    DEFAULT_CSS = """
    ActionTable { height: 1fr; scrollbar-gutter: stable; }
    """
    # the page's own order (SQL: newest first) is the number, descending
    DEFAULT_SORT: ClassVar[tuple[str, bool]] = ("n", True)
    # column -> descending at the first press (the pages are read in that order)
    SORTS: ClassVar[dict[str, bool]] = {"n": True, "status": False}
    # fixed widths for the pane's width: nothing to measure per row, no shift between pages
    COLUMNS: ClassVar[list[tuple[str, str]]] = [
        ("#", "n"),
        ("nominal", "nominal"),
        ("status", "status"),
        ("workflow", "wf"),
        ("why / error", "why"),
    ]

    def __init__(self, **kw: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)
        self.coord_id: str | None = None
        self.page_offset = 1
        self.page_total = 0
        self.page_size = 50
        self.action_ids: list[str] = []
        self.widths: dict[str, int] = {}
        self.sort_key: tuple[str, bool] = self.DEFAULT_SORT  # (column, descending)
        self._page: tuple[dict[str, Any], Callable[[str], str]] | None = None
        self.digits = 4  # the widest action number of the coordinator shown

    def on_mount(self) -> None:
        self._fit(self.scrollable_content_region.width)

    def on_resize(self) -> None:
        keep = self.highlighted_id()
        if self._fit(self.scrollable_content_region.width) and self._page is not None:
            self._fill(*self._page, keep)

    def _fit(self, room: int, *, force: bool = False) -> bool:
        """Lay the columns out for ``room`` cells; says whether they changed."""
        # no size yet (or hidden): the widths it has, else a wide pane's (refitted on resize)
        digits = self.digits
        widths = fit_columns(room, digits) if room > 0 else self.widths or fit_columns(200, digits)
        if widths == self.widths and not force:
            return False
        self.widths = widths
        self.clear(columns=True)
        column, descending = self.sort_key
        for title, key in self.COLUMNS:
            if key in widths:
                shared = key == "wf" and "why" not in widths
                label = "workflow / why" if shared else title
                if key == column and self.sort_key != self.DEFAULT_SORT:  # k9s: ↑ / ↓
                    label += " ↓" if descending else " ↑"
                self.add_column(label, key=key, width=widths[key])
        return True

    def sort_by(self, column: str) -> tuple[str, bool]:
        """Sort by ``column`` (``n`` or ``status``; ties newest first); the same column again
        reverses it. The caller reads the page that holds the cursor's action in that order
        (rows are re-located by id, not by position)."""
        current, descending = self.sort_key
        first = self.SORTS[column]
        self.sort_key = (column, not descending if current == column else first)
        keep = self.highlighted_id()
        self._fit(self.scrollable_content_region.width, force=True)  # the arrow: new columns
        if self._page is not None:  # the rows as they were, until the sorted page comes
            self._fill(*self._page, keep)
        return self.sort_key

    def order_title(self) -> str:
        column, descending = self.sort_key
        if column == "n":
            return f"actions, {'newest' if descending else 'oldest'} first"
        return f"actions by status {'↓' if descending else '↑'}"

    def show_page(
        self,
        coord_id: str,
        data: dict[str, Any],
        alias: Callable[[str], str],
        keep: str | None = None,
    ) -> None:
        """Show a page; the cursor stays on its action (or goes to ``keep``) if it is there."""
        if keep is None and coord_id == self.coord_id:
            keep = self.highlighted_id()
        new_coord = coord_id != self.coord_id
        self.coord_id = coord_id
        self.page_offset = int(data.get("offset", 1))
        self.page_total = int(data.get("total", 0))
        self._page = (data, alias)
        # as wide as the coordinator's numbers go (not this page's: no shift between pages)
        widest = max([self.page_total, *(int(a["actionNumber"]) for a in data["actions"])])
        digits = max(len(str(widest)), 4)
        if digits > self.digits or (new_coord and digits != self.digits):
            self.digits = digits
            self._fit(self.scrollable_content_region.width, force=True)
        self._fill(data, alias, keep)

    def _fill(
        self, data: dict[str, Any], alias: Callable[[str], str], keep: str | None = None
    ) -> None:
        self.clear(columns=False)
        self.action_ids = []
        actions = list(data["actions"])  # in the table's order: read so
        # the cells the why / error text has: cut here, so that what tells rows apart stays
        # (the table itself would cut the end: every row "missing …/01/02/")
        room = self.widths.get("why") or self.widths.get("wf", 40)
        for a in actions:
            why = a.get("waitingFor") or {}
            reason = alias(why.get("detail") or "")
            if why.get("reason") == "constraint":
                # an event schedule's held job: the constraint and when it lifts come first
                # (the RFC 822 times cut that off in a narrow column: "held by time-window unt")
                reason = short_times(reason.removeprefix("held by "), a.get("nominalTime"))
            if why.get("checkHeld"):  # suspended, SAFEMODE: the inputs are not looked at now
                reason = str(why["checkHeld"])
            elif why.get("reason") == "inputs" and why.get("missing"):
                more = why.get("missingCount", 1) - 1
                extra = f" +{more}" if more > 0 else ""
                path = _partition(alias(why["missing"][0]))
                for prefix in ("missing ", ""):  # too narrow for both: the path wins
                    shown = fit_path(path, room - len(prefix) - len(extra))
                    if shown == path or shown.startswith("…/"):
                        break
                reason = f"{prefix}{shown}{extra}"
            if a.get("errorCode") or a.get("errorMessage"):
                message = alias(a.get("errorMessage") or "")
                reason = fit_error(labels.error_text(a.get("errorCode"), message), room)
            why = Text(reason, style="red" if a.get("errorCode") else "")
            workflow: Text | str = short_id(a.get("externalId") or "-", self.widths.get("wf", 40))
            cells: dict[str, Text | str] = {
                "n": str(a["actionNumber"]),
                # MM-dd HH:mm, or yyyy-MM-dd HH:mm when the column has room for the year
                "nominal": short_rfc822(a.get("nominalTime")).removesuffix("Z")[
                    0 if self.widths.get("nominal", 0) >= 16 else 5 :
                ],
                "status": labels.status_text(a["status"]),
                # without a why column of its own, why a row waits or failed says more than
                # the workflow id it does not have yet (or that failed)
                "wf": why if reason and "why" not in self.widths else workflow,
                "why": why,
            }
            self.add_row(*(cells[key] for key in self.widths), key=a["id"])
            self.action_ids.append(a["id"])
        last = min(self.page_offset + len(self.action_ids) - 1, self.page_total)
        self.border_subtitle = (
            f"{self.page_offset}-{last} of {self.page_total}  [ ] pages"
            if self.page_total
            else "no actions yet"
        )
        if keep is not None and keep in self.action_ids:
            self.move_cursor(row=self.action_ids.index(keep), animate=False)

    def show_nothing(self) -> None:
        """No coordinator selected: no rows (a stale page would contradict the header)."""
        self.coord_id = None
        self.page_offset = 1
        self.page_total = 0
        self.action_ids = []
        self._page = None
        self.clear(columns=False)
        self.border_subtitle = ""

    def highlighted_id(self) -> str | None:
        if not self.action_ids or self.cursor_row < 0 or self.cursor_row >= len(self.action_ids):
            return None
        return self.action_ids[self.cursor_row]


def fit_columns(room: int, digits: int = 4) -> dict[str, int]:
    """The action table's column widths for ``room`` cells (each column also takes 2 cells of
    padding), in display order. The number (``digits`` wide: a coordinator's 35,065th action
    read 3506), the status and a short workflow id always show; the nominal time and then
    why / error come in when they fit; what is left widens the id to name its user, why, the
    id in full (only when it all fits), the nominal time to show its year, then why again."""
    pad = 2
    widths = {"n": max(digits, 4), "status": 10, "wf": 11}

    def left() -> int:
        return room - sum(w + pad for w in widths.values())

    for key, width in (("nominal", 11), ("why", 16)):
        if left() >= width + pad:
            widths[key] = width
    widths["wf"] += max(min(left(), 17 - widths["wf"]), 0)
    if "why" in widths:
        widths["why"] += max(min(left(), 26 - widths["why"]), 0)
    if left() >= 40 - widths["wf"] or "why" not in widths:
        widths["wf"] += max(min(left(), 40 - widths["wf"]), 0)
    if "nominal" in widths and left() >= 5:  # the year: a yearly coordinator's rows differ by it
        widths["nominal"] = 16
    if "why" in widths:
        widths["why"] += max(left(), 0)
    return {key: widths[key] for _title, key in ActionTable.COLUMNS if key in widths}


def short_id(job_id: str, width: int) -> str:
    """A job id in ``width`` cells. A store's ids share their middle (the stamp, the system),
    so the middle parts go first and the sequence number and the kind stay:
    ``0000004-…-alice-W``, then ``0000004-…-W``; past that the end is cut."""
    if len(job_id) <= width:
        return job_id
    parts = job_id.split("-")
    for tail in range(len(parts) - 2, 0, -1):
        shorter = f"{parts[0]}-…-{'-'.join(parts[-tail:])}"
        if len(shorter) <= width:
            return shorter
    return job_id[: max(width - 1, 0)] + "…"


def _partition(path: str) -> str:
    """A done-flag path (``…/08/_SUCCESS``) names its directory: show the directory."""
    head, _, name = path.rstrip("/").rpartition("/")
    return head if name.startswith("_") and head else path


def fit_path(path: str, width: int) -> str:
    """A path in ``width`` cells, its end kept: ``…/01/02/10`` (the end of a path is what
    tells partitions apart), as many whole parts as fit, else the end of the last one."""
    if len(path) <= width:
        return path
    pieces = path.rstrip("/").split("/")
    for keep in range(len(pieces) - 1, 0, -1):
        shorter = "…/" + "/".join(pieces[-keep:])
        if len(shorter) <= width:
            return shorter
    return "…" + path[len(path) - max(width - 1, 0) :] if width > 1 else "…"


def fit_error(text: str, width: int) -> str:
    """An error in ``width`` cells, keeping what tells rows apart: its code, its first part
    (``node a``) and as many of its last ``: `` parts (what went wrong) as fit, the middle
    dropped (``error 3: node a: …: exit code 3``); then the code and the last parts; if
    none fits, the end is cut."""
    if len(text) <= width:
        return text
    parts = text.split(": ")
    for head in (2, 1):
        for tail in range(len(parts) - head - 1, 0, -1):
            shorter = ": ".join([*parts[:head], "…", *parts[-tail:]])
            if len(shorter) <= width:
                return shorter
    return text[: max(width - 1, 0)] + "…"


class Pane(Static):
    """A text pane that updates only when its text changed (no needless repaints)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        kw.setdefault("markup", False)  # its text holds job names: `x-[prod]` must stay
        super().__init__(*args, **kw)
        self._shown: Text | str | None = None

    def set(self, text: Text | str) -> None:
        if text == self._shown:
            return
        self._shown = text
        # job names, property values and error messages are a job's text: shown, not obeyed
        self.update(printable_text(text) if isinstance(text, Text) else printable(text))

"""What the tree shows, as against what the store holds: the filter, faults only, frozen
updates and marks, and esc, which clears them one at a time."""

from __future__ import annotations

from bundletui.tui.model import Op
from bundletui.tui.screen_state import ScreenState
from bundletui.tui.widgets import JobTree


class ViewStateMixin(ScreenState):
    """Filter, faults only, freeze and marks of :class:`~bundletui.tui.app.MainScreen`."""

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

    def action_quit(self) -> None:
        self.app.exit()


def _relabel(item_id: str) -> Op:
    from bundletui.tui.model import Relabel

    return Relabel(item_id)

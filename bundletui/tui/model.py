"""The console's model, without Textual: what the tree should show and which keys apply.

The tree widget mirrors :class:`ConsoleModel` through small operations (:class:`Add`,
:class:`Remove`, :class:`Relabel`) computed here by id, so a poll never rebuilds the tree: a
changed job is relabelled, a new one inserted before its next sibling, a vanished one removed.
Filter and faults-only are projections of the same model (a match keeps its ancestors), so they
use the same diff. Everything here is plain data and unit-testable.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from bundletui.model.clock import from_ms
from bundletui.model.status import (
    ACTION_ENDED_BADLY,
    JOB_PREP,
    NEEDS_OPERATOR,
    takes_pause_time,
)
from bundletui.model.timeutil import format_oozie_time
from bundletui.model.transitions import Event, Machine, allowed, sources
from bundletui.store.changes import ACTION, BUNDLE, COORD, NODE, WORKFLOW, Changes, TreeRow

MORE = "more"

# Statuses the faults-only view keeps (and their ancestors), and a coordinator's action counts
# that make it one.
FAULTS = NEEDS_OPERATOR
ACTION_FAULTS = ACTION_ENDED_BADLY
_SECTION = {BUNDLE: 0, COORD: 1, WORKFLOW: 2}
KIND_NAME = {
    BUNDLE: "bundle",
    COORD: "coordinator",
    ACTION: "action",
    WORKFLOW: "workflow",
    NODE: "workflow node",
    MORE: "placeholder",
}


@dataclass
class Item:
    row: TreeRow
    counts: dict[str, int] = field(default_factory=dict)
    children: list[str] | None = None  # loaded children, in order; None = not loaded yet
    total: int = 0  # coordinators: actions in the store

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def kind(self) -> str:
        return self.row.kind

    @property
    def status(self) -> str:
        return self.row.status

    @property
    def name(self) -> str:
        return self.row.name


@dataclass(frozen=True)
class Add:
    id: str
    parent: str | None
    before: str | None  # the sibling to insert before; None = append


@dataclass(frozen=True)
class Remove:
    id: str


@dataclass(frozen=True)
class Relabel:
    id: str


Op = Add | Remove | Relabel


def more_id(coord_id: str) -> str:
    return f"{coord_id}#more"


class ConsoleModel:
    """The loaded part of the job tree plus the view state (filter, faults-only, marks)."""

    def __init__(self, action_limit: int = 200) -> None:
        self.action_limit = action_limit
        self.items: dict[str, Item] = {}
        self.roots: list[str] = []
        self.shown: dict[str | None, list[str]] = {}  # what the tree holds, by parent
        self.in_tree: set[str] = set()
        self.owner: dict[str, str] = {}  # workflow id -> the item its nodes hang under
        self.marks: set[str] = set()
        self.filter_text = ""
        self.faults_only = False
        self._visible: set[str] | None = None

    # ------------------------------------------------------------------ structure

    def tree_parent(self, item_id: str) -> str | None:
        item = self.items[item_id]
        row = item.row
        if row.kind == NODE:
            return self.owner.get(row.parent or "")
        if row.kind in (BUNDLE, WORKFLOW):
            return None
        if row.kind == COORD:
            return row.parent if row.parent in self.items else None
        return row.parent  # action, placeholder

    def children(self, parent: str | None) -> list[str]:
        if parent is None:
            return self.roots
        item = self.items.get(parent)
        return (item.children or []) if item is not None else []

    def ancestors(self, item_id: str) -> list[str]:
        out: list[str] = []
        parent = self.tree_parent(item_id)
        while parent is not None:
            out.append(parent)
            parent = self.tree_parent(parent)
        return out

    def expandable(self, item_id: str) -> bool:
        item = self.items[item_id]
        if item.kind == BUNDLE:
            return bool(item.children)
        if item.kind == COORD:
            return item.total > 0 or bool(item.children)
        if item.kind == ACTION:
            return item.row.link is not None
        return item.kind == WORKFLOW

    def needs_load(self, item_id: str) -> bool:
        item = self.items.get(item_id)
        return item is not None and item.children is None and self.expandable(item_id)

    def _key(self, item_id: str) -> tuple[int, int, str]:
        row = self.items[item_id].row
        if row.kind == MORE:
            return (0, -(1 << 62), item_id)
        return (_SECTION.get(row.kind, 0), row.order, item_id)

    def _insert(self, siblings: list[str], item_id: str) -> None:
        if item_id not in siblings:
            bisect.insort(siblings, item_id, key=self._key)

    def _put(self, row: TreeRow) -> Item:
        item = self.items.get(row.id)
        if item is None:
            item = self.items[row.id] = Item(row)
        else:
            item.row = row
        if row.kind == ACTION and row.link:
            self.owner[row.link] = row.id
        if row.kind == WORKFLOW and row.parent is None:
            self.owner[row.id] = row.id
        return item

    # ------------------------------------------------------------------ loading

    def load_top(
        self,
        top: Iterable[TreeRow],
        coordinators: Iterable[TreeRow],
        counts: dict[str, dict[str, int]],
    ) -> list[Op]:
        """The first two levels: bundles (with their coordinators), lone coordinators, lone
        workflows."""
        for row in top:
            self._put(row)
            if row.kind == BUNDLE:
                self.items[row.id].children = []
        for row in coordinators:
            self._put(row)
        for item in list(self.items.values()):
            if item.kind == COORD:
                self._set_counts(item, counts.get(item.id, {}))
                parent = self.tree_parent(item.id)
                if parent is not None:
                    siblings = self.items[parent].children
                    assert siblings is not None
                    self._insert(siblings, item.id)
                    continue
            if self.tree_parent(item.id) is None:
                self._insert(self.roots, item.id)
        return self._refresh_all()

    def top_ids(self) -> set[str]:
        """The jobs of the tree's top two levels (what a purge may take out of it)."""
        return {
            item.id
            for item in self.items.values()
            if (item.kind in (BUNDLE, COORD, WORKFLOW) and item.row.parent is None)
            or (item.kind == COORD and item.row.parent in self.items)
        }

    def forget(self, gone: set[str]) -> None:
        """Drop these top-level jobs (purged from the store), with all under them;
        :meth:`load_top` then brings the tree in line."""
        for item_id in gone & self.top_ids():
            item = self.items.get(item_id)
            if item is None:  # went with its bundle
                continue
            parent = item.row.parent
            siblings = self.roots if parent is None else self.items[parent].children
            if siblings is not None and item_id in siblings:
                siblings.remove(item_id)
            if self.owner.get(item_id) == item_id:
                del self.owner[item_id]
            self._drop(item_id)

    def set_children(
        self, parent_id: str, rows: Iterable[TreeRow], total: int | None = None
    ) -> list[Op]:
        """Children loaded on expand (a coordinator's newest actions, a workflow's nodes)."""
        if parent_id not in self.items:
            return []
        self._replace_children(parent_id, rows, total)
        if self._filtering():
            return self._refresh_all()
        return self._refresh(parent_id)

    def _replace_children(self, parent_id: str, rows: Iterable[TreeRow], total: int | None) -> None:
        parent = self.items[parent_id]
        old = set(parent.children or [])
        kids: list[str] = []
        for row in rows:
            self._put(row)
            kids.append(row.id)
        for gone in old - set(kids):
            if self.items.get(gone) is not None and self.items[gone].kind != MORE:
                self._drop(gone)
        parent.children = []
        for kid in kids:
            self._insert(parent.children, kid)
        if total is not None:
            parent.total = total
        self._sync_more(parent)

    def _drop(self, item_id: str) -> None:
        item = self.items.pop(item_id, None)
        if item is None:
            return
        for kid in item.children or []:
            self._drop(kid)
        self.marks.discard(item_id)
        if item.kind == ACTION and item.row.link and self.owner.get(item.row.link) == item_id:
            del self.owner[item.row.link]

    def _sync_more(self, coord: Item) -> None:
        if coord.kind != COORD or coord.children is None:
            return
        mid = more_id(coord.id)
        loaded = sum(1 for c in coord.children if c != mid)
        missing = coord.total - loaded
        if missing > 0:
            self.items[mid] = Item(
                TreeRow(MORE, mid, coord.id, f"{missing} earlier", "", 0, 0), total=missing
            )
            self._insert(coord.children, mid)
        else:
            self.items.pop(mid, None)
            if mid in coord.children:
                coord.children.remove(mid)

    def _set_counts(self, coord: Item, counts: dict[str, int]) -> None:
        coord.counts = dict(counts)
        coord.total = sum(counts.values())

    # ------------------------------------------------------------------ polls

    def apply(
        self,
        changes: Changes,
        counts: dict[str, dict[str, int]] | None = None,
        reloaded: dict[str, tuple[list[TreeRow], int]] | None = None,
    ) -> tuple[list[Op], list[str]]:
        """A poll's rows, counts and re-listed children; returns the tree operations and the
        ids whose children must be loaded again (an action that launched a new workflow)."""
        touched: set[str | None] = set()
        relabel: set[str] = set()
        reload: list[str] = []
        for row in changes.rows:
            if row.kind == WORKFLOW and row.parent is not None:
                continue  # an action's or a sub-workflow: its nodes hang under the action
            existing = self.items.get(row.id)
            if existing is not None:
                old_link = existing.row.link
                self._put(row)
                if row.kind == ACTION and old_link != row.link:
                    if old_link and self.owner.get(old_link) == row.id:
                        del self.owner[old_link]
                    if existing.children is not None:
                        for kid in existing.children:
                            self._drop(kid)
                        existing.children = None
                        touched.add(row.id)
                        reload.append(row.id)
                relabel.add(row.id)
                continue
            if row.kind == NODE:
                owner = self.owner.get(row.parent or "")
                if owner is None or self.items[owner].children is None:
                    continue
            elif row.kind == ACTION:
                coord = self.items.get(row.parent or "")
                if coord is None or coord.children is None:
                    continue
            elif row.kind == COORD and row.parent is not None:
                bundle = self.items.get(row.parent)
                if bundle is None:
                    continue
            item = self._put(row)
            parent = self.tree_parent(item.id)
            if row.kind == BUNDLE:
                item.children = []
            siblings = self.roots if parent is None else self.items[parent].children
            if siblings is None:
                continue
            self._insert(siblings, item.id)
            touched.add(parent)
            if parent is not None:
                relabel.add(parent)
        for coord_id, c in (counts or {}).items():
            coord = self.items.get(coord_id)
            if coord is None:
                continue
            if coord.counts != c:
                self._set_counts(coord, c)
                relabel.add(coord_id)
                if coord.row.parent in self.items:
                    relabel.add(coord.row.parent)
                if coord.children is not None:
                    self._sync_more(coord)
                    touched.add(coord_id)
                    relabel.add(more_id(coord_id))
        for coord_id, (rows, total) in (reloaded or {}).items():
            coord = self.items.get(coord_id)
            if coord is None or coord.children is None:
                continue
            self._replace_children(coord_id, rows, total)
            touched.add(coord_id)
        if self._filtering():
            ops = self._refresh_all()
        else:
            ops = []
            for parent in touched:
                ops += self._refresh(parent)
        added = {op.id for op in ops if isinstance(op, Add)}
        ops += [Relabel(i) for i in sorted(relabel) if i in self.in_tree and i not in added]
        return ops, reload

    # ------------------------------------------------------------------ view state

    def _filtering(self) -> bool:
        return bool(self.filter_text) or self.faults_only

    def set_filter(self, text: str) -> tuple[list[Op], list[str]]:
        """Keep matches, their ancestors and (for a text match) their descendants; returns the
        operations and the ancestors to expand so every match can be seen."""
        self.filter_text = text.strip().lower()
        ops = self._refresh_all()
        return ops, self._to_expand()

    def set_faults_only(self, on: bool) -> tuple[list[Op], list[str]]:
        self.faults_only = on
        ops = self._refresh_all()
        return ops, self._to_expand()

    def _to_expand(self) -> list[str]:
        if not self._filtering() or self._visible is None:
            return []
        out: set[str] = set()
        for item_id in self._visible:
            if self._self_match(self.items[item_id]):
                out.update(self.ancestors(item_id))
        return sorted(out, key=lambda i: len(self.ancestors(i)))

    def haystack(self, item: Item) -> str:
        row = item.row
        text = f"{row.name} {row.id} {row.status}"
        if row.nominal is not None:
            text += f" {format_oozie_time(from_ms(row.nominal))}"
        return text.lower()

    def is_fault(self, item: Item) -> bool:
        if item.status in FAULTS:
            return True
        return item.kind == COORD and any(item.counts.get(s) for s in ACTION_FAULTS)

    def _self_match(self, item: Item) -> bool:
        if item.kind == MORE:
            return False
        if self.faults_only and not self.is_fault(item):
            return False
        return (
            not self.filter_text
            or self.filter_text in self.haystack(item)
            or self._counts_match(item)
        )

    def _counts_match(self, item: Item) -> bool:
        """A coordinator whose actions are not loaded (collapsed) matches a status filter by
        its counts, as the faults view goes by them: ``/waiting`` finds the coordinators to
        open. Its loaded actions are matched one by one instead."""
        if item.kind != COORD or item.children is not None:
            return False
        return any(n and self.filter_text in status.lower() for status, n in item.counts.items())

    def _compute_visible(self) -> set[str] | None:
        if not self._filtering():
            return None
        visible: set[str] = set()

        def walk(item_id: str, ancestor_text: bool) -> bool:
            item = self.items[item_id]
            text_ok = bool(self.filter_text) and self.filter_text in self.haystack(item)
            fault_ok = not self.faults_only or self.is_fault(item)
            seen = False
            for kid in item.children or []:
                if walk(kid, ancestor_text or text_ok):
                    seen = True
            if item.kind == MORE:
                show = ancestor_text and not self.faults_only
            else:
                show = self._self_match(item) or (ancestor_text and fault_ok) or seen
            if show:
                visible.add(item_id)
            return show

        for root in self.roots:
            walk(root, False)
        return visible

    def visible(self, item_id: str) -> bool:
        return self._visible is None or item_id in self._visible

    def hidden_count(self, ids: Iterable[str]) -> int:
        return sum(1 for i in ids if not self.visible(i))

    # ------------------------------------------------------------------ diffing

    def _refresh_all(self) -> list[Op]:
        self._visible = self._compute_visible()
        return self._reconcile(None, deep=True)

    def _refresh(self, parent: str | None) -> list[Op]:
        if parent is not None and parent not in self.in_tree:
            return []
        return self._reconcile(parent, deep=False)

    def _reconcile(self, parent: str | None, *, deep: bool) -> list[Op]:
        """Bring what the tree holds under ``parent`` in line with the model; ``deep`` also
        checks the subtrees of children already there (new children are always filled)."""
        desired = [c for c in self.children(parent) if c in self.items and self.visible(c)]
        current = self.shown.get(parent, [])
        keep = set(desired)
        ops: list[Op] = []
        for gone in current:
            if gone not in keep:
                ops.append(Remove(gone))
                self._forget(gone)
        present = {c for c in current if c in keep}
        nxt: str | None = None
        adds: list[tuple[str, str | None]] = []
        for kid in reversed(desired):
            if kid not in present:
                adds.append((kid, nxt))
            else:
                # before the next kid already in the tree: a run of new ones goes in, in order,
                # before it (the immediate next one may itself be new and not added yet)
                nxt = kid
        self.shown[parent] = list(desired)
        for kid, before in reversed(adds):
            ops.append(Add(kid, parent, before))
            self.in_tree.add(kid)
        for kid in desired:
            if kid not in present or (deep and (self.items[kid].children or kid in self.shown)):
                ops += self._reconcile(kid, deep=deep)
        return ops

    def _forget(self, item_id: str) -> None:
        self.in_tree.discard(item_id)
        for kid in self.shown.pop(item_id, []):
            self._forget(kid)

    # ------------------------------------------------------------------ marks

    def counts_of(self, coord_id: str) -> dict[str, int]:
        item = self.items.get(coord_id)
        return dict(item.counts) if item is not None else {}

    def toggle_mark(self, item_id: str) -> bool:
        if item_id in self.marks:
            self.marks.discard(item_id)
            return False
        self.marks.add(item_id)
        return True

    def marked_items(self) -> list[Item]:
        return [self.items[i] for i in sorted(self.marks) if i in self.items]


# ----------------------------------------------------------------------------- key availability


@dataclass(frozen=True)
class Availability:
    """Whether a key applies: ``enabled``, ``greyed`` (shown, says why when pressed) or
    ``hidden`` (read-only mode)."""

    state: Literal["enabled", "greyed", "hidden", "absent"]
    reason: str = ""

    @property
    def enabled(self) -> bool:
        return self.state == "enabled"


ENABLED = Availability("enabled")
DESTRUCTIVE = frozenset({"suspend", "resume", "pause", "kill", "rerun", "mark", "submit"})
BULK = frozenset({"suspend", "resume", "kill"})
_MACHINE = {BUNDLE: Machine.BUNDLE, COORD: Machine.COORDINATOR, WORKFLOW: Machine.WORKFLOW}
_EVENT = {"suspend": Event.SUSPEND, "resume": Event.RESUME, "kill": Event.KILL}


def _grey(reason: str) -> Availability:
    return Availability("greyed", reason)


def availability(
    action: str,
    item: Item | None,
    *,
    read_only: bool = False,
    marked: list[Item] | None = None,
    coord_status: str | None = None,
) -> Availability:
    """May ``action`` run on the selection (or on the marked jobs)? With the reason if not.

    ``coord_status``: for an action, its coordinator's status as the tree has it (None when
    not known): an action is rerun through its coordinator, which must take a rerun too."""
    if read_only and action in DESTRUCTIVE:
        return Availability("hidden", f"{action}: the console is read-only")
    if marked and action in BULK:
        ok = [m for m in marked if availability(action, m).enabled]
        if ok:
            return ENABLED
        return _grey(f"{action}: none of the {len(marked)} marked jobs can be {past_tense(action)}")
    if action in ("filter", "faults", "freeze", "help", "command", "quit", "submit"):
        return ENABLED
    if item is None or item.kind == MORE:
        if item is not None and action in ("details", "describe", "definition"):
            return _grey(f"{action}: page through these actions in the action table")
        return _grey(f"{action}: nothing selected")
    kind, status = item.kind, item.status
    what = f"{KIND_NAME[kind]} is {status}"
    if action in ("details", "describe", "definition"):
        return ENABLED
    if action == "mark":
        if kind == NODE:
            return _grey("mark: workflow nodes cannot be marked; mark the action or workflow")
        return ENABLED
    if action == "logs":
        if kind in (NODE, WORKFLOW):
            return ENABLED
        if kind == ACTION:
            if item.row.link:
                return ENABLED
            return _grey(f"logs: action is {status} and has launched no workflow yet")
        return _grey(f"logs: a {KIND_NAME[kind]} has no logs of its own; select an action")
    if action in ("suspend", "resume"):
        event = _EVENT[action]
        if kind in _MACHINE:
            if allowed(_MACHINE[kind], status, event):
                return ENABLED
            if action == "resume" and allowed(_MACHINE[kind], status, Event.UNPAUSE):
                # a pause time holds it, not a suspend: say which key lifts that
                return _grey(f"resume: {what}: its pause time holds it; p moves or clears it")
            return _grey(f"{action}: {what}")
        if kind == ACTION:  # its workflow, which it follows: as the command, by the table
            if allowed(Machine.ACTION, status, event) and item.row.link:
                return ENABLED
            want = " or ".join(sorted(sources(Machine.ACTION, event)))  # the table's sources
            return _grey(
                f"{action}: {what} (only a {want} action's workflow can be {past_tense(action)})"
            )
        return _grey(
            f"{action}: a workflow node cannot be {past_tense(action)}; select its workflow"
        )
    if action == "kill":
        if kind in _MACHINE:
            return (
                ENABLED if allowed(_MACHINE[kind], status, Event.KILL) else _grey(f"kill: {what}")
            )
        if kind == ACTION:
            return (
                ENABLED if allowed(Machine.ACTION, status, Event.KILL) else _grey(f"kill: {what}")
            )
        return _grey("kill: a workflow node cannot be killed on its own; kill its workflow")
    if action == "rerun":
        if kind in (BUNDLE, WORKFLOW):
            machine = _MACHINE[kind]
            return ENABLED if allowed(machine, status, Event.RERUN) else _grey(f"rerun: {what}")
        if kind == ACTION:
            if not allowed(Machine.ACTION, status, Event.RERUN):
                return _grey(f"rerun: {what} (only a finished action can be rerun)")
            if coord_status is not None and not _coord_reruns(coord_status):
                return _grey(
                    f"rerun: its coordinator is {coord_status} ({_a(coord_status)} coordinator's"
                    " actions cannot be rerun)"
                )
            return ENABLED
        if kind == COORD:
            if not _coord_reruns(status):  # the table the command decides by
                if status in JOB_PREP:
                    return _grey(f"rerun: {what}: no actions to rerun")
                if status == "IGNORED":  # the command's hint
                    return _grey(f"rerun: {what}: bring it back first (change status=RUNNING)")
                return _grey(f"rerun: {what} ({_a(status)} coordinator's actions cannot be rerun)")
            # an action the command reruns when named (a SKIPPED one too)
            if not any(
                n and allowed(Machine.ACTION, s, Event.RERUN) for s, n in item.counts.items()
            ):
                return _grey("rerun: coordinator has no finished actions yet")
            return ENABLED
        return _grey("rerun: select the node's workflow (rerun it with skip or failed nodes)")
    if action == "pause":
        if kind in (BUNDLE, COORD):
            # as ``bundletui change ID --value pausetime=…`` takes it: a coordinator that
            # SUCCEEDED, FAILED or DONEWITHERROR still does, a bundle only until it has ended
            if takes_pause_time(status, bundle=kind == BUNDLE):
                return ENABLED
            if kind == COORD:  # KILLED or IGNORED: E1016
                return _grey(f"pause: {what} (only status=RUNNING changes it)")
            return _grey(f"pause: {what}")
        return _grey(
            f"pause: a pause time belongs to bundles and coordinators, not {_a(KIND_NAME[kind])}"
        )
    return ENABLED


def _coord_reruns(status: str) -> bool:
    """A coordinator in ``status`` takes a rerun (of some of its actions)."""
    return allowed(Machine.COORDINATOR, status, Event.RERUN)


def _a(noun: str) -> str:
    """``a workflow`` / ``an action``."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def past_tense(action: str) -> str:
    return {"suspend": "suspended", "resume": "resumed", "kill": "killed"}.get(action, action)


@dataclass(frozen=True)
class Target:
    """A job as it was when a key was pressed: what a dialog shows and a command acts on."""

    id: str
    kind: str
    name: str
    status: str
    link: str | None = None
    event: bool = False  # an event schedule

    @classmethod
    def of(cls, item: Item) -> Target:
        return cls(item.id, item.kind, item.name, item.status, item.row.link, item.row.event)

    def describe(self) -> str:
        return f"{KIND_NAME[self.kind]} {self.name} ({self.status})"

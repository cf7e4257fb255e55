"""The main screen's keys: their tables, the key bar, which keys apply to the selection now (a
key that does not apply says why, lazygit's way), and the ``?`` help built from the same
tables."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.events import Key
from textual.widgets import ContentSwitcher, Input, Static

from bundletui.store.changes import ACTION, BUNDLE, COORD, NODE, WORKFLOW
from bundletui.tui import labels
from bundletui.tui.dialogs import HelpEntry, HelpScreen
from bundletui.tui.inputs import COMMANDS
from bundletui.tui.model import BULK, MORE, Availability, Item, availability
from bundletui.tui.screen_state import ScreenState

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


_KEY_ACTIONS: dict[str, str] = {}
for _key, _action, _title in JOB_KEYS + VIEW_KEYS:
    if _action in TARGETED:
        for _name in (_key, *KEY_ALIASES.get(_action, ())):
            _KEY_ACTIONS[_KEY_NAMES.get(_name, _name)] = _action


class KeysMixin(ScreenState):
    """Which keys apply now, the key bar and the help of
    :class:`~bundletui.tui.app.MainScreen` (the bindings are MainScreen's)."""

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

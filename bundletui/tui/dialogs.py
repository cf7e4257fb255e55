"""Modal dialogs: confirm (Cancel focused; type-to-confirm for bundle and bulk kills), pause
time (validated, relative forms, preview), rerun (its options per kind), help (runs what it
lists). A ModalScreen cuts the main screen's bindings, and the main screen does not apply polls
while one is open, so nothing moves under the operator."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.validation import Function
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Static,
)
from textual.widgets.option_list import Option

from bundletui.model.timeutil import format_oozie_time
from bundletui.tui.inputs import (
    PauseTime,
    check_action_scope,
    check_date_scope,
    parse_pause_time,
)
from bundletui.tui.model import KIND_NAME, Target

DIALOG_CSS = """
ConfirmDialog, PauseDialog, RerunDialog, HelpScreen { align: center middle; }
.dialog { width: 74; max-width: 100%; height: auto; max-height: 100%;
          border: thick $primary; background: $surface; padding: 0 1; }
.dialog.danger { border: thick $error; }
.dialog .title { text-style: bold; width: 100%; }
.dialog .ids { color: $text-muted; height: auto; max-height: 8; }
.dialog .note { color: $warning; }
.dialog .error { color: $error; height: auto; }
.dialog .buttons { height: auto; align-horizontal: right; margin-top: 1; }
.dialog .buttons Button { margin-left: 1; min-width: 10; }
.dialog .presets { height: auto; }
.dialog .presets { margin-top: 1; }
.dialog #preview, .dialog .note, .dialog .title { width: 100%; height: auto; }
.dialog .presets Button { margin-right: 1; min-width: 8; }
.dialog Input { margin: 0 0 0 2; width: 1fr; background: $boost; }
.dialog Checkbox, .dialog RadioSet { margin: 0 0 0 2; }
"""


def _ids(targets: list[Target], limit: int = 6) -> str:
    lines = [f"{KIND_NAME[t.kind]:<11} {t.id}" for t in targets[:limit]]
    if len(targets) > limit:
        lines.append(f"… and {len(targets) - limit} more")
    return "\n".join(lines)


class ConfirmDialog(ModalScreen[bool]):
    """Yes/no on named targets. Cancel has the focus; with ``type_to_confirm`` the operator
    must type that text before the action button works."""

    SCOPED_CSS = False
    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        verb: str,
        targets: list[Target],
        *,
        note: str = "",
        type_to_confirm: str | None = None,
        danger: bool = True,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.verb = verb
        self.targets = targets
        self.note = note
        self.type_to_confirm = type_to_confirm
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog danger" if self.danger else "dialog"):
            yield Label(self.title_text, classes="title", markup=False)
            yield Label(Text(_ids(self.targets)), classes="ids")
            if self.note:
                yield Label(self.note, classes="note", markup=False)
            if self.type_to_confirm is not None:
                yield Label(f"Type {self.type_to_confirm!r} to confirm:", markup=False)
                yield Input(placeholder=self.type_to_confirm, id="typed", compact=True)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(
                    self.verb,
                    id="ok",
                    variant="error" if self.danger else "primary",
                    disabled=self.type_to_confirm is not None,
                )

    def on_mount(self) -> None:
        # Cancel is the default; when a name must be typed, typing is the safety and the box
        # takes the focus (Enter does nothing until the text matches)
        if self.type_to_confirm is not None:
            self.query_one("#typed", Input).focus()
        else:
            self.query_one("#cancel", Button).focus()

    @on(Input.Changed, "#typed")
    def _typed(self, event: Input.Changed) -> None:
        self.query_one("#ok", Button).disabled = event.value.strip() != self.type_to_confirm

    @on(Input.Submitted, "#typed")
    def _typed_enter(self, event: Input.Submitted) -> None:
        if event.value.strip() == self.type_to_confirm:
            self.dismiss(True)
        else:  # QA: Enter on another name did nothing, and said nothing
            typed = f" ({event.value.strip()!r} does not match)" if event.value.strip() else ""
            self.notify(f"type {self.type_to_confirm!r} to confirm{typed}", severity="warning")

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)


class PauseDialog(ModalScreen[PauseTime | None]):
    """Set or clear a bundle's or coordinator's pause time.

    The box starts with the current pause time, so Enter on what is there changes nothing
    (nothing is sent, nothing audited). A new time typed and entered is the operator's
    explicit choice, as a name typed to confirm a kill; clearing is one too: the Clear button
    or the word ``clear``, never an emptied box (that would clear by accident)."""

    SCOPED_CSS = False
    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, target: Target, current: str | None, now: datetime) -> None:
        super().__init__()
        self.target = target
        self.current = current
        self.now = now

    def outcome(self, value: str) -> PauseTime | str | None:
        """What Enter on ``value`` does: a change to send, None (nothing changes) or why it
        cannot be used."""
        raw = value.strip()
        if raw == (self.current or ""):
            return None
        if not raw:
            return f"empty: press Clear (or type clear) to remove the pause time {self.current}"
        try:
            parsed = parse_pause_time(raw, self.now)
        except ValueError as exc:
            return str(exc)
        if parsed.when is None and self.current is None:
            return None  # no pause time to clear
        if self.current is not None and parsed.text == self.current:
            return None
        return parsed

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Pause time of {self.target.describe()}", classes="title", markup=False)
            yield Label(Text(_ids([self.target])), classes="ids")
            yield Label(
                f"current: {self.current or 'none'}    now: {format_oozie_time(self.now)} (UTC)"
            )
            yield Input(
                self.current or "",
                placeholder="yyyy-MM-ddTHH:mmZ  +2h  +1d6h  eod  clear",
                id="when",
                validators=[Function(lambda v: not isinstance(self.outcome(v), str), "see below")],
                valid_empty=self.current is None,
                compact=True,
            )
            yield Label(self._preview(self.current or ""), id="preview")
            with Horizontal(classes="presets"):
                yield Button("+1h", id="p1h", compact=True)
                yield Button("+1d", id="p1d", compact=True)
                yield Button("End of day", id="peod", compact=True)
                yield Button("Clear", id="pclear", compact=True)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Set", id="ok", variant="primary", disabled=True)

    def on_mount(self) -> None:
        box = self.query_one("#when", Input)
        box.focus()
        box.cursor_position = len(box.value)

    def _preview(self, value: str) -> Text:
        result = self.outcome(value)
        if result is None:
            if self.current is None:
                return Text(
                    "no pause time: type one (+2h, eod, a date), Enter sets it", style="dim"
                )
            return Text(
                "unchanged: Enter changes nothing; type a new time, or Clear to remove it",
                style="dim",
            )
        if isinstance(result, str):
            return Text(result, style="red")
        return Text(result.preview(), style="green")

    @on(Input.Changed, "#when")
    def _changed(self, event: Input.Changed) -> None:
        self.query_one("#preview", Label).update(self._preview(event.value))
        self.query_one("#ok", Button).disabled = not isinstance(
            self.outcome(event.value), PauseTime
        )

    @on(Input.Submitted, "#when")
    def _submitted(self, event: Input.Submitted) -> None:
        self._finish(event.value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        presets = {"p1h": "+1h", "p1d": "+1d", "peod": "eod", "pclear": "clear"}
        box = self.query_one("#when", Input)
        if event.button.id in presets:
            box.value = presets[event.button.id or ""]
            box.cursor_position = len(box.value)
            box.focus()
        elif event.button.id == "ok":
            self._finish(box.value)
        elif event.button.id == "cancel":
            self.dismiss(None)

    def _finish(self, value: str) -> None:
        result = self.outcome(value)
        if isinstance(result, str):
            self.notify(result, severity="error")
            return
        if result is None:
            self.notify("pause time unchanged: nothing sent")
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class RerunChoice:
    skip_nodes: list[str]
    failed_nodes: bool
    actions: str | None
    dates: str | None
    coordinators: str | None
    refresh: bool
    nocleanup: bool
    failed: bool

    def args(self) -> dict[str, Any]:
        return {
            "skip_nodes": self.skip_nodes or None,
            "failed_nodes": self.failed_nodes,
            "actions": self.actions,
            "dates": self.dates,
            "coordinators": self.coordinators,
            "refresh": self.refresh,
            "nocleanup": self.nocleanup,
            "failed": self.failed,
        }


class RerunDialog(ModalScreen[RerunChoice | None]):
    """Rerun with its options: a workflow's nodes, a coordinator's actions or dates, a
    bundle's coordinators or dates, an action's refresh / nocleanup / failed-only."""

    SCOPED_CSS = False
    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        target: Target,
        *,
        actions: str = "",
        coordinators: str = "",
        note: str = "",
        last_action: int | None = None,
    ) -> None:
        super().__init__()
        self.target = target
        self.prefill_actions = actions
        self.prefill_coordinators = coordinators
        self.note = note  # what else the rerun does (a suspended coordinator is resumed)
        self.last_action = last_action  # a coordinator's highest action number, when known

    def compose(self) -> ComposeResult:
        kind = self.target.kind
        # not a focus stop of its own: Tab from Cancel went to it, unseen (QA (p)); the field
        # that has the focus is scrolled into view all the same
        with VerticalScroll(classes="dialog danger", can_focus=False):
            yield Label(f"Rerun {self.target.describe()}", classes="title", markup=False)
            yield Label(Text(_ids([self.target])), classes="ids")
            if kind == "workflow":
                with RadioSet(id="mode", compact=True):
                    yield RadioButton("failed nodes only", value=True, id="m-failed", compact=True)
                    yield RadioButton("every node", id="m-all", compact=True)
                    yield RadioButton(
                        "every node but the succeeded ones named below:", id="m-skip", compact=True
                    )
                yield Input(placeholder="succeeded nodes to skip: a,b", id="skip", compact=True)
            if kind == "coord":
                yield Label("actions (numbers, e.g. 1,3-5) — prefilled with the failed ones")
                yield Input(self.prefill_actions, id="actions", compact=True)
                yield Label("or nominal dates (d1::d2,d3)")
                yield Input(
                    placeholder="2026-01-01T00:00Z::2026-01-02T00:00Z", id="dates", compact=True
                )
            if kind == "bundle":
                # the names as a hint, not a value: named coordinators are refused whole when
                # one cannot rerun, while dates alone pass over such a one (with a warning)
                yield Label("coordinators (names; empty with dates = all of them)")
                yield Input(
                    placeholder=self.prefill_coordinators or "names",
                    id="coordinators",
                    compact=True,
                )
                yield Label("nominal dates (d1::d2; empty = each named coordinator's whole range)")
                yield Input(
                    placeholder="2026-01-01T00:00Z::2026-01-02T00:00Z", id="dates", compact=True
                )
            if kind in ("coord", "action", "bundle"):
                yield Checkbox(
                    "refresh: re-resolve and re-check inputs", id="refresh", compact=True
                )
                yield Checkbox("nocleanup: keep output directories", id="nocleanup", compact=True)
            if kind in ("coord", "action"):
                yield Checkbox(
                    "failed: rerun only the failed nodes of each workflow",
                    id="failed",
                    compact=True,
                )
            if kind == "bundle":  # tui.md safety rule 4: a bundle-level rerun is typed
                yield Label(f"Type {self.target.name!r} to confirm:", markup=False)
                yield Input(placeholder=self.target.name, id="typed", compact=True)
            yield Label("", id="problem", classes="error", markup=False)
            yield Label("A rerun cannot be undone.", classes="note")
            if self.note:
                yield Label(self.note, classes="note", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Rerun", id="ok", variant="error")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def _value(self, selector: str) -> str:
        found = self.query(selector)
        return found.first(Input).value.strip() if found else ""

    def _checked(self, selector: str) -> bool:
        found = self.query(selector)
        return bool(found.first(Checkbox).value) if found else False

    def choice(self) -> RerunChoice | str:
        """The options, or why they cannot be used."""
        kind = self.target.kind
        skip: list[str] = []
        failed_nodes = False
        if kind == "workflow":
            mode = self.query_one("#mode", RadioSet).pressed_button
            mode_id = mode.id if mode is not None else "m-failed"
            failed_nodes = mode_id == "m-failed"
            if mode_id == "m-skip":
                skip = [s.strip() for s in self._value("#skip").split(",") if s.strip()]
                if not skip:
                    return "name the nodes to skip"
        actions = self._value("#actions") or None
        dates = self._value("#dates") or None
        coordinators = self._value("#coordinators") or None
        for problem in (  # the command's own parsers, its words
            check_action_scope(actions or "", self.last_action, self.target.id),
            check_date_scope(dates or ""),
        ):
            if problem:
                return problem
        if kind == "coord" and not actions and not dates:
            return "give action numbers or dates"
        if kind == "coord" and actions and dates:  # the command's E0302, in its words
            return (
                "E0302: Invalid parameter [both an action and a date scope]\n"
                "  hint: give action numbers or dates, not both"
            )
        if kind == "bundle" and not coordinators and not dates:
            return "give coordinator names, or dates for all of them"
        if kind == "bundle" and self._value("#typed") != self.target.name:
            return f"type {self.target.name!r} to confirm"
        return RerunChoice(
            skip,
            failed_nodes,
            actions,
            dates,
            coordinators,
            self._checked("#refresh"),
            self._checked("#nocleanup"),
            self._checked("#failed"),
        )

    @on(Input.Submitted, "#typed")
    def _typed_enter(self) -> None:
        """Enter in the type-to-confirm box reruns, as in the kill dialog's (it did nothing,
        and the keys typed next went into the box)."""
        self._ok()

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        result = self.choice()
        if isinstance(result, str):
            self.query_one("#problem", Label).update(result)
            return
        self.dismiss(result)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class HelpEntry:
    key: str
    description: str
    action: str | None  # what choosing it runs (None: a heading or a note)
    state: str = "enabled"  # enabled | greyed (does not apply now) | note (not a command)
    reason: str = ""


class HelpScreen(ModalScreen[str | None]):
    """``?``: every key for the selection (greyed ones say why), the ``:`` commands and the
    glyphs. Choosing a key's line runs it (lazygit's executable help)."""

    SCOPED_CSS = False
    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    HelpScreen .dialog { width: 90; height: 90%; }
    HelpScreen OptionList { height: 1fr; min-height: 3; border: none; }
    /* lines that cannot be chosen (keys of other views, headings) are not greyed: they work
       where they apply. A key greyed for the selection dims its own text and says why */
    HelpScreen OptionList > .option-list--option-disabled { color: $text; }
    HelpScreen .legend { width: 100%; height: auto; color: $text-muted; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close"),
        Binding("j", "line('down')", "Down", show=False),  # vim / k9s
        Binding("k", "line('up')", "Up", show=False),
    ]

    def __init__(self, entries: list[HelpEntry], footer: str = "") -> None:
        super().__init__()
        self.entries = entries
        self.footer = footer

    def compose(self) -> ComposeResult:
        options: list[Option | None] = []
        for i, e in enumerate(self.entries):
            if e.action is None:
                if i:
                    options.append(None)
                options.append(Option(Text(e.description, style="bold"), disabled=True))
                continue
            line = Text(f" {e.key:<10}", style="bold")
            line.append(e.description, style="dim" if e.state == "greyed" else "")
            if e.reason:
                line.append(f"  ({e.reason})", style="dim italic")
            options.append(Option(line, id=f"{i}", disabled=e.state != "enabled"))
        with Vertical(classes="dialog"):
            yield Label("bundletui console — keys (enter runs one)", classes="title")
            yield OptionList(*options, id="keys")
            if self.footer:
                yield Static(self.footer, classes="legend")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is None:
            return
        entry = self.entries[int(event.option.id)]
        self.dismiss(entry.action)

    def action_line(self, way: str) -> None:
        keys = self.query_one(OptionList)
        if way == "down":
            keys.action_cursor_down()
        else:
            keys.action_cursor_up()

    def action_close(self) -> None:
        self.dismiss(None)

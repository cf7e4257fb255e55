"""How jobs look: status text *and* colour (NO_COLOR keeps the text), counts as glyph+number;
and how the audit log's rows read."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from bundletui.commands.queries import one_line
from bundletui.model.clock import from_ms
from bundletui.store.changes import ACTION, BUNDLE, COORD, NODE, WORKFLOW
from bundletui.tui.model import MORE, ConsoleModel, Item
from bundletui.tui.printable import printable

STATUS_STYLE: dict[str, str] = {
    "SUCCEEDED": "green",
    "OK": "green",
    "RUNNING": "cyan",
    "RUNNINGWITHERROR": "yellow",
    "READY": "blue",
    "SUBMITTED": "blue",
    "PREP": "default",
    "WAITING": "default",
    "SUSPENDED": "magenta",
    "SUSPENDEDWITHERROR": "magenta",
    "PREPSUSPENDED": "magenta",
    "PAUSED": "magenta",
    "PAUSEDWITHERROR": "magenta",
    "PREPPAUSED": "magenta",
    "KILLED": "red",
    "FAILED": "bold red",
    "ERROR": "red",
    "DEPENDENT_FAILED": "red",
    "TIMEDOUT": "red",
    "DONEWITHERROR": "yellow",
    "SKIPPED": "dim",
    "IGNORED": "dim",
}

# Action counts, grouped: glyph, statuses, style. Glyphs are one cell wide.
COUNT_GROUPS: list[tuple[str, tuple[str, ...], str]] = [
    ("◷", ("WAITING",), "default"),
    ("»", ("READY", "SUBMITTED"), "blue"),
    ("▶", ("RUNNING",), "cyan"),
    ("‖", ("SUSPENDED",), "magenta"),
    ("✓", ("SUCCEEDED",), "green"),
    ("✗", ("FAILED", "KILLED", "TIMEDOUT"), "red"),
    ("⊘", ("SKIPPED", "IGNORED"), "dim"),  # not "-": "-1" read as minus one
]
# Bundle, coordinator and workflow statuses, grouped the same way for the header.
JOB_COUNT_GROUPS: list[tuple[str, tuple[str, ...], str]] = [
    ("◷", ("PREP",), "default"),
    ("▶", ("RUNNING", "RUNNINGWITHERROR"), "cyan"),
    ("‖", ("SUSPENDED", "SUSPENDEDWITHERROR", "PREPSUSPENDED", "PAUSED", "PAUSEDWITHERROR",
           "PREPPAUSED"), "magenta"),
    ("✓", ("SUCCEEDED",), "green"),
    ("✗", ("FAILED", "KILLED", "DONEWITHERROR"), "red"),
    ("⊘", ("IGNORED",), "dim"),
]  # fmt: skip
LEGEND = "◷ waiting  » ready/submitted  ▶ running  ‖ suspended  ✓ succeeded  ✗ failed/killed/timed out  ⊘ skipped/ignored"


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, "default"))


def error_text(code: object, message: object = None) -> str:
    """An error as the console says it: ``error 3: node a: …`` (the CLI prints ``Error : 3:
    node a: …``): a bare number read like a count (``FAILED 3``, ``why: 3 node a``). A code
    that is no number reads as one already: ``EB0802: …``."""
    code_s, message_s = str(code or "").strip(), printable(str(message or "").strip())
    if not code_s:
        return message_s
    if code_s.isdigit():
        code_s = f"error {code_s}"
    return f"{code_s}: {message_s}" if message_s else code_s


def counts_text(
    counts: dict[str, int], groups: list[tuple[str, tuple[str, ...], str]] | None = None
) -> Text:
    out = Text()
    for glyph, statuses, style in COUNT_GROUPS if groups is None else groups:
        n = sum(counts.get(s, 0) for s in statuses)
        if n:
            if out:
                out.append(" ")
            out.append(f"{glyph}{n}", style=style)
    return out


def short_time(ms: int | None) -> str:
    """``01-02T05:00`` (UTC): enough to tell actions apart in a 40-column tree."""
    return "-" if ms is None else f"{from_ms(ms):%m-%dT%H:%M}"


def bundle_counts(model: ConsoleModel, item: Item) -> dict[str, int]:
    """A bundle's actions by status: the sum over its coordinators."""
    total: dict[str, int] = {}
    for kid in item.children or []:
        coord = model.items.get(kid)
        if coord is None:
            continue
        for status, n in coord.counts.items():
            total[status] = total.get(status, 0) + n
    return total


# A name cut to fit the tree keeps at least this many cells (with its ellipsis).
MIN_NAME = 8
# When even that does not fit, count groups give way, least telling first: failures stay.
DROP_ORDER = ("⊘", "✓", "◷", "»", "‖", "▶")


def label(model: ConsoleModel, item: Item, width: int | None = None) -> Text:
    """One tree line: mark, name, STATUS, counts. With ``width`` (the cells the tree has for
    it), a line too long is made to fit so the status and the failure count stay in sight
    (tui.md §0: the status is always shown as text): the name is cut with an ellipsis, then
    the gaps narrow, then the counts give way (failures last; ``+N`` says how many actions
    they counted, when there is room for it), then the end is cut."""
    row = item.row
    head = Text()
    if item.id in model.marks:
        head.append("* ", style="bold reverse")
    if row.kind == MORE:
        head.append(f"… {item.total} earlier actions (action table)", style="dim italic")
        return _cut(head, width)
    name = Text(printable(row.name), style="" if row.kind == NODE else "bold")
    state = status_text(row.status)
    if row.pending and row.kind in (BUNDLE, COORD, ACTION):
        state.append(" …", style="dim")
    counts: dict[str, int] = {}
    if row.kind == COORD:
        counts = item.counts
    elif row.kind == BUNDLE:
        counts = bundle_counts(model, item)
    extra = Text()
    if row.pause_time is not None and row.kind in (BUNDLE, COORD):
        extra.append(f"  pause {short_time(row.pause_time)}", style="magenta")
    if row.kind == NODE and row.attempt > 1:
        extra.append(f" try {row.attempt}", style="yellow")
    if row.kind == WORKFLOW and row.error:
        extra.append(f" ({error_text(row.error)})", style="red")

    def line(
        gap: str, drop: tuple[str, ...] = (), with_extra: bool = True, marker: bool = True
    ) -> Text:
        out = Text()
        out.append_text(head)
        out.append_text(name)
        if row.kind == ACTION:
            out.append(f" {short_time(row.nominal)} ")
        else:
            out.append(" " if row.kind == NODE else gap)
        out.append_text(state)
        shown = [g for g in COUNT_GROUPS if g[0] not in drop]
        counted = counts_text(counts, shown) if counts else Text()
        hidden = sum(counts.get(s, 0) for g in COUNT_GROUPS if g[0] in drop for s in g[1])
        if hidden and marker:  # what gave way is said to be there: +N actions not shown
            counted.append(" " if counted else "")
            counted.append(f"+{hidden}", style="dim")
        if counted:
            out.append(gap)
            out.append_text(counted)
        if with_extra:
            out.append_text(extra)
        return out

    full = line("  ")
    if width is None or full.cell_len <= width:
        return full
    # the name gives way first, down to MIN_NAME cells
    room = width - (full.cell_len - name.cell_len)
    name.truncate(max(room, min(MIN_NAME, name.cell_len)), overflow="ellipsis")
    gap = "  "
    if line(gap, with_extra=False).cell_len > width:
        gap = " "
    drops = [DROP_ORDER[:n] for n in range(len(DROP_ORDER) + 1)]
    for drop in drops:
        if line(gap, drop, with_extra=False).cell_len <= width:
            return _cut(line(gap, drop), width)
    # no room for the +N even with every count but the failures gone: those and the status win
    for drop in drops:
        if line(gap, drop, with_extra=False, marker=False).cell_len <= width:
            break
    return _cut(line(gap, drop, marker=False), width)


def _cut(text: Text, width: int | None) -> Text:
    if width is not None and text.cell_len > width:
        text.truncate(max(width, 1), overflow="ellipsis")
    return text


def audit_text(rows: list[Any]) -> Text:
    """Audit rows, one a line: when, face, user, command, result, target, values, error."""
    out = Text()
    for r in rows:
        when = f"{from_ms(r.time):%m-%d %H:%M:%S}"
        out.append(f"{when} ", style="dim")
        out.append(f"{r.face:<7} {one_line(r.user):<8} {r.command:<8} ")
        out.append(r.result, style="green" if r.result == "ok" else "red")
        if r.target:
            out.append(f" {r.target}", style="dim")
        values = audit_values(r.args)
        if values:
            out.append(f" {values}")
        if r.error:
            out.append(f" {one_line(r.error)}", style="red")
        out.append("\n")
    return out


def audit_values(args: str | None) -> str:
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

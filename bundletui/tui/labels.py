"""How jobs look: status text *and* colour (NO_COLOR keeps the text), counts as glyph+number."""

from __future__ import annotations

from rich.text import Text

from bundletui.model.clock import from_ms
from bundletui.store.changes import ACTION, BUNDLE, COORD, NODE, WORKFLOW
from bundletui.tui.model import MORE, ConsoleModel, Item

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
    ("-", ("SKIPPED", "IGNORED"), "dim"),
]
# Bundle, coordinator and workflow statuses, grouped the same way for the header.
JOB_COUNT_GROUPS: list[tuple[str, tuple[str, ...], str]] = [
    ("◷", ("PREP",), "default"),
    ("▶", ("RUNNING", "RUNNINGWITHERROR"), "cyan"),
    ("‖", ("SUSPENDED", "SUSPENDEDWITHERROR", "PREPSUSPENDED", "PAUSED", "PAUSEDWITHERROR",
           "PREPPAUSED"), "magenta"),
    ("✓", ("SUCCEEDED",), "green"),
    ("✗", ("FAILED", "KILLED", "DONEWITHERROR"), "red"),
    ("-", ("IGNORED",), "dim"),
]  # fmt: skip
LEGEND = "◷ waiting  » ready/submitted  ▶ running  ‖ suspended  ✓ succeeded  ✗ failed/killed/timed out  - skipped/ignored"


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, "default"))


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


def label(model: ConsoleModel, item: Item) -> Text:
    """One tree line: mark, name, STATUS, counts."""
    row = item.row
    text = Text()
    if item.id in model.marks:
        text.append("* ", style="bold reverse")
    if row.kind == MORE:
        text.append(f"… {item.total} earlier actions (action table)", style="dim italic")
        return text
    if row.kind == ACTION:
        text.append(row.name, style="bold")
        text.append(f" {short_time(row.nominal)} ")
    elif row.kind == NODE:
        text.append(row.name)
        text.append(" ")
    else:
        text.append(row.name, style="bold")
        text.append("  ")
    text.append_text(status_text(row.status))
    if row.pending and row.kind in (BUNDLE, COORD, ACTION):
        text.append(" …", style="dim")
    counts: dict[str, int] = {}
    if row.kind == COORD:
        counts = item.counts
    elif row.kind == BUNDLE:
        counts = bundle_counts(model, item)
    if counts:
        text.append("  ")
        text.append_text(counts_text(counts))
    if row.pause_time is not None and row.kind in (BUNDLE, COORD):
        text.append(f"  pause {short_time(row.pause_time)}", style="magenta")
    if row.kind == NODE and row.attempt > 1:
        text.append(f" try {row.attempt}", style="yellow")
    if row.kind == WORKFLOW and row.error:
        text.append(f" {row.error}", style="red")
    return text

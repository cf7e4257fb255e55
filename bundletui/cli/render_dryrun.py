"""Human output of ``bundletui dryrun``: per coordinator, one line per action, 80 columns.

Small runs get a rich table; long ones (thousands of actions) a plain fixed-width listing,
which prints in a fraction of the time. Under the listing: the resolved workflow
configuration of the first action, as an example of what each action gets.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any

from rich.markup import escape
from rich.table import Table

from bundletui.cli._common import out

TABLE_LIMIT = 500  # more actions than this: a plain listing instead of a table


def _inputs(action: dict[str, Any]) -> str:
    parts = []
    for name, uris in action["data_in"].items():
        pending = sum(1 for u in uris if u.startswith("${"))
        parts.append(f"{name} {len(uris) - pending}" + (f"+{pending}?" if pending else ""))
    return ", ".join(parts) or "-"


def _outputs(action: dict[str, Any]) -> str:
    uris = [u for values in action["data_out"].values() for u in values]
    if not uris:
        return "-"
    return uris[0] + (f" (+{len(uris) - 1})" if len(uris) > 1 else "")


def _tail(text: str, width: int) -> str:
    """The end of a long URI (where its date is), behind an ellipsis."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def _missing(action: dict[str, Any]) -> str:
    if action["ready"]:  # with <input-logic>, absent paths an `or` does not need
        return "ready"
    return f"{len(action['missing_dependencies'])} missing"


def render_dryrun(result: dict[str, Any]) -> None:
    coordinators = result.get("coordinators", [])
    for index, coord in enumerate(coordinators):
        actions = coord["actions"]
        if index:
            out.print()
        span = f"{actions[0]['nominal_time']} .. {actions[-1]['nominal_time']}" if actions else ""
        out.print(
            f"[bold]Coordinator {escape(coord['name'])}[/bold]: {len(actions)} "
            f"action{'s' if len(actions) != 1 else ''} {span}".rstrip(),
            highlight=False,
        )
        for note in coord.get("notes", ()):  # its workflow cannot be read now
            lines = textwrap.wrap(
                note,
                max(out.width - 1, 40),
                initial_indent="  note: ",
                subsequent_indent=" " * 8,
                break_on_hyphens=False,  # a path is broken only when it is wider than a line
            )
            out.print("\n".join(lines), highlight=False, markup=False)
        events = coord.get("events")
        if events:  # event-triggered: actions come from events, not from nominal times
            out.print(f"  fires on: {events['trigger']}", highlight=False, markup=False)
            if events["constraints"]:
                held = ", ".join(events["constraints"])
                out.print(f"  held by:  {held}", highlight=False, markup=False)
            continue
        if not actions:
            out.print("  (no action materializes in this window)")
            continue
        if len(actions) <= TABLE_LIMIT:
            _table(actions)
        else:
            _listing(actions)
        first = actions[0]
        if first["conf"]:
            out.print(f"[bold]Workflow configuration[/bold] (action {first['number']}):")
            width = max(len(k) for k in first["conf"])
            for key, value in first["conf"].items():
                out.print(
                    f"  {key.ljust(width)} = {value}",
                    markup=False,
                    overflow="ellipsis",
                    no_wrap=True,
                )
        missing = first["missing_dependencies"]
        if missing:
            heading = (
                f"Absent for action {first['number']}, not needed by its input logic"
                if first["ready"]
                else f"Missing for action {first['number']}"
            )
            out.print(f"[bold]{heading}[/bold]:")
            for path in missing[:5]:
                out.print(f"  {path}", markup=False, overflow="ellipsis", no_wrap=True)
            if len(missing) > 5:
                out.print(f"  … {len(missing) - 5} more (see --json)")


def _table(actions: list[dict[str, Any]]) -> None:
    rows = [
        (str(a["number"]), a["nominal_time"], _inputs(a), _missing(a), _outputs(a)) for a in actions
    ]

    def width(i: int, cap: int) -> int:
        return min(max(len(r[i]) for r in rows), cap)

    widths = [max(width(0, 8), 1), 17, max(width(2, 20), 6), max(width(3, 12), 6)]
    rest = max(out.width - sum(widths) - 2 * len(widths), 10)  # two spaces between columns
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True, width=widths[0])
    table.add_column("Nominal time", no_wrap=True, width=widths[1])
    table.add_column("Inputs", overflow="ellipsis", no_wrap=True, width=widths[2])
    table.add_column("Status", no_wrap=True, width=widths[3])
    table.add_column("Output", overflow="ellipsis", no_wrap=True, max_width=rest)
    for number, nominal, inputs, status, output in rows:
        style = "green" if status == "ready" else "yellow"
        table.add_row(
            number,
            nominal,
            escape(inputs),
            f"[{style}]{status}[/{style}]",
            escape(_tail(output, rest)),
        )
    out.print(table)


def _listing(actions: list[dict[str, Any]]) -> None:
    out.file.flush()
    write = sys.stdout.write
    write(f"{'#':>6}  {'Nominal time':<17}  {'Inputs':<20}  {'Status':<11}  Output\n")
    for a in actions:
        line = (
            f"{a['number']:>6}  {a['nominal_time']:<17}  {_inputs(a)[:20]:<20}  {_missing(a):<11}  "
        )
        write(line + _tail(_outputs(a), 79 - len(line)) + "\n")
    sys.stdout.flush()

"""Human output for info/jobs: rich panels and tables over the same dicts --json prints."""

from __future__ import annotations

import sys
from typing import Any

from rich.table import Table
from rich.text import Text

from bundletui.cli._common import out, printable, styled
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.timeutil import parse_rfc822, year_first
from bundletui.store.db import Store


def short(rfc: str | None) -> str:
    """``Sat, 21 Nov 2026 06:58:20 GMT`` -> ``2026-11-21 06:58:20`` for narrow tables."""
    if not rfc:
        return "-"
    try:
        return year_first(parse_rfc822(rfc), seconds=True)
    except (TypeError, ValueError):
        return rfc


def clock(rfc: str | None) -> str:
    """``Sat, 21 Nov 2026 06:58:20 GMT`` -> ``06:58:20`` (node tables: the day is above)."""
    return short(rfc)[-8:] if rfc else "-"


def _text(value: str) -> Text:
    """A cell as plain text (no markup), its control characters made visible."""
    return Text(printable(value))


def _kv(title: str, rows: list[tuple[str, Any]]) -> None:
    out.print(f"[bold]{title}[/bold]", emoji=False)
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        out.print(
            f"  {key.ljust(width)} : {value if value not in (None, '') else '-'}",
            markup=key == "Status",
            emoji=False,
        )


def render_info(store: Store, job_id: str, data: dict[str, Any]) -> None:
    kind = kind_of(job_id)
    if kind is IdKind.WORKFLOW:
        _kv(
            f"Workflow {data['id']}",
            [
                ("Name", data["appName"]),
                ("App Path", data["appPath"]),
                ("Status", styled(data["status"]) + _suspend_mode(data.get("suspendMode"))),
                ("Run", data["run"]),
                ("User", data["user"]),
                ("Parent", data["parentId"]),
                ("External Id", data["externalId"]),
                ("Created", data["createdTime"]),
                ("Started", data["startTime"]),
                ("Ended", data["endTime"]),
                (
                    "Error",
                    f"{data['errorCode']}: {data['errorMessage']}"
                    if data.get("errorCode") or data.get("errorMessage")
                    else None,
                ),
            ],
        )
        # Names, types (":END:" is also an emoji code) and messages are data: Text cells, never
        # markup. Identifying columns never wrap; the free-text ones fold in a narrow terminal.
        table = Table(box=None, header_style="bold", padding=(0, 1, 0, 0), pad_edge=False)
        for col, fixed in (
            ("Node", True),
            ("Type", False),
            ("Status", True),
            ("Try", True),
            ("Exit", True),
            ("Transition", False),
            ("Started", True),
            ("Ended", True),
            ("Error", False),
        ):
            table.add_column(col, no_wrap=fixed, overflow="ellipsis" if fixed else "fold")
        for a in data["actions"]:
            table.add_row(
                _text(a["name"]),
                _text(a["type"]),
                styled(_node_status(a)),
                str(a["attempt"]),
                "-" if a["exitCode"] is None else str(a["exitCode"]),
                _text(a["transition"] or "-"),
                clock(a["startTime"]),
                clock(a["endTime"]),
                _text(_node_error(a)),
            )
        out.print(table)
        if "total" in data:  # a page of the nodes (--len / --offset)
            shown, first = len(data["actions"]), data["offset"]
            page = f"{first}-{first + shown - 1}" if shown else "none"
            out.print(f"Showing nodes {page} of {data['total']}", markup=False)
        return
    if kind is IdKind.WORKFLOW_NODE:
        _kv(
            f"Node {data['id']}",
            [
                ("Type", data["type"]),
                ("Status", styled(_node_status(data))),
                *([("Retry at", data["retryAt"])] if data["retryAt"] else []),
                # a sub-workflow's job id, a shell job's pid: where to look next
                ("External Id", data["externalId"]),
                ("Attempt", data["attempt"]),
                ("Exit code", data["exitCode"]),
                ("Transition", data["transition"]),
                ("Started", data["startTime"]),
                ("Ended", data["endTime"]),
                (
                    "Error",
                    f"{data['errorCode']}: {data['errorMessage']}" if data["errorCode"] else None,
                ),
                ("Captured", (data["data"] or "").strip().replace("\n", "; ")),
            ],
        )
        return
    from bundletui.cli.render_coord import render_coord_info

    render_coord_info(store, job_id, kind, data)


def _suspend_mode(mode: str | None) -> str:
    if mode == "freeze":
        return " (frozen: its running jobs are stopped, SIGSTOP, until resume)"
    if mode == "drain":
        return " (running jobs go on to their end; nothing new starts)"
    return ""


def _node_status(a: dict[str, Any]) -> str:
    """Our node status, or Oozie's USER_RETRY while it waits out its retry interval."""
    return str(a["status"] if a["status"] == "USER_RETRY" else a["nodeStatus"])


def _node_error(a: dict[str, Any]) -> str:
    text = f"{a['errorCode']}: {a['errorMessage']}" if a["errorCode"] else "-"
    return f"{text} (retry at {clock(a['retryAt'])})" if a.get("retryAt") else text


_JOB_COLUMNS = {
    # kind: (envelope, id key, name key, start key)
    "workflow": ("workflows", "id", "appName", "startTime"),
    "coordinator": ("coordinatorjobs", "coordJobId", "coordJobName", "startTime"),
    "bundle": ("bundlejobs", "bundleJobId", "bundleJobName", "kickoffTime"),
}


TABLE_LIMIT = 500  # more jobs than this: plain aligned lines instead of a Rich table


def _job_lines(jobs: list[dict[str, Any]], keys: tuple[str, str, str], *heads: str) -> None:
    """A long listing as plain aligned lines (no colour), written straight to stdout."""
    id_key, name_key, start_key = keys
    rows = [
        (
            printable(job[id_key]),
            printable(job[name_key] or ""),
            job["status"],
            printable(job["user"] or ""),
            short(job[start_key])[:16],
            short(job["endTime"])[:16],
        )
        for job in jobs
    ]
    header = ("Job ID", "Name", "Status", "User", *heads)
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(5)]
    out.file.flush()
    write = sys.stdout.write
    for row in (header, *rows):
        write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)) + f"  {row[5]}\n")
    sys.stdout.flush()


def render_jobs(kind: str, data: dict[str, Any]) -> None:
    key, id_key, name_key, start_key = _JOB_COLUMNS[kind]
    table = Table(box=None, header_style="bold")
    # a coordinator's times are its configured window, not when it started or ended
    start_col, end_col = {"bundle": ("Kick-off", "End"), "coordinator": ("Start", "End")}.get(
        kind, ("Started", "Ended")
    )
    if len(data[key]) > TABLE_LIMIT:  # Rich measures every cell: 10,000 rows took 4 s (QA)
        _job_lines(data[key], (id_key, name_key, start_key), start_col, end_col)
        out.print(f"[dim]{len(data[key])} of {data['total']} (offset {data['offset']})[/dim]")
        return
    for col in ("Job ID", "Name", "Status", "User", start_col, end_col):
        table.add_column(col, no_wrap=col in ("Job ID", "Status"))
    for job in data[key]:
        table.add_row(  # names and users as text: "quick-[daily]" is not Rich markup
            _text(job[id_key]),
            _text(job[name_key]),
            styled(job["status"]),
            _text(job["user"]),
            short(job[start_key])[:16],
            short(job["endTime"])[:16],
        )
    out.print(table)
    out.print(f"[dim]{len(data[key])} of {data['total']} (offset {data['offset']})[/dim]")

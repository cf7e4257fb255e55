"""Human output of ``bundletui info`` for bundles, coordinators and coordinator actions.

Everything printed comes from the same dicts ``--json`` prints (coord_queries). Laid out for an
80-column terminal: long ids go on their own line or are shortened against a common tail that
is printed once, and the action table's last column is either the action's workflow or, for a
WAITING/READY action, why it waits.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from bundletui.cli._common import out, styled

# the rows' times, as the commands' one-line reasons write them
from bundletui.commands.queries import short_rfc822 as when
from bundletui.model.ids import IdKind
from bundletui.model.status import JOB_LIVE
from bundletui.model.timeutil import RFC822_IN_TEXT
from bundletui.store.db import Store

# Short action-status words for one-line counts ("3 ok · 2 wait").
_SHORT = {
    "WAITING": "wait",
    "READY": "ready",
    "SUBMITTED": "sub",
    "RUNNING": "run",
    "SUSPENDED": "susp",
    "TIMEDOUT": "timedout",
    "SUCCEEDED": "ok",
    "KILLED": "killed",
    "FAILED": "failed",
    "IGNORED": "ignored",
    "SKIPPED": "skipped",
}


def short_times(text: str) -> str:
    """The RFC 822 times in a sentence (a why's detail) as the other rows write them."""
    return RFC822_IN_TEXT.sub(lambda m: when(m.group(0), zone=True), text)


def counts_text(counts: dict[str, int], words: dict[str, str] | None = None) -> str:
    if not counts:
        return "-"
    names = words or {}
    return " · ".join(f"{n} {names.get(s, s)}" for s, n in counts.items())


def _kv(title: str, rows: list[tuple[str, str]]) -> None:
    """A header block; values are markup (escape plain text before passing it)."""
    out.print(f"[bold]{escape(title)}[/bold]")
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        out.print(f"  {key.ljust(width)} : {value if value not in ('', None) else '-'}")


def _e(value: Any) -> str:
    return "-" if value in (None, "") else escape(str(value))


def render_coord_info(store: Store, job_id: str, kind: IdKind | None, data: dict[str, Any]) -> None:
    del store, job_id
    if kind is IdKind.BUNDLE:
        render_bundle(data)
    elif kind is IdKind.COORDINATOR:
        render_coordinator(data)
    else:
        render_action(data)


# ----------------------------------------------------------------------------- bundle


def render_bundle(data: dict[str, Any]) -> None:
    status = styled(data["status"]) + (
        "  [yellow](pending)[/yellow]" if data.get("pending") else ""
    )
    coords = data.get("bundleCoordJobs", [])
    _kv(
        f"Bundle {data['bundleJobId']}",
        [
            ("Job ID", _e(data["bundleJobId"])),
            ("Name", _e(data["bundleJobName"])),
            ("App Path", _e(data["bundleJobPath"])),
            ("Status", status),
            ("Kickoff time", when(data["kickoffTime"], zone=True)),
            ("Pause time", when(data["pauseTime"], zone=True)),
            ("Started", when(data["startTime"], zone=True)),
            # a running bundle's end time is the one `change endtime=` set, not when it ended
            (
                "End" if data["status"] in JOB_LIVE else "Ended",
                when(data["endTime"], zone=True),
            ),
            (
                "Coordinators",
                f"{len(data.get('bundleActions', coords))}  ({counts_text(data.get('counts', {}))})",
            ),
            *(
                [("Error", f"[red]{escape(data['errorMessage'])}[/red]")]
                if data.get("errorMessage")
                else []
            ),
        ],
    )
    actions = data.get("bundleActions") or [
        {"coordName": c["coordJobName"], "coordJobId": c["coordJobId"], "pending": False}
        for c in coords
    ]
    if not actions:
        return
    by_id = {c["coordJobId"]: c for c in coords}
    out.print()
    out.print(f"  [bold]{'Coordinator':<20} {'Status':<18} {'Pending':<8} Next materialized[/bold]")
    for ba in actions:
        coord = by_id.get(ba.get("coordJobId") or "")
        status_text = coord["status"] if coord else ba.get("status", "-")
        pad = " " * max(18 - len(status_text), 0)
        pending = "yes" if ba.get("pending") or (coord and coord.get("pending")) else "-"
        nxt = when(coord["nextMaterializedTime"]) if coord else "-"
        if coord and coord.get("schedule") == "event" and coord["status"] in JOB_LIVE:
            nxt = "on trigger"  # no nominal times: its next action comes when it fires
        out.print(
            f"  {escape(ba['coordName'][:20]):<20} {styled(status_text)}{pad} {pending:<8} {nxt}"
        )
        cid = ba.get("coordJobId") or "(not submitted)"
        counts = counts_text(coord.get("counts", {}), _SHORT) if coord else "-"
        out.print(f"    [dim]{escape(cid)}[/dim]  {escape(counts)}")
        if ba.get("error"):
            out.print(f"    [red]{escape(ba['error'])}[/red]")


# ----------------------------------------------------------------------------- coordinator


def render_coordinator(data: dict[str, Any]) -> None:
    status = styled(data["status"]) + (
        "  [yellow](pending)[/yellow]" if data.get("pending") else ""
    )
    mat = data.get("materialization") or {}
    nxt = "done" if mat.get("done") else when(mat.get("next"), zone=True)
    if mat.get("stopped"):  # ended before its end time (a kill): said, with the way back
        nxt = f"[yellow]{escape(mat['heldBy'])}[/yellow]"
    event = data.get("schedule") == "event"
    if event and not mat.get("done"):
        seen = mat.get("eventsSeen", 0)
        nxt = "when its trigger fires" + (f" ({seen} event(s) so far)" if seen else "")
    if mat.get("heldBy") and not mat.get("done"):
        nxt += f"  [yellow]held by {escape(mat['heldBy'])}[/yellow]"
    concurrency = data["concurrency"]
    controls = f"concurrency {'unlimited' if concurrency < 0 else concurrency}"
    group = (data.get("constraints") or {}).get("group")
    if group:  # "unlimited" alone read as no limit at all (QA (o))
        controls += f" (group {group}: {data['constraints'].get('groupMax')} at once)"
    if not event:  # an event schedule has no execution order, throttle or input timeout:
        controls += (  # its run constraints hold what it fires
            f", execution {data['executionPolicy']}, throttle {data['mat_throttling']}, "
            f"timeout {data['timeOut']} min"
        )
    actions = data.get("actions", [])
    page = data.get("page") or {}
    shown = _page_text(len(actions), data.get("total", 0), page)
    _kv(
        f"Coordinator {data['coordJobId']}",
        [
            ("Name", _e(data["coordJobName"])),
            ("App Path", _e(data["coordJobPath"])),
            ("Bundle", _e(data.get("bundleId"))),
            ("Status", status),
            *_error_row(data),
            ("Start", when(data["startTime"], zone=True)),
            ("End", when(data["endTime"], zone=True)),
            ("Pause time", when(data["pauseTime"], zone=True)),
            (
                "Frequency",
                f"event-triggered, timezone {_e(data['timeZone'])}"
                if event
                else f"{_e(data['frequency'])} {_e(data['timeUnit'])}, timezone {_e(data['timeZone'])}",
            ),
            ("Controls", controls),
            *_schedule_rows(data),
            ("Next action", nxt),
            *_progress_rows(mat),
            ("Actions", escape(counts_text(data.get("counts", {}), _SHORT))),
            ("Showing", shown),
        ],
    )
    if actions:
        out.print()
        _action_table(actions)
        _more(data, len(actions), page)


def _progress_text(p: dict[str, Any]) -> str:
    """One trigger leaf and where it stands: ``2 new partitions of clicks: 1 of 2``."""
    at = f" {when(p['at'], zone=True)}" if p.get("at") and not p.get("met") else ""
    return f"{p['leaf']}: {p['seen']}{at}"


def _progress_rows(mat: dict[str, Any]) -> list[tuple[str, str]]:
    """Each leaf of a schedule's trigger and how far its next firing got towards it."""
    progress = mat.get("progress") or []
    return [("So far" if i == 0 else "", escape(_progress_text(p))) for i, p in enumerate(progress)]


def _schedule_rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    """An event schedule's trigger, feeds and run constraints (none for a time-based one)."""
    trigger = data.get("trigger")
    if not trigger:
        return []
    feeds = ", ".join(f"{f['name']} {f['path']}" for f in trigger.get("feeds") or [])
    held = ", ".join((data.get("constraints") or {}).get("summary") or []) or "none"
    rows = [
        ("Trigger", escape(trigger["definition"])),
        ("Feeds", _e(feeds)),
        ("Constraints", escape(held)),
    ]
    if trigger.get("priority"):
        rows.append(("Priority", str(trigger["priority"])))
    return rows


def _error_row(data: dict[str, Any]) -> list[tuple[str, str]]:
    if not data.get("errorCode"):
        return []
    return [
        ("Error", f"[red]{escape(data['errorCode'])}: {escape(data['errorMessage'] or '')}[/red]")
    ]


def _more(data: dict[str, Any], n: int, page: dict[str, Any]) -> None:
    """Under a page that is not the last: how to see the next (and the newest)."""
    offset = int(page.get("offset") or 1)
    left = int(data.get("total", 0)) - (offset + n - 1)
    if left <= 0:
        return
    flt = page.get("filter")
    also = f" --filter '{flt}'" if flt else ""
    if (page.get("order") or "asc") == "desc":
        also += " --order desc"
    newest = "" if "--order desc" in also else "; the newest first: --order desc"
    out.print(
        f"[dim]{left} more: bundletui info {escape(data['coordJobId'])} --offset"
        f" {offset + n}{escape(also)} (--len N for a longer page{newest})[/dim]"
    )


def _page_text(n: int, total: int, page: dict[str, Any]) -> str:
    offset = int(page.get("offset") or 1)
    order = page.get("order") or "asc"
    flt = page.get("filter")
    text = f"{offset}-{offset + n - 1} of {total}" if n else f"none of {total}"
    text += f", {order}"
    if flt:
        text += f", filter {flt}"
    return escape(text)


def _action_table(actions: list[dict[str, Any]]) -> None:
    tail = _common_tail([a["externalId"] for a in actions if a.get("externalId")])
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("Status", no_wrap=True)
    table.add_column("Nominal time", no_wrap=True)
    table.add_column("Created", no_wrap=True)
    table.add_column("Workflow / waiting for", overflow="fold")
    for a in actions:
        table.add_row(
            str(a["actionNumber"]),
            styled(a["status"]),
            when(a["nominalTime"]),
            when(a["createdTime"]),
            _last_cell(a, tail),
        )
    out.print(table)
    if tail:
        out.print(f"[dim]workflow ids: the number shown + {escape(tail)}[/dim]")
    zone = (actions[0].get("nominalTime") or "").rsplit(" ", 1)[-1]
    if zone:
        out.print(f"[dim]times in {escape(zone)}[/dim]")


def _last_cell(action: dict[str, Any], tail: str) -> str:
    why = action.get("waitingFor")
    if why:
        waits = why.get("reason") in ("inputs", "check") and not why.get("checkHeld")
        color = "yellow" if waits else "magenta"  # on data; held by a control
        return f"[{color}]{escape(short_reason(why))}[/{color}]"
    wf = action.get("externalId")
    if wf:
        return escape(wf[: -len(tail)] if tail and wf.endswith(tail) else wf)
    error = f"{action.get('errorCode') or ''} {action.get('errorMessage') or ''}".strip()
    return f"[red]{escape(error)}[/red]" if error else "-"


def short_reason(why: dict[str, Any]) -> str:
    """One line for the table: 'missing 2/24: …/clicks/2024/01/01/05', 'concurrency 1/1 running'."""
    reason = why.get("reason")
    if why.get("checkHeld"):  # the inputs are not looked at now: that is why it waits
        return str(why["checkHeld"])
    if reason == "inputs":
        missing = why.get("missing") or []
        count = why.get("missingCount", len(missing))
        total = why.get("inputs") or 0
        if missing:
            of = f"{count}/{total}" if total >= count else str(count)
            return f"missing {of}: {_tail_path(missing[0])}"
        if why.get("unresolved"):
            return f"unresolved {why['unresolved'][0]}"
        return short_times(str(why.get("detail", "inputs")))
    if reason == "launch":
        return "next to launch"
    return short_times(str(why.get("detail", reason)))


def _tail_path(path: str, keep: int = 4) -> str:
    """The last ``keep`` path parts of a URI: ``…/2024/01/01`` reads better than its start."""
    parts = path.split("://", 1)[-1].rstrip("/").split("/")
    return path if len(parts) <= keep + 1 else "…/" + "/".join(parts[-keep - 1 :])


def _common_tail(ids: list[str]) -> str:
    """The part after the sequence number that every id shares (``-<stamp>-<sys>-<user>-W``)."""
    if not ids:
        return ""
    tails = {i[i.index("-") :] if "-" in i else "" for i in ids}
    return tails.pop() if len(tails) == 1 else ""


# ----------------------------------------------------------------------------- action


def render_action(data: dict[str, Any]) -> None:
    why = data.get("waitingFor")
    error = (
        f"{data['errorCode'] or ''} {data['errorMessage'] or ''}".strip()
        if data.get("errorCode") or data.get("errorMessage")
        else ""
    )
    rows: list[tuple[str, str]] = [
        ("Coordinator", f"{_e(data.get('coordJobName'))}  [dim]{_e(data['coordJobId'])}[/dim]"),
        ("Number", str(data["actionNumber"])),
        ("Status", styled(data["status"])),
        ("Nominal time", when(data["nominalTime"], zone=True)),
        ("Created", when(data["createdTime"], zone=True)),
        ("Last modified", when(data["lastModifiedTime"], zone=True)),
        ("Workflow", _e(data.get("externalId"))),
        ("Error", _e(error)),
    ]
    fired = data.get("firedBy")
    if fired:
        rows += _fired_rows(fired)
    if why:
        said = str(why.get("detail") or short_reason(why))
        rows.append(("Waiting for", escape(short_times(said))))
        if why.get("timeoutAt"):
            rows.append(("Times out", when(why["timeoutAt"], zone=True)))
        if why.get("skipAt"):  # LAST_ONLY / NONE: skipped then unless it has started
            rows.append(("Skipped after", when(why["skipAt"], zone=True)))
    _kv(f"Coordinator action {data['id']}", rows)
    if fired and fired.get("events"):
        _fired_events(fired)
    deps = data.get("dependencies") or []
    if deps:
        out.print()
        out.print(
            f"[bold]Inputs[/bold] ({sum(d['available'] for d in deps)}/{len(deps)} available)"
        )
        for d in deps:
            mark = "[green]✓[/green]" if d["available"] else "[yellow]✗[/yellow]"
            out.print(f"  {mark} {escape(d['path'])}  [dim]({escape(d['dataIn'])})[/dim]")
    elif why and why.get("missing"):
        out.print()
        out.print("[bold]Missing[/bold]")
        for path in why["missing"]:
            out.print(f"  [yellow]✗[/yellow] {escape(path)}")


def _fired_rows(fired: dict[str, Any]) -> list[tuple[str, str]]:
    """What fired an event schedule's action, when, under which trigger, and how its job left
    the queue (launched, forced at its timeout, discarded)."""
    at = when(fired.get("firedAt"), zone=True)
    merged = fired.get("mergedAt") or []
    if merged:  # later firings joined the job while a since-last-run constraint held it
        at += f" (joined by {len(merged)} later firing(s), last {when(merged[-1], zone=True)})"
    rows = [("Fired by", escape(str(fired.get("reason") or "-"))), ("Fired at", at)]
    if fired.get("trigger"):
        rows.append(("Trigger", escape(fired["trigger"])))
    job = fired.get("job")
    if job:
        note = f" ({job['note']})" if job.get("note") else ""
        rows.append(("Job queue", escape(f"{job['state']}{note}")))
    return rows


_EVENTS_SHOWN = 50


def _fired_events(fired: dict[str, Any]) -> None:
    """Every event that fired the action, oldest first (the first 50; --json has them all)."""
    events = fired["events"]
    out.print()
    size = f", {fired.get('bytes', 0)} bytes" if fired.get("partitions") else ""
    out.print(f"[bold]Events that fired it[/bold] ({len(events)}{size})")
    for e in events[:_EVENTS_SHOWN]:
        if e["kind"] == "program":
            run = f"{e['coordinator']} {e['status']}  {e['action']}"
            out.print(f"  program {escape(run)}")
        else:
            out.print(f"  {escape(e['feed'])}  {escape(e['path'])}  [dim]({e['size']} bytes)[/dim]")
    if len(events) > _EVENTS_SHOWN:
        out.print(
            f"  [dim]… {len(events) - _EVENTS_SHOWN} more (info --json lists every one)[/dim]"
        )

"""The details pane: a job's Oozie JSON (commands/queries) turned into a short, readable page
that starts with the answer operators ask first — why is it (not) moving?"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

from rich.text import Text

from bundletui.commands import queries
from bundletui.model.status import COORD_SUSPENDED, JOB_LIVE, JOB_TERMINAL
from bundletui.model.timeutil import parse_rfc822
from bundletui.model.transitions import Event, Machine, allowed
from bundletui.tui.labels import counts_text, error_text, status_text
from bundletui.tui.printable import printable

Alias = Callable[[str], str]


def short_rfc822(rfc: str | None) -> str:
    """``Mon, 01 Jan 2024 05:00:00 GMT`` -> ``2024-01-01 05:00Z``: the commands' short form,
    the console's ``Z`` after it (``-`` for none, text that is no time as it is)."""
    text = queries.short_rfc822(rfc)
    return text if text in ("-", rfc) else f"{text}Z"


# an RFC 822 time as the commands' JSON gives it inside a sentence ("held by time-window until
# Sun, 22 Nov 2026 08:00:00 GMT; …"): the console writes times one way, ``2026-11-22 08:00Z``
_RFC822 = re.compile(r"\b[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\b")


def short_times(text: str, day: str | None = None) -> str:
    """The RFC 822 times in ``text`` in the console's form, ``2026-03-01 22:00Z``; given the
    RFC 822 time of a ``day`` (an action table row's nominal time), as the table writes
    times: ``22:00`` on that day, else ``03-02 22:00``. Seconds show when there are some (a
    run constraint's delay of 30 s lifts at ``22:00:30``, not at ``22:00``)."""
    on = None
    if day:
        with contextlib.suppress(TypeError, ValueError):
            on = parse_rfc822(day).date()

    def one(m: re.Match[str]) -> str:
        try:
            when = parse_rfc822(m.group(0))
        except (TypeError, ValueError):
            return m.group(0)
        hm = f"{when:%H:%M:%S}" if when.second else f"{when:%H:%M}"
        if day is None:
            return f"{when.year:04d}-{when:%m-%d} {hm}Z"
        return hm if when.date() == on else f"{when:%m-%d} {hm}"

    return _RFC822.sub(one, text)


def _concurrency(limit: object) -> str:
    """-1 (Oozie's "no limit") as ``bundletui info`` says it."""
    return "unlimited" if isinstance(limit, int) and limit < 0 else str(limit)


_UNITS = {"MINUTE": "min", "HOUR": "h", "DAY": "days", "WEEK": "weeks", "MONTH": "months"}


def _timeout(minutes: object) -> str:
    return f"{minutes} min" if isinstance(minutes, int) and minutes >= 0 else "none"


def _same(text: str) -> str:
    return text


def _paused(status: str) -> bool:
    """PREPPAUSED, PAUSED or PAUSEDWITHERROR: held by a pause time, which clearing (or moving)
    lifts; a bundle's statuses are a coordinator's."""
    return allowed(Machine.COORDINATOR, status, Event.UNPAUSE)


# what a key does, said as the command that does it when the console is read-only (its
# keys that change things are hidden there)
_AS_COMMAND = {
    "r resumes": "`bundletui resume {id}` resumes",
    "p moves": "`bundletui change {id} --value pausetime=…` moves",
}


class _Page:
    def __init__(self, alias: Alias, read_only: bool = False, job_id: str = "") -> None:
        self.text = Text()
        self.alias = alias
        self.read_only = read_only
        self.job_id = job_id  # named in a read-only page's commands, ready to copy

    def head(self, title: str, status: str | None = None) -> None:
        self.text.append(title, style="bold")
        if status:
            self.text.append("  ")
            self.text.append_text(status_text(status))
        self.text.append("\n")

    def why(self, reason: str, style: str = "yellow") -> None:
        if self.read_only:
            for key, command in _AS_COMMAND.items():
                reason = reason.replace(key, command.format(id=self.job_id or "ID"))
        self.text.append("why: ", style="bold " + style)
        self.text.append(self.alias(reason) + "\n", style=style)

    def field(self, name: str, value: object, *, path: bool = False) -> None:
        if value is None or value == "" or value == "-":
            return
        shown = self.alias(str(value)) if path else str(value)
        self.text.append(f"{name:<10} ", style="dim")  # one space after "constraints" too
        self.text.append(shown + "\n")

    def line(self, text: str | Text = "", style: str = "") -> None:
        if isinstance(text, Text):
            self.text.append_text(text)
            self.text.append("\n")
        else:
            self.text.append(text + "\n", style=style)

    def conf(self, conf_xml: str | None, limit: int = 40) -> None:
        props = _conf_props(conf_xml)
        if not props:
            return
        self.line("configuration", style="bold dim")
        for name, value in list(props.items())[:limit]:
            self.text.append(f"  {name}", style="dim")
            self.text.append(f" = {self.alias(value)}\n")
        if len(props) > limit:
            self.line(f"  … {len(props) - limit} more (d describes everything)", style="dim")


def _conf_props(conf_xml: str | None) -> dict[str, str]:
    if not conf_xml:
        return {}
    from xml.etree import ElementTree

    try:  # a control character in a value is not XML: shown, rather than the whole block lost
        root = ElementTree.fromstring(printable(conf_xml))
    except ElementTree.ParseError:
        return {}
    out: dict[str, str] = {}
    for prop in root.iter("property"):
        name = prop.findtext("name")
        if name is not None:
            out[name] = prop.findtext("value") or ""
    return out


# ----------------------------------------------------------------------------- per kind


def bundle_page(info: dict[str, Any], alias: Alias = _same, read_only: bool = False) -> Text:
    p = _Page(alias, read_only, info.get("bundleJobId", ""))
    status = info["status"]
    p.head(f"bundle {info['bundleJobName']}", status)
    p.why(_bundle_why(info), "green" if status in ("RUNNING", "SUCCEEDED") else "yellow")
    p.field("id", info["bundleJobId"])
    p.field("user", info.get("user"))
    p.field("app path", info.get("bundleJobPath"), path=True)
    p.field("kick-off", short_rfc822(info.get("kickoffTime")))
    p.field("end", short_rfc822(info.get("endTime")))
    p.field("pause time", short_rfc822(info.get("pauseTime")))
    p.field("created", short_rfc822(info.get("createdTime")))
    p.field("modified", short_rfc822(info.get("lastModifiedTime")))
    coords = info.get("bundleCoordJobs") or []
    critical = {a["coordName"]: a["critical"] for a in info.get("bundleActions") or []}
    if coords:
        p.line("coordinators", style="bold dim")
        for c in coords:
            line = Text(f"  {c['coordJobName']:<12} ")
            line.append_text(status_text(c["status"]))
            if critical.get(c["coordJobName"]):
                line.append(" critical", style="dim")
            line.append(" ")
            line.append("  ")
            line.append_text(counts_text(c.get("counts") or {}))
            p.line(line)
    p.conf(info.get("conf"))
    return p.text


# a pending flag says a command waits for the engine to carry it down: with none running it
# waits for one to start (QA: "is being carried out" while nothing was)
_QUEUED = (
    "a command is queued for its {}: the engine carries it out (none running: when one starts)"
)


def _bundle_why(info: dict[str, Any]) -> str:
    status = info["status"]
    if info.get("pending"):
        return _QUEUED.format("coordinators")
    if status == "PREP":
        return f"waits for its kick-off time {short_rfc822(info.get('kickoffTime'))}"
    if _paused(status):
        return f"paused: the pause time {short_rfc822(info.get('pauseTime'))} has passed"
    if status in COORD_SUSPENDED:  # a bundle's statuses are a coordinator's
        return "suspended: r resumes it and its coordinators"
    if status in JOB_TERMINAL:
        return f"finished {status}"
    coords = info.get("bundleCoordJobs") or []
    # not ended: a FAILED, DONEWITHERROR or IGNORED coordinator is no more active than a
    # SUCCEEDED or KILLED one
    busy = [c["coordJobName"] for c in coords if c["status"] in JOB_LIVE]
    text = f"running: {len(busy)} of {len(coords)} coordinators still active"
    # "active" is not "running": a paused or suspended coordinator under a RUNNING bundle
    # launches nothing, and its name says which one to look at
    held = [
        f"{c['coordJobName']} {c['status']}"
        for c in coords
        if _paused(c["status"]) or c["status"] in COORD_SUSPENDED
    ]
    if held:
        text += f" ({', '.join(held[:4])}{', …' if len(held) > 4 else ''})"
    return text


def coordinator_page(info: dict[str, Any], alias: Alias = _same, read_only: bool = False) -> Text:
    p = _Page(alias, read_only, info.get("coordJobId", ""))
    status = info["status"]
    p.head(f"coordinator {info['coordJobName']}", status)
    if info.get("errorCode"):  # materialization failed the job: that is the why
        p.why(error_text(info["errorCode"], info.get("errorMessage")), "red")
    else:
        why, ok = _coord_why(info)
        p.why(why, "green" if ok else "yellow")
    p.field("id", info["coordJobId"])
    p.field("bundle", info.get("bundleId"))
    p.field("app path", info.get("coordJobPath"), path=True)
    event = info.get("schedule") == "event"
    if event:  # no frequency, throttle or next nominal time: its trigger starts its jobs
        p.field("schedule", f"event-triggered ({info.get('timeZone')})")
        p.field(
            "controls",
            f"{info.get('executionPolicy')} concurrency {_concurrency(info.get('concurrency'))}",
        )
        _schedule_fields(p, info)
    else:
        p.field(
            "schedule",
            f"every {info.get('frequency')} {_UNITS.get(str(info.get('timeUnit')), '')}"
            f" ({info.get('timeZone')})",
        )
        p.field(
            "controls",
            f"{info.get('executionPolicy')} concurrency {_concurrency(info.get('concurrency'))}"
            f" throttle {info.get('mat_throttling')} timeout {_timeout(info.get('timeOut'))}",
        )
    p.field("start", short_rfc822(info.get("startTime")))
    p.field("end", short_rfc822(info.get("endTime")))
    p.field("pause time", short_rfc822(info.get("pauseTime")))
    if event:  # what `bundletui info` says as "Next action"
        mat = info.get("materialization") or {}
        if not mat.get("done"):
            p.field("next", _on_trigger(mat))
            if mat.get("progress"):  # each leaf of the trigger and how far it got
                p.field("so far", "; ".join(_progress(x) for x in mat["progress"]))
    else:
        p.field("next", short_rfc822((info.get("materialization") or {}).get("next")))
    counts = info.get("counts") or {}
    if counts:
        line = Text(f"{'actions':<11}", style="dim")
        line.append(" ".join(f"{s} {n}" for s, n in counts.items()), style="")
        p.line(line)
    p.field("modified", short_rfc822(info.get("lastModifiedTime")))
    p.conf(info.get("conf"))
    return p.text


def _schedule_fields(p: _Page, info: dict[str, Any]) -> None:
    """An event schedule's trigger, feeds and run constraints, as ``bundletui info`` says."""
    trigger = info.get("trigger") or {}
    if not trigger:
        return
    p.field("trigger", trigger.get("definition"))
    feeds = ", ".join(f"{f['name']} {f['path']}" for f in trigger.get("feeds") or [])
    p.field("feeds", feeds, path=True)
    summary = (info.get("constraints") or {}).get("summary") or []
    p.field("constraints", ", ".join(summary) or "none")
    if trigger.get("priority"):
        p.field("priority", trigger["priority"])


def _events(mat: dict[str, Any]) -> str:
    n = mat.get("eventsSeen") or 0
    return f"{n} event" + ("" if n == 1 else "s")


def _progress(leaf: dict[str, Any]) -> str:
    at = f" {short_rfc822(leaf['at'])}" if leaf.get("at") and not leaf.get("met") else ""
    return f"{leaf['leaf']}: {leaf['seen']}{at}"


def _on_trigger(mat: dict[str, Any]) -> str:
    """``bundletui info``'s "Next action" of an event schedule."""
    seen = f" ({_events(mat)} so far)" if mat.get("eventsSeen") else ""
    held = f"; held by {mat['heldBy']}" if mat.get("heldBy") else ""
    return f"when its trigger fires{seen}{held}"


def _coord_why(info: dict[str, Any]) -> tuple[str, bool]:
    if info.get("schedule") == "event":
        return _event_why(info)
    status = info["status"]
    counts = info.get("counts") or {}
    mat = info.get("materialization") or {}
    reasons: list[str] = []
    if info.get("pending"):
        reasons.append(_QUEUED.format("actions"))
    suspended = status in COORD_SUSPENDED
    if suspended:
        reasons.append("suspended: nothing materializes or launches until r resumes it")
    if mat.get("heldBy") and not mat.get("done") and not (suspended and _is_status(mat)):
        reasons.append(f"not materializing: {mat['heldBy']}")
    waiting = counts.get("WAITING", 0)
    if waiting:
        reasons.append(f"{waiting} action(s) WAITING for inputs")
    held = _ready_held(info, counts.get("READY", 0), suspended)
    if held:
        reasons.append(held)
    if reasons:
        return "; ".join(reasons), False
    if mat.get("stopped"):  # ended early: said, with how to resume it
        return f"{mat['heldBy']}; {status}", False
    if mat.get("done"):
        return f"every action is materialized; {status}", True
    return f"materializing: next action at {short_rfc822(mat.get('next'))}", True


def _ready_held(info: dict[str, Any], ready: int, suspended: bool) -> str | None:
    """What holds the READY actions, as the commands say it (``waitingFor`` of a READY action
    in ``info["actions"]``: the coordinator's status, SAFEMODE, then its concurrency), not
    worked out here again; None when nothing holds them, or when no READY action came with
    ``info``."""
    held = next(
        (
            a["waitingFor"]
            for a in info.get("actions") or []
            if a.get("status") == "READY" and a.get("waitingFor")
        ),
        None,
    )
    if not ready or held is None:
        return None
    reason = held.get("reason")
    if reason == "launch" or (reason == "coordinator" and suspended):  # free, or said already
        return None
    if reason == "concurrency":
        return f"{ready} READY held by concurrency {held.get('running')}/{held.get('limit')}"
    # the coordinator's status or SAFEMODE; an action's own LAST_ONLY deadline left out
    return f"{ready} READY held: {str(held.get('detail', reason)).split('; ')[0]}"


def _is_status(mat: dict[str, Any]) -> bool:
    """``heldBy`` only names the coordinator's own status (said already)."""
    return str(mat.get("heldBy", "")).startswith("coordinator ")


def _event_why(info: dict[str, Any]) -> tuple[str, bool]:
    """An event schedule has no next nominal time (``materializing: next action at -`` said
    nothing): it waits for its trigger, is held by its status, or has jobs held by their run
    constraints (which one, until when), as ``bundletui info`` says."""
    status = info["status"]
    counts = info.get("counts") or {}
    mat = info.get("materialization") or {}
    reasons: list[str] = []
    if info.get("pending"):
        reasons.append(_QUEUED.format("actions"))
    if status in COORD_SUSPENDED:
        reasons.append(
            "suspended: its trigger ignores events (what lands now never fires it) until r resumes it"
        )
    elif _paused(status):
        reasons.append(
            f"paused since {short_rfc822(info.get('pauseTime'))}: fires nothing until p moves or clears"
            f" the pause time; events are kept ({_events(mat)} so far) and fire then"
        )
    elif mat.get("heldBy") and not mat.get("done") and not _is_status(mat):
        reasons.append(f"not firing: {mat['heldBy']}")
    waiting = counts.get("WAITING", 0)
    if waiting:
        held = next(
            (
                a["waitingFor"].get("detail") or a["waitingFor"].get("reason")
                for a in info.get("actions") or []
                if a.get("status") == "WAITING" and a.get("waitingFor")
            ),
            None,
        )
        jobs = "job" if waiting == 1 else "jobs"
        first = "" if waiting == 1 else "the first "
        reasons.append(
            f"{waiting} {jobs} WAITING"
            + (f", {first}{short_times(held)}" if held else " for run constraints")
        )
    discarded = counts.get("TIMEDOUT", 0)
    if discarded:  # why the schedule reads *WITHERROR
        jobs = "job" if discarded == 1 else "jobs"
        reasons.append(f"{discarded} {jobs} discarded at the timeout (TIMEDOUT)")
    if status not in JOB_LIVE:  # ended, or IGNORED
        return "; ".join([f"finished {status}", *reasons]), status == "SUCCEEDED"
    if mat.get("done"):
        return "; ".join([*reasons, f"fires no more (its end time has passed); {status}"]), False
    if reasons:
        return "; ".join(reasons), False
    seen = f" ({_events(mat)} so far)" if mat.get("eventsSeen") else ""
    return f"waits for its trigger to fire{seen}", True


def action_page(info: dict[str, Any], alias: Alias = _same, read_only: bool = False) -> Text:
    p = _Page(alias, read_only, info.get("id", ""))
    status = info["status"]
    p.head(f"action @{info['actionNumber']} of {info.get('coordJobName', '')}", status)
    why = info.get("waitingFor")
    if why:
        p.why(short_times(str(why.get("detail", why.get("reason", "")))))
    elif info.get("errorCode") or info.get("errorMessage"):
        p.why(error_text(info.get("errorCode"), info.get("errorMessage")), "red")
    elif status == "SUSPENDED":
        p.why("suspended: its workflow is held until r resumes it")
    p.field("id", info["id"])
    fired = info.get("firedBy")
    if fired:
        p.field("fired by", _fired_text(fired))
        p.field("fired at", _fired_at(fired))
    p.field("nominal", short_rfc822(info.get("nominalTime")))
    p.field("created", short_rfc822(info.get("createdTime")))
    p.field("workflow", info.get("externalId"))
    p.field("modified", short_rfc822(info.get("lastModifiedTime")))
    if why and why.get("timeoutAt"):
        p.field("times out", short_rfc822(why.get("timeoutAt")))
    deps = info.get("dependencies") or []
    if deps:
        missing = sum(1 for d in deps if not d["available"])
        p.line(f"inputs ({len(deps) - missing}/{len(deps)} available)", style="bold dim")
        for dep in sorted(deps, key=lambda d: d["available"])[:12]:
            mark, style = ("✓", "green") if dep["available"] else ("✗ missing", "red")
            line = Text("  ")
            line.append(mark, style=style)
            line.append(f" {alias(dep['path'])}")
            p.line(line)
        if len(deps) > 12:
            p.line(f"  … {len(deps) - 12} more", style="dim")
    if why and why.get("unresolved"):
        p.line("unresolved", style="bold dim")
        for u in why["unresolved"][:5]:
            p.line(f"  {u}")
    p.conf(info.get("runConf"))
    return p.text


_PARTS_SHOWN = 3


def _fired_text(fired: dict[str, Any]) -> str:
    """The reason, then the first partitions by their names under the feed (``2026/03/01/09``;
    with the feed's name when several feeds fired it): the rest is one ``+N more``."""
    parts = [e for e in fired.get("events") or [] if e.get("kind") == "partition"]
    if not parts:
        return str(fired.get("reason") or "-")
    several = len({e["feed"] for e in parts}) > 1
    names = [f"{e['feed']}/{e['name']}" if several else e["name"] for e in parts]
    more = f" (+{len(names) - _PARTS_SHOWN} more)" if len(names) > _PARTS_SHOWN else ""
    return f"{fired.get('reason')}: {', '.join(names[:_PARTS_SHOWN])}{more}"


def _fired_at(fired: dict[str, Any]) -> str:
    """When it fired; later firings a since-last-run constraint merged into it, counted."""
    merged = len(fired.get("mergedAt") or [])
    later = f" (+{merged} later firing{'s' if merged != 1 else ''} joined it)" if merged else ""
    return short_rfc822(fired.get("firedAt")) + later


def workflow_page(info: dict[str, Any], alias: Alias = _same, read_only: bool = False) -> Text:
    p = _Page(alias, read_only, info.get("id", ""))
    status = info["status"]
    p.head(f"workflow {info['appName']}", status)
    nodes = info.get("actions") or []
    running = [n["name"] for n in nodes if n.get("nodeStatus") == "RUNNING"]
    failed = [n["name"] for n in nodes if n.get("nodeStatus") in ("FAILED", "KILLED")]
    if status == "RUNNING":
        p.why(f"running: {', '.join(running) or 'between nodes'}", "green")
    elif status == "SUSPENDED" and info.get("suspendMode") == "freeze":
        p.why("frozen: its running jobs are stopped (SIGSTOP); r resumes them")
    elif status == "SUSPENDED":
        p.why("suspended: r resumes it")
    elif status in ("FAILED", "KILLED"):
        err = error_text(info.get("errorCode"), info.get("errorMessage"))
        p.why(err or f"{status}: {', '.join(failed)}", "red")
    elif status == "PREP":
        p.why("submitted, not started")
    p.field("id", info["id"])
    p.field("parent", info.get("parentId"))
    p.field("app path", info.get("appPath"), path=True)
    p.field("run", info.get("run"))
    p.field("started", short_rfc822(info.get("startTime")))
    p.field("ended", short_rfc822(info.get("endTime")))
    if nodes:
        p.line("nodes", style="bold dim")
        for n in nodes:
            line = Text(f"  {n['name']:<14} ")
            line.append_text(status_text(n.get("nodeStatus") or n["status"]))
            if n.get("exitCode") is not None:
                line.append(f" exit {n['exitCode']}", style="dim")
            if n.get("retryAt"):
                line.append(f" retried at {short_rfc822(n['retryAt'])}", style="yellow")
            p.line(line)
    p.conf(info.get("conf"))
    return p.text


def node_page(info: dict[str, Any], alias: Alias = _same, read_only: bool = False) -> Text:
    p = _Page(alias, read_only)
    status = info.get("nodeStatus") or info["status"]
    p.head(f"node {info['name']}", status)
    error = error_text(info.get("errorCode"), info.get("errorMessage"))
    if info.get("retryAt"):
        p.why(
            f"attempt {info.get('retries')} of {int(info.get('userRetryMax') or 0) + 1} failed"
            f" ({error}); retried at {short_rfc822(info['retryAt'])}",
            "yellow",
        )
    elif error:
        p.why(error, "red")
    elif status == "WAITING":
        p.why("waits for the nodes it depends on")
    elif status == "READY":
        p.why("ready: waits for a worker slot or its retry time")
    p.field("id", info["id"])
    p.field("type", info.get("type"))
    p.field("attempt", info.get("attempt"))
    p.field("started", short_rfc822(info.get("startTime")))
    p.field("ended", short_rfc822(info.get("endTime")))
    p.field("exit code", info.get("exitCode"))
    p.field("transition", info.get("transition"))
    p.field("process", info.get("externalId"))
    if info.get("data"):
        p.line("captured output", style="bold dim")
        p.line(str(info["data"]).rstrip())
    return p.text


def page(kind: str, info: dict[str, Any], alias: Alias = _same, read_only: bool = False) -> Text:
    return {
        "bundle": bundle_page,
        "coord": coordinator_page,
        "action": action_page,
        "workflow": workflow_page,
        "node": node_page,
    }[kind](info, alias, read_only)


def describe_text(info: dict[str, Any]) -> str:
    """``d``: everything, as the JSON ``bundletui info --json`` prints."""
    return json.dumps(info, indent=2, default=str)

"""Decoding ``uri:bundletui:coordinator:1.0``: event-triggered coordinators (CDAP schedules).

The result is a :class:`CoordinatorApp` like any other (so bundles, the console, the CLI and
roll-up treat it the same), with ``frequency`` NONE and ``events`` holding the feeds, the
trigger tree, the constraints and the priority.
"""

from __future__ import annotations

import posixpath
import re
from datetime import UTC, datetime
from pathlib import Path

from bundletui.errors import BundletuiError, SpecError
from bundletui.model.apps import CoordControls, CoordinatorApp
from bundletui.model.cron import LocalCron
from bundletui.model.events import (
    AllOf,
    AnyOf,
    Bytes,
    Constraints,
    Cron,
    EventSpec,
    Feed,
    OnTimeout,
    Partitions,
    Program,
    TimeWindow,
    TriggerNode,
    Wait,
    WaitFrom,
    parse_bytes,
    parse_clock,
    parse_duration_ms,
)
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.timeutil import format_oozie_time
from bundletui.spec import xmlsafe
from bundletui.spec.decode_common import (
    JAVA_INT_MAX,
    expect_kind,
    read_conf,
    refuse_leftover_el,
    split_parameters,
    where,
)
from bundletui.spec.resolver import Resolver, Where
from bundletui.spec.xmlsafe import AppKind, Element, XmlDocument

STATUSES = ("SUCCEEDED", "FAILED", "KILLED")
# A cron that fires after this at all fires (the search spans 400 years: every leap day).
_CRON_PROBE = datetime(2000, 1, 1, tzinfo=UTC)


def decode_events(
    doc: XmlDocument, resolver: Resolver, *, landing: str | None = None
) -> CoordinatorApp:
    """``landing``: the landing directory of the submission (its ``landing`` property), to
    refuse a feed that would watch all of it."""
    expect_kind(doc, AppKind.COORDINATOR, ("coordinator-app",))
    root = doc.root

    def attr(name: str) -> tuple[str, Where]:
        return root.get(name, ""), where(doc, root, f"coordinator-app/@{name}")

    name = resolver.text(*attr("name")).strip()
    start = resolver.datetime(*attr("start"))
    end = resolver.datetime(*attr("end"))
    if not start < end:
        raise where(doc, root, "start").error(
            "E1003",
            "Invalid coordinator application attributes, Coordinator Start Time must be earlier than End Time.",
            hint=f"start {format_oozie_time(start)} is not before end {format_oozie_time(end)}",
        )
    timezone = resolver.timezone(*attr("timezone"))
    priority = resolver.integer(*attr("priority")) if root.get("priority") else 0
    defaults, required = split_parameters(doc)

    feeds = _feeds(doc, xmlsafe.child(root, "feeds"), resolver, landing)
    by_name = {f.name: f for f in feeds}
    trigger_el = xmlsafe.child(root, "trigger")
    nodes = list(xmlsafe.children(trigger_el))
    trigger = _node(doc, nodes[0], resolver, by_name, timezone)
    _check_waits(doc, nodes[0], trigger)
    _check_not_itself(doc, trigger, name)
    constraints = _constraints(doc, xmlsafe.child(root, "constraints"), resolver)

    workflow = xmlsafe.child(xmlsafe.child(root, "action"), "workflow")
    path_el = xmlsafe.child(workflow, "app-path")
    app_path = resolver.text(
        xmlsafe.text(path_el), where(doc, path_el, "action/workflow/app-path")
    ).strip()
    conf = read_conf(
        doc,
        xmlsafe.child(workflow, "configuration"),
        resolver,
        resolve_values=False,
        check_values=True,
    )

    concurrency = constraints.concurrency if constraints.concurrency is not None else -1
    return CoordinatorApp(
        name=name,
        frequency=Frequency(0, TimeUnit.NONE),
        start=start,
        end=end,
        timezone=timezone,
        controls=CoordControls(timeout=-1, concurrency=concurrency, throttle=12),
        workflow_app_path=app_path,
        workflow_conf=conf,
        namespace=doc.namespace,
        source=doc.file,
        parameters=defaults,
        required_parameters=required,
        events=EventSpec(feeds, trigger, constraints, priority),
    )


def _bad(doc: XmlDocument, el: Element, field: str, message: str, hint: str) -> BundletuiError:
    return where(doc, el, field).error(
        "E1003", f"Invalid coordinator application attributes, {message}", hint
    )


def _feeds(
    doc: XmlDocument, el: Element | None, resolver: Resolver, landing: str | None
) -> tuple[Feed, ...]:
    if el is None:
        return ()
    out: list[Feed] = []
    for f in xmlsafe.children(el, "feed"):
        name = resolver.text(f.get("name", ""), where(doc, f, "feed/@name")).strip()
        raw = resolver.text(f.get("path", ""), where(doc, f, "feed/@path"))
        raw = refuse_leftover_el(raw, where(doc, f, f"feed [{name}] path"), dated=False).strip()
        scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", raw)
        if scheme and scheme.group(0).lower() != "file://":  # hdfs://, s3a://: no events here
            raise _bad(
                doc,
                f,
                "feed/@path",
                f"feed [{name}] path [{raw}] is on another file system: a feed is a local "
                "directory, watched for files landing in it",
                'give a local path, e.g. path="${landing}/clicks" (or file:///data/clicks)',
            )
        path = raw[len(scheme.group(0)) :] if scheme else raw
        if path.startswith("/"):  # as the watcher reports it: no //, /./ or /../ (a -D landing=/d/)
            path = "/" + posixpath.normpath(path).lstrip("/")
        _check_feed_path(doc, f, name, f.get("path", ""), path, landing)
        if not path.startswith("/"):  # as an absolute one is: lexically, symlinks kept
            base = Path(doc.file).absolute().parent
            path = posixpath.normpath(str(base / path))
        if any(x.name == name for x in out):
            raise _bad(
                doc,
                f,
                "feed/@name",
                f"feed [{name}] is defined twice",
                "give each feed its own name",
            )
        flag = f.get("done-flag")
        if flag is not None:  # resolved at submit, as the name and the path are
            flag = resolver.text(flag, where(doc, f, "feed/@done-flag"))
            flag = refuse_leftover_el(flag, where(doc, f, f"feed [{name}] done-flag"), dated=False)
            if "/" in flag.strip() or flag.strip() in (".", ".."):
                raise _bad(  # the watcher matches a file landing in the partition directory
                    doc,
                    f,
                    "feed/@done-flag",
                    f"feed [{name}] done-flag [{flag.strip()}] is a path: a feed's done-flag is "
                    "the name of a file in each partition directory",
                    'use a file name, e.g. done-flag="_SUCCESS" (or done-flag="" for a feed of '
                    "files)",
                )
        feed = Feed(name, path.rstrip("/") or "/", "_SUCCESS" if flag is None else flag.strip())
        for other in out:
            if other.path == feed.path and other.done_flag != feed.done_flag:
                # the store records a partition once per path: one path, one done-flag
                raise _bad(
                    doc,
                    f,
                    "feed/@done-flag",
                    f"feed [{name}] watches {feed.path} with {flag_text(feed.done_flag)}, but "
                    f"feed [{other.name}] watches the same path with "
                    f"{flag_text(other.done_flag)}",
                    FLAG_HINT,
                )
        out.append(feed)
    return tuple(out)


def _check_feed_path(
    doc: XmlDocument, el: Element, name: str, written: str, path: str, landing: str | None
) -> None:
    """Refuse a feed path that would watch everything: an empty one (a variable that came
    out empty, most likely; it would be the coordinator's own directory), the root of the
    file system, or the landing directory itself or a directory holding it. A partition is
    any directory below the feed that gets the done-flag, so such a feed would count every
    other feed's and dataset's partitions as its own, and rescan the whole tree."""
    hint = (
        "give the feed a directory of its own below the landing directory, e.g. "
        'path="${landing}/clicks"'
    )
    if not path.strip():
        shown = f" [{written.strip()}]" if written.strip() else ""
        raise _bad(doc, el, "feed/@path", f"feed [{name}] has an empty path{shown}", hint)
    base = Path(doc.file).resolve().parent  # a relative path is the coordinator's neighbour
    resolved = (base / path).resolve()
    shown = f"[{written.strip()}]" + (
        f" (= {resolved})" if str(resolved) != written.strip() else ""
    )
    if resolved == Path("/"):
        raise _bad(
            doc,
            el,
            "feed/@path",
            f"feed [{name}] path {shown} is the root of the file system: it would watch "
            "every directory there is",
            hint,
        )
    if landing and landing.startswith("/"):
        root = Path(landing).resolve()
        if root == resolved or root.is_relative_to(resolved):
            where_ = "is the landing directory" if root == resolved else "holds the landing"
            raise _bad(
                doc,
                el,
                "feed/@path",
                f"feed [{name}] path {shown} {where_}"
                + ("" if root == resolved else f" directory {root}")
                + ": every partition that lands there, any other feed's or dataset's, would "
                "count as this feed's",
                hint,
            )


FLAG_HINT = (
    "use the same done-flag for both, or another directory for one of them (a partition is "
    "recorded once per path, so a path has one done-flag)"
)


def flag_text(flag: str) -> str:
    """How an error shows a done-flag (an empty one is a feed of files)."""
    return f'done-flag="{flag}"' + ("" if flag else " (files)")


GROUP_HINT = (
    "give every schedule of a concurrency group the same max (it is the group's limit), or "
    "another group name to one of them"
)


def group_line(file: str) -> int | None:
    """The line of an events coordinator's ``<concurrency group=…>`` (None if unreadable)."""
    root = xmlsafe.reread(file)
    constraints = xmlsafe.child(root, "constraints") if root is not None else None
    conc = xmlsafe.child(constraints, "concurrency") if constraints is not None else None
    return conc.sourceline if conc is not None else None


def group_clash_error(
    name: str, file: str | None, group: str, group_max: int, other: str, other_max: int
) -> SpecError:
    """Two schedules of one concurrency group with different limits: each would hold its jobs
    by its own, and the group run more at once than either says (QA (o))."""
    return SpecError(
        "E1003",
        f"Invalid coordinator application attributes, coordinator [{name}] limits concurrency "
        f"group [{group}] to {group_max} at once, but {other} limits it to {other_max}",
        hint=GROUP_HINT,
        file=file,
        line=group_line(file) if file else None,
    )


def feed_line(file: str, index: int) -> int | None:
    """The line of the ``index``-th ``<feed>`` of an events coordinator file (the model keeps
    no lines), or None when the file cannot be read now."""
    root = xmlsafe.reread(file)
    feeds = xmlsafe.child(root, "feeds") if root is not None else None
    found = list(xmlsafe.children(feeds, "feed")) if feeds is not None else []
    return found[index].sourceline if index < len(found) else None


def _check_not_itself(doc: XmlDocument, trigger: TriggerNode, name: str) -> None:
    """A ``<program>`` naming the schedule itself: each run's end would fire the next, for
    ever (QA: 1,457 runs in 12 s)."""
    for program, line in zip(programs(trigger), program_lines(doc.file), strict=False):
        if program.coordinator == name:
            err = _bad(
                doc,
                doc.root,
                "trigger/program/@coordinator",
                f"program trigger on [{name}] itself: each run would start the next, for ever",
                "name another coordinator of the bundle; for runs at intervals use <cron>",
            )
            err.line = line
            raise err


def program_lines(file: str) -> list[int | None]:
    """The lines of the ``<program>`` triggers of an events coordinator file, in document
    order (the order of the model's trigger tree, depth first)."""
    root = xmlsafe.reread(file)
    trigger = xmlsafe.child(root, "trigger") if root is not None else None
    if trigger is None:
        return []
    return [el.sourceline for el in trigger.iter() if xmlsafe.local_name(el) == "program"]


def programs(node: TriggerNode) -> list[Program]:
    """The ``<program>`` leaves of a trigger tree, depth first (document order)."""
    if isinstance(node, Program):
        return [node]
    if isinstance(node, AllOf | AnyOf):
        return [p for c in node.children for p in programs(c)]
    return []


def _has_event_leaf(node: TriggerNode) -> bool:
    if isinstance(node, Partitions | Bytes | Program):
        return True
    if isinstance(node, AllOf | AnyOf):
        return any(_has_event_leaf(c) for c in node.children)
    return False


def _check_waits(doc: XmlDocument, el: Element, trigger: TriggerNode) -> None:
    """A ``<wait>`` counts from the first or last event of the schedule's window; a trigger
    without a partitions, bytes or program leaf has no event, so its waits never end."""
    if _has_event_leaf(trigger):
        return
    wait = next((w for w in el.iter() if xmlsafe.local_name(w) == "wait"), None)
    if wait is None:
        return
    raise _bad(
        doc,
        wait,
        "trigger/wait",
        "a <wait> needs an event to start from, and this trigger has none (no <partitions>, "
        "<bytes> or <program>): it would never fire",
        'combine the wait with an event, e.g. <and><partitions feed="f"/><wait '
        'duration="PT10M" after="last-event"/></and>; for a timer use <cron>',
    )


def _node(
    doc: XmlDocument, el: Element, resolver: Resolver, feeds: dict[str, Feed], tz: str
) -> TriggerNode:
    kind = xmlsafe.local_name(el)
    here = f"trigger/{kind}"

    def feed_of() -> str:
        name = resolver.text(el.get("feed", ""), where(doc, el, f"{here}/@feed")).strip()
        if name not in feeds:
            raise _bad(
                doc,
                el,
                f"{here}/@feed",
                f"unknown feed [{name}]",
                f"feeds are: {', '.join(feeds) or 'none (add a <feeds> section)'}",
            )
        return name

    if kind == "partitions":
        feed = feed_of()
        count = resolver.integer(el.get("count", "1"), where(doc, el, f"{here}/@count"))
        if count < 1:
            raise _bad(
                doc,
                el,
                f"{here}/@count",
                f"count must be at least 1, got {count}",
                'e.g. count="4"',
            )
        return Partitions(feed, count)
    if kind == "bytes":
        feed = feed_of()
        text = resolver.text(el.get("at-least", ""), where(doc, el, f"{here}/@at-least"))
        try:
            size = parse_bytes(text)
        except ValueError as exc:
            raise _bad(doc, el, f"{here}/@at-least", str(exc), 'e.g. at-least="100GB"') from None
        if size < 1:  # always true: it would fire again as soon as it fired
            raise _bad(
                doc,
                el,
                f"{here}/@at-least",
                f"at-least must be at least one byte, got [{text.strip()}]",
                'e.g. at-least="100GB"; to fire on every partition, use <partitions feed="…"/>',
            )
        return Bytes(feed, size)
    if kind == "cron":
        expr = resolver.text(
            el.get("expression", ""), where(doc, el, f"{here}/@expression")
        ).strip()
        try:
            cron = LocalCron(expr, tz)
        except BundletuiError as exc:
            raise where(doc, el, f"{here}/@expression").error(
                exc.code, exc.message, exc.hint
            ) from None
        if cron.next_after(_CRON_PROBE) is None:  # as a time coordinator's frequency is
            raise where(doc, el, f"{here}/@expression").error(
                "E1003",
                f"Invalid cron expression [{cron.expr}]: it never fires (no such date)",
                "check the day of the month against the month (0 0 31 2 * is February 31)",
            )
        return Cron(cron.expr)
    if kind == "program":
        coord = resolver.text(
            el.get("coordinator", ""), where(doc, el, f"{here}/@coordinator")
        ).strip()
        status = (
            resolver.text(el.get("status", "SUCCEEDED"), where(doc, el, f"{here}/@status"))
            .strip()
            .upper()
        )
        if status not in STATUSES:
            raise _bad(
                doc,
                el,
                f"{here}/@status",
                f"status [{status}] is not one of {', '.join(STATUSES)}",
                'e.g. status="SUCCEEDED"',
            )
        return Program(coord, status)
    if kind == "wait":
        text = resolver.text(el.get("duration", ""), where(doc, el, f"{here}/@duration"))
        after = resolver.text(
            el.get("after", "first-event"), where(doc, el, f"{here}/@after")
        ).strip()
        if after not in ("first-event", "last-event"):
            raise _bad(
                doc,
                el,
                f"{here}/@after",
                f"after must be first-event or last-event, not [{after}]",
                'after="last-event" waits for a quiet period',
            )
        return Wait(_duration(doc, el, f"{here}/@duration", text), WaitFrom(after))
    children = tuple(_node(doc, c, resolver, feeds, tz) for c in xmlsafe.children(el))
    return AllOf(children) if kind == "and" else AnyOf(children)


def _duration(doc: XmlDocument, el: Element, field: str, text: str) -> int:
    try:
        ms = parse_duration_ms(text)
    except ValueError as exc:
        raise _bad(doc, el, field, str(exc), "ISO-8601: PT5M, PT3H, P1D") from None
    if ms > JAVA_INT_MAX * 60_000:  # the engine's times would leave the calendar
        raise _bad(
            doc,
            el,
            field,
            f"{field} [{text.strip()}] is out of range",
            f"a duration is at most {JAVA_INT_MAX} minutes (about 4085 years), the longest "
            "timeout or wait a coordinator can have",
        )
    return ms


def _constraints(doc: XmlDocument, el: Element | None, resolver: Resolver) -> Constraints:
    if el is None:
        return Constraints()
    kw: dict[str, object] = {}
    conc = xmlsafe.child(el, "concurrency")
    if conc is not None:
        n = resolver.integer(conc.get("max", ""), where(doc, conc, "constraints/concurrency/@max"))
        if n < 1:
            raise _bad(
                doc, conc, "concurrency/@max", f"max must be at least 1, got {n}", 'e.g. max="1"'
            )
        group = conc.get("group")
        if group:
            kw["group"] = resolver.text(
                group, where(doc, conc, "constraints/concurrency/@group")
            ).strip()
            kw["group_max"] = n
        else:
            kw["concurrency"] = n
    delay, delay_ms = "", 0  # as resolved, for the timeout's check
    for tag, key in (("delay", "delay_ms"), ("since-last-run", "since_last_run_ms")):
        child = xmlsafe.child(el, tag)
        if child is not None:
            text = resolver.text(xmlsafe.text(child), where(doc, child, f"constraints/{tag}"))
            kw[key] = ms = _duration(doc, child, f"constraints/{tag}", text)
            if tag == "delay":
                delay, delay_ms = text.strip(), ms
    win = xmlsafe.child(el, "time-window")
    if win is not None:
        start, end = (
            resolver.text(win.get(k, ""), where(doc, win, f"constraints/time-window/@{k}")).strip()
            for k in ("start", "end")
        )
        try:
            window = TimeWindow(parse_clock(start), parse_clock(end))
        except ValueError as exc:
            raise _bad(
                doc, win, "constraints/time-window", str(exc), 'e.g. start="22:00" end="06:00"'
            ) from None
        if window.start_minute == window.end_minute:  # CDAP's TimeRangeConstraint refuses it
            raise _bad(
                doc,
                win,
                "constraints/time-window",
                f"time-window start and end are both {start}: the window is empty",
                'give a window of some length, e.g. start="22:00" end="06:00" (it may span '
                "midnight); for no time limit, leave out <time-window>",
            )
        kw["window"] = window
    timeout = xmlsafe.child(el, "timeout")
    if timeout is not None:
        text = resolver.text(xmlsafe.text(timeout), where(doc, timeout, "constraints/timeout"))
        kw["timeout_ms"] = timeout_ms = _duration(doc, timeout, "constraints/timeout", text)
        mode = resolver.text(
            timeout.get("on-timeout") or "discard",
            where(doc, timeout, "constraints/timeout/@on-timeout"),
        ).strip()
        if mode not in ("discard", "force"):
            raise _bad(
                doc,
                timeout,
                "constraints/timeout/@on-timeout",
                f"on-timeout must be discard or force, not [{mode}]",
                'on-timeout="force" starts the job anyway',
            )
        kw["on_timeout"] = OnTimeout(mode)
        if mode == "discard" and delay_ms > timeout_ms:
            raise _bad(  # no job could ever launch
                doc,
                timeout,
                "constraints/timeout",
                f"the timeout [{text.strip()}] is shorter than the delay [{delay}]: every "
                "fired job would be discarded before its delay is over",
                "make the timeout at least as long as the delay (a job whose delay ends at the "
                'timeout runs), or on-timeout="force" to start it at the timeout',
            )
    return Constraints(**kw)  # type: ignore[arg-type]

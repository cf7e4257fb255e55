"""Event schedules (CDAP, seed 004) as pure data and pure decisions.

A schedule = a coordinator whose actions are created by a **trigger** (N new partitions, bytes
arrived, a cron time, another coordinator's outcome, a wait after the first/last event, and any
AND / OR nesting) and launched once its **run constraints** hold (concurrency per schedule and
per group, a delay, a time window, a minimum time since the last run, a timeout that discards
or forces). Trigger and constraint evaluation here are pure: the engine hands in what the
pending job has accumulated and the moment, and gets a verdict and the next time to look again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import StrEnum

from bundletui.model.clock import to_ms
from bundletui.model.timeutil import first_instant, parse_timezone, wall_clock


class OnTimeout(StrEnum):
    DISCARD = "discard"
    FORCE = "force"


class WaitFrom(StrEnum):
    FIRST_EVENT = "first-event"
    LAST_EVENT = "last-event"


@dataclass(frozen=True, slots=True)
class Feed:
    name: str
    path: str  # absolute local directory
    done_flag: str = "_SUCCESS"  # "" = each complete file under the path is a partition


@dataclass(frozen=True, slots=True)
class Partitions:
    feed: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Bytes:
    feed: str
    at_least: int


@dataclass(frozen=True, slots=True)
class Cron:
    expression: str  # standard 5-field cron in the coordinator's timezone


@dataclass(frozen=True, slots=True)
class Program:
    coordinator: str  # the other coordinator's name
    status: str = "SUCCEEDED"  # SUCCEEDED | FAILED | KILLED


@dataclass(frozen=True, slots=True)
class Wait:
    """Satisfied ``duration`` after the first (or, for a quiet period, the last) event."""

    duration_ms: int
    after: WaitFrom = WaitFrom.FIRST_EVENT


@dataclass(frozen=True, slots=True)
class AllOf:
    children: tuple[TriggerNode, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    children: tuple[TriggerNode, ...]


TriggerNode = Partitions | Bytes | Cron | Program | Wait | AllOf | AnyOf


@dataclass(frozen=True, slots=True)
class TimeWindow:
    start_minute: int  # minutes after local midnight
    end_minute: int  # exclusive; may be <= start (the window spans midnight)


@dataclass(frozen=True, slots=True)
class Constraints:
    concurrency: int | None = None  # runs of this schedule at once
    group: str | None = None  # a named group across schedules …
    group_max: int | None = None  # … and its limit
    delay_ms: int = 0
    window: TimeWindow | None = None
    since_last_run_ms: int = 0
    timeout_ms: int | None = None
    on_timeout: OnTimeout = OnTimeout.DISCARD


@dataclass(frozen=True, slots=True)
class EventSpec:
    feeds: tuple[Feed, ...]
    trigger: TriggerNode
    constraints: Constraints = field(default_factory=Constraints)
    priority: int = 0

    def feed(self, name: str) -> Feed:
        for f in self.feeds:
            if f.name == name:
                return f
        raise KeyError(name)


# ----------------------------------------------------------------------------- event keys


def partition_key(feed_path: str) -> str:
    return f"partition:{feed_path.rstrip('/')}"


def program_key(coordinator: str, status: str) -> str:
    return f"program:{coordinator}:{status}"


def event_keys(spec: EventSpec) -> list[str]:
    """The reverse-index keys a schedule listens on (a cron or wait leaf has none)."""
    keys: list[str] = []

    def walk(node: TriggerNode) -> None:
        if isinstance(node, Partitions | Bytes):
            keys.append(partition_key(spec.feed(node.feed).path))
        elif isinstance(node, Program):
            keys.append(program_key(node.coordinator, node.status))
        elif isinstance(node, AllOf | AnyOf):
            for child in node.children:
                walk(child)

    walk(spec.trigger)
    return sorted(set(keys))


# ----------------------------------------------------------------------------- triggers


@dataclass(frozen=True, slots=True)
class Event:
    """One event a pending job has accumulated."""

    key: str
    time_ms: int
    size: int = 0
    path: str = ""


@dataclass(frozen=True, slots=True)
class Window:
    """What a pending job (PENDING_TRIGGER) has seen since it opened."""

    opened_ms: int
    events: Sequence[Event]
    cron_fired: frozenset[str] = frozenset()  # cron expressions whose time has come


@dataclass(frozen=True, slots=True)
class TriggerVerdict:
    fired: bool
    next_check_ms: int | None = None  # a Wait leaf becomes true then


def evaluate(spec: EventSpec, window: Window, now_ms: int) -> TriggerVerdict:
    """Has the trigger fired for this window? If not, when could time alone make it fire?"""
    wake: list[int] = []
    fired = _eval(spec, spec.trigger, window, now_ms, wake)
    return TriggerVerdict(fired, min(wake) if wake and not fired else None)


def _eval(spec: EventSpec, node: TriggerNode, w: Window, now: int, wake: list[int]) -> bool:
    if isinstance(node, Partitions):
        key = partition_key(spec.feed(node.feed).path)
        return sum(1 for e in w.events if e.key == key) >= node.count
    if isinstance(node, Bytes):
        key = partition_key(spec.feed(node.feed).path)
        return sum(e.size for e in w.events if e.key == key) >= node.at_least
    if isinstance(node, Cron):
        return node.expression in w.cron_fired
    if isinstance(node, Program):
        key = program_key(node.coordinator, node.status)
        return any(e.key == key for e in w.events)
    if isinstance(node, Wait):
        if not w.events:
            return False
        ref = w.events[0].time_ms if node.after is WaitFrom.FIRST_EVENT else w.events[-1].time_ms
        due = ref + node.duration_ms
        if now >= due:
            return True
        wake.append(due)
        return False
    if isinstance(node, AllOf):
        results = [_eval(spec, c, w, now, wake) for c in node.children]
        return all(results)
    results = [_eval(spec, c, w, now, wake) for c in node.children]
    return any(results)


def events_needed(node: TriggerNode) -> int | None:
    """The fewest events a window must hold before ``node`` can hold at all, or None when
    time alone can make it hold (a cron or a wait leaf: it must be looked at as time
    passes). A schedule waiting for 1,000 partitions need not be evaluated at each of the
    first 999 (QA: a burst was quadratic, each look reading every event of the window). A
    lower bound: an ``<and>`` of two leaves may share events (nested feeds), so its bound
    is its largest child's, not their sum."""
    if isinstance(node, Partitions):
        return node.count
    if isinstance(node, (Bytes, Program)):
        return 1
    if isinstance(node, (Cron, Wait)):
        return None
    bounds = [events_needed(c) for c in node.children]
    if any(b is None for b in bounds):
        return None
    numbers = [b for b in bounds if b is not None]
    return max(numbers) if isinstance(node, AllOf) else min(numbers)


_LEAF_NAMES: dict[type, str] = {
    Partitions: "partitions",
    Bytes: "bytes",
    Cron: "cron",
    Program: "program",
    Wait: "wait",
}


def satisfied_leaves(spec: EventSpec, window: Window, now_ms: int) -> list[str]:
    """The kinds of the trigger's leaves that hold for this window, in tree order, once each:
    what ``${trigger:reason()}`` tells the workflow (a wait that fired with a few partitions
    is ``partitions,wait`` only if the partitions leaf itself was satisfied)."""
    out: list[str] = []

    def walk(node: TriggerNode) -> None:
        if isinstance(node, AllOf | AnyOf):
            for child in node.children:
                walk(child)
        elif _eval(spec, node, window, now_ms, []):
            name = _LEAF_NAMES[type(node)]
            if name not in out:
                out.append(name)

    walk(spec.trigger)
    return out


@dataclass(frozen=True, slots=True)
class LeafProgress:
    """Where one leaf of a trigger stands for the job that fires next."""

    leaf: str  # the leaf in words, as trigger_text says it
    seen: str  # what it has towards it ("1 of 2", "300B of 1KB", "not yet", "due")
    met: bool
    at_ms: int | None = None  # when time alone makes it hold (a wait's due time)
    cron: str | None = None  # a cron leaf's expression (its next time is the caller's)


def trigger_progress(spec: EventSpec, window: Window, now_ms: int) -> list[LeafProgress]:
    """Each leaf of the trigger, in tree order, and how far the open job's events got
    towards it: what ``info`` says of a schedule that has not fired (a cron leaf's next time
    is the caller's: it knows the schedule's timezone and clock)."""
    out: list[LeafProgress] = []

    def walk(node: TriggerNode) -> None:
        if isinstance(node, AllOf | AnyOf):
            for child in node.children:
                walk(child)
            return
        wake: list[int] = []
        met = _eval(spec, node, window, now_ms, wake)
        seen = "seen" if met else "not yet"
        if isinstance(node, Partitions):
            key = partition_key(spec.feed(node.feed).path)
            have = sum(1 for e in window.events if e.key == key)
            seen = f"{min(have, node.count)} of {node.count}"
            if have > node.count:  # kept while it could not fire: the rest go to later firings
                seen += f" (+{have - node.count} kept for later)"
        elif isinstance(node, Bytes):
            key = partition_key(spec.feed(node.feed).path)
            have = sum(e.size for e in window.events if e.key == key)
            seen = f"{_approx_bytes(have)} of {_human_bytes(node.at_least)}"
        elif isinstance(node, Cron):
            seen = "due" if met else "next"
        elif isinstance(node, Wait):
            seen = "due" if met else ("counting" if wake else "no event yet")
        cron = node.expression if isinstance(node, Cron) else None
        out.append(LeafProgress(trigger_text(node), seen, met, wake[0] if wake else None, cron))

    walk(spec.trigger)
    return out


def cron_leaves(node: TriggerNode) -> list[str]:
    if isinstance(node, Cron):
        return [node.expression]
    if isinstance(node, AllOf | AnyOf):
        return [e for c in node.children for e in cron_leaves(c)]
    return []


def trigger_text(n: TriggerNode, top: bool = False) -> str:
    """A trigger in words, AND / OR as written (``3 new partitions of clicks OR cron '…'``),
    durations as an operator reads them (``10m``): dryrun, ``info`` and the console say it so."""
    if isinstance(n, Partitions):
        return f"{n.count} new partition{'s' if n.count != 1 else ''} of {n.feed}"
    if isinstance(n, Bytes):
        return f"{_human_bytes(n.at_least)} of {n.feed}"
    if isinstance(n, Cron):
        return f"cron '{n.expression}'"
    if isinstance(n, Program):
        return f"program {n.coordinator} {n.status}"
    if isinstance(n, Wait):
        return f"{span(n.duration_ms)} after the {n.after.value.replace('-', ' ')}"
    joined = (" AND " if isinstance(n, AllOf) else " OR ").join(trigger_text(c) for c in n.children)
    return joined if top else f"({joined})"


def iso_duration(ms: int) -> str:
    """Milliseconds as the ISO-8601 duration a definition is written in (``PT1H30M``)."""
    days, rest = divmod(ms, 86_400_000)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    clock += f"{rest / 1000:g}S" if rest else ""
    text = "P" + (f"{days}D" if days else "") + (f"T{clock}" if clock else "")
    return text if text != "P" else "PT0S"


def span(ms: int) -> str:
    """``PT1H30M`` as an operator reads it: ``1h30m``."""
    return iso_duration(ms).removeprefix("P").replace("T", "").lower()


def hhmm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def constraint_words(c: Constraints, concurrency: int | None, tz: str) -> list[str]:
    """One phrase per constraint, in the order the checker tries them after the timeout: the
    same words for ``dryrun``, ``info`` and the console (QA: dryrun said ``timeout 1800s``
    where info said ``timeout 30m``, and a window without its time zone)."""
    words = [f"concurrency {concurrency}"] if concurrency is not None else []
    if c.group:
        words.append(f"group {c.group}: {c.group_max} at once")
    if c.delay_ms:
        words.append(f"delay {span(c.delay_ms)}")
    if c.window is not None:
        words.append(f"time window {hhmm(c.window.start_minute)}-{hhmm(c.window.end_minute)} {tz}")
    if c.since_last_run_ms:
        words.append(f"{span(c.since_last_run_ms)} since the last run")
    if c.timeout_ms is not None:  # the same words as waitingFor's "times out at … (…)"
        then = "started anyway" if c.on_timeout == "force" else "discarded"
        words.append(f"timeout {span(c.timeout_ms)}, then {then}")
    return words


def describe(spec: EventSpec, tz: str) -> dict[str, object]:
    """When the schedule fires and what holds a fired job, in words (dryrun)."""
    c = spec.constraints
    return {
        "trigger": trigger_text(spec.trigger, top=True),
        "constraints": constraint_words(c, c.concurrency, tz),
        "priority": spec.priority,
    }


def _human_bytes(n: int) -> str:
    for unit in ("PB", "TB", "GB", "MB", "KB"):
        size = _BYTE_UNITS[unit]
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return f"{n}B"


def _approx_bytes(n: int) -> str:
    """A count seen, in the largest unit it reaches (``2.7KB``): ``2800B of 1KB`` read badly."""
    for unit in ("PB", "TB", "GB", "MB", "KB"):
        size = _BYTE_UNITS[unit]
        if n >= size:
            # rounded down: 2047 bytes of 2KB must not read "2.0KB of 2KB", as if it were met
            return _human_bytes(n) if n % size == 0 else f"{n * 10 // size / 10:.1f}{unit}"
    return f"{n}B"


# ----------------------------------------------------------------------------- constraints


class Verdict(StrEnum):
    SATISFIED = "SATISFIED"
    RETRY = "RETRY"  # look again at ``retry_at`` (or when a run finishes)
    NEVER = "NEVER"  # timed out: discard


@dataclass(frozen=True, slots=True)
class ConstraintVerdict:
    verdict: Verdict
    reason: str = ""  # which constraint holds the job, for "why is it waiting"
    retry_at_ms: int | None = None  # None with RETRY: wait for a run to finish
    forced: bool = False
    # what an operator is told: when the holding constraint itself lifts (None: when a run
    # ends), and the timeout apart (``retry_at_ms`` is the earlier of the two)
    lifts_at_ms: int | None = None
    timeout_at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ConstraintContext:
    fired_ms: int
    now_ms: int
    running: int  # runs of this schedule now
    group_running: int  # runs of the whole group now
    last_run_ms: int | None  # when this schedule last launched
    timezone: str = "UTC"


def check_constraints(c: Constraints, ctx: ConstraintContext) -> ConstraintVerdict:
    """CDAP's constraint checker: the first unmet constraint holds the job (seed 004). The
    timeout is how long to wait for them (seed 004), so constraints that hold at that instant
    launch the job: a delay as long as the timeout runs, it is not discarded."""
    now = ctx.now_ms
    deadline = ctx.fired_ms + c.timeout_ms if c.timeout_ms is not None else None
    # A look after the deadline (no engine ran, or SAFEMODE held the checks) asks whether the
    # time constraints held at the deadline, not whether they hold now: a job held by a
    # night window past its timeout is discarded, not launched at night.
    at = now if deadline is None else min(now, deadline)
    held: ConstraintVerdict | None = None
    if c.delay_ms and at < ctx.fired_ms + c.delay_ms:
        held = ConstraintVerdict(Verdict.RETRY, "delay", ctx.fired_ms + c.delay_ms)
    elif (
        c.since_last_run_ms
        and ctx.last_run_ms is not None
        and at < ctx.last_run_ms + c.since_last_run_ms
    ):
        held = ConstraintVerdict(
            Verdict.RETRY, "since-last-run", ctx.last_run_ms + c.since_last_run_ms
        )
    elif c.window is not None and not in_window(c.window, at, ctx.timezone):
        held = ConstraintVerdict(
            Verdict.RETRY, "time-window", next_window_start(c.window, at, ctx.timezone)
        )
    elif c.concurrency is not None and ctx.running >= c.concurrency:
        held = ConstraintVerdict(
            Verdict.RETRY, f"concurrency ({ctx.running}/{c.concurrency} running)"
        )
    elif c.group and c.group_max is not None and ctx.group_running >= c.group_max:
        held = ConstraintVerdict(
            Verdict.RETRY, f"group {c.group} ({ctx.group_running}/{c.group_max} running)"
        )
    if held is None:
        return ConstraintVerdict(Verdict.SATISFIED)
    if deadline is not None and now >= deadline:
        if c.on_timeout is OnTimeout.FORCE:
            return ConstraintVerdict(Verdict.SATISFIED, "timeout reached: forced", forced=True)
        return ConstraintVerdict(Verdict.NEVER, f"timeout reached ({held.reason}): discarded")
    retry = held.retry_at_ms
    if deadline is not None:  # looked at again by the timeout, if the constraint lasts longer
        retry = deadline if retry is None else min(retry, deadline)
    return ConstraintVerdict(
        Verdict.RETRY,
        held.reason,
        retry,
        lifts_at_ms=held.retry_at_ms,
        timeout_at_ms=deadline,
    )


def _local(now_ms: int, tz: str) -> datetime:
    zone = parse_timezone(tz)
    return datetime.fromtimestamp(now_ms / 1000, tz=zone)


def in_window(w: TimeWindow, now_ms: int, tz: str) -> bool:
    """Whether the window is open: its wall times, and on a spring-forward day whose shift
    skipped its opening, its length from the shift (02:00-03:00 in New York on the change
    day is 03:00-04:00 EDT), as :func:`next_window_start` promises it opens then."""
    local = _local(now_ms, tz)
    minute = local.hour * 60 + local.minute
    if w.start_minute < w.end_minute:
        if w.start_minute <= minute < w.end_minute:
            return True
    elif minute >= w.start_minute or minute < w.end_minute:  # spans midnight
        return True
    length_ms = (w.end_minute - w.start_minute) % 1440 * 60_000
    for back in (0, 1):  # an opening on the day before, for a window spanning midnight
        opens, skipped = _opening(w, (local - timedelta(days=back)).date(), tz)
        if skipped and opens <= now_ms < opens + length_ms:
            return True
    return False


def _opening(w: TimeWindow, day: date, tz: str) -> tuple[int, bool]:
    """When the window opens on a local day, and whether a forward shift skipped its wall
    time (it then opens at the shift)."""
    naive = datetime(day.year, day.month, day.day, w.start_minute // 60, w.start_minute % 60)
    at = first_instant(naive, tz)
    return to_ms(at), wall_clock(at, tz) != naive


def next_window_start(w: TimeWindow, now_ms: int, tz: str) -> int:
    """The next instant the window opens (local wall time; a skipped time opens at the shift)."""
    local = _local(now_ms, tz)
    for days in range(0, 3):
        ms, _skipped = _opening(w, (local + timedelta(days=days)).date(), tz)
        if ms > now_ms:
            return ms
    return now_ms + 86_400_000


# ----------------------------------------------------------------------------- parsing helpers

_BYTE_UNITS = {
    "": 1,
    "B": 1,
    "KB": 1024,
    "MB": 1024**2,
    "GB": 1024**3,
    "TB": 1024**4,
    "PB": 1024**5,
}


MAX_BYTES = 2**63 - 1  # a Java long, as a byte count is stored


def parse_bytes(text: str) -> int:
    """``100GB`` -> bytes (binary units, as Oozie's KB..PB EL constants), exactly: ``1.5KB``
    is 1536 with no float in between, and a size past a Java long is refused."""
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?([KMGTP]?B)?", text.strip().upper().replace(" ", ""))
    if m is None or (m.group(3) or "B") not in _BYTE_UNITS:
        raise ValueError(f"not a size: {text!r} (use e.g. 500MB, 100GB)")
    whole, fraction = m.group(1), m.group(2) or ""
    unit = _BYTE_UNITS[m.group(3) or "B"]
    size = (int(whole + fraction) * unit) // 10 ** len(fraction)
    if size > MAX_BYTES:
        raise ValueError(f"size out of range: {text.strip()!r} (at most 8191PB, a Java long)")
    return size


def parse_duration_ms(text: str) -> int:
    """ISO-8601 durations ``PT5M``, ``PT3H``, ``P1D``, ``P1DT2H30M``, ``PT0.5S``."""
    m = re.fullmatch(
        r"P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?",
        text.strip().upper(),
    )
    if not m or text.strip().upper() in ("P", "PT"):
        ym = re.fullmatch(r"P(\d+Y)?(\d+M)?(?:\d+W)?(?:\d+D)?(?:T.*)?", text.strip().upper())
        if ym and (ym.group(1) or ym.group(2)):
            raise ValueError(  # P1Y, P1M: ISO-8601, but of no fixed length
                f"years and months are not supported in a duration: {text.strip()!r} "
                "(use weeks or days, e.g. P30D, P52W)"
            )
        raise ValueError(f"not an ISO-8601 duration: {text!r} (use e.g. PT5M, PT3H, P1D)")
    w, d, h, mi, s = m.groups()
    total = (
        (int(w or 0) * 7 + int(d or 0)) * 86400
        + int(h or 0) * 3600
        + int(mi or 0) * 60
        + float(s or 0)
    )
    return int(total * 1000)


def parse_clock(text: str) -> int:
    """``22:00`` -> minutes after midnight."""
    hh, sep, mm = text.strip().partition(":")
    if (
        not sep
        or not hh.isdigit()
        or not mm.isdigit()
        or not (0 <= int(hh) <= 23 and 0 <= int(mm) <= 59)
    ):
        raise ValueError(f"not a time of day: {text!r} (use HH:MM, e.g. 22:00)")
    return int(hh) * 60 + int(mm)

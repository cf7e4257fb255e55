"""Why a WAITING or READY action waits (``waitingFor``): the missing inputs, the control or the
run constraint that holds it. Oozie's JSON leaves an operator to guess.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from bundletui.commands.coordinators import app_of, skip_deadline
from bundletui.commands.queries import rfc822
from bundletui.model.apps import ExecutionOrder
from bundletui.model.status import COORD_SUBMITTABLE, COORD_SUSPENDED, ActionStatus, JobStatus
from bundletui.store import jobs
from bundletui.store.db import system_mode
from bundletui.store.rows import ActionRow, CoordRow

A = ActionStatus


@dataclass
class Holds:
    """What a coordinator's state says about its READY actions (computed once per page)."""

    coord: CoordRow
    counts: dict[str, int]
    active: int = 0
    _order: ExecutionOrder = field(default=ExecutionOrder.FIFO)
    safemode: bool = False  # the engine checks, launches and times out nothing until NORMAL

    @classmethod
    def of(
        cls, conn: sqlite3.Connection, coord: CoordRow, counts: dict[str, int] | None = None
    ) -> Holds:
        counts = jobs.action_counts(conn, coord.id) if counts is None else counts
        return cls(
            coord,
            counts,
            counts.get(A.SUBMITTED, 0) + counts.get(A.RUNNING, 0),
            ExecutionOrder(coord.execution),
            system_mode(conn) == "SAFEMODE",
        )

    def ready(self) -> dict[str, Any]:
        status = JobStatus(self.coord.status)
        limit = self.coord.concurrency
        if status not in COORD_SUBMITTABLE:
            return {
                "reason": "coordinator",
                "status": str(status),
                "detail": f"coordinator {status}: nothing is launched until it runs again",
            }
        if self.safemode:
            return {
                "reason": "safemode",
                "detail": "system SAFEMODE: nothing is launched until the mode is NORMAL",
            }
        if 0 <= limit <= self.active:
            return {
                "reason": "concurrency",
                "running": self.active,
                "limit": limit,
                "detail": f"concurrency {self.active}/{limit} running",
            }
        return {
            "reason": "launch",
            "running": self.active,
            "limit": limit,
            "detail": f"a slot is free ({self.active}/{'∞' if limit < 0 else limit} running): "
            f"launching next in {self._order} order",
        }


def waiting_for(
    conn: sqlite3.Connection, action: ActionRow, holds: Holds, tz: str = "GMT"
) -> dict[str, Any] | None:
    """Why a WAITING action waits (its missing inputs) or a READY one (which control holds it),
    and, under LAST_ONLY or NONE, when it is SKIPPED if it has not started by then."""
    why = _waiting_for(conn, action, holds, tz)
    if why is not None and holds.coord.execution in ("LAST_ONLY", "NONE") and not action.trigger:
        at = skip_deadline(holds.coord, app_of(holds.coord, conn), action)
        if at is not None:
            why["skipAt"] = rfc822(at, tz)
            why["detail"] += (
                f"; {holds.coord.execution}: SKIPPED after {why['skipAt']} unless it starts"
            )
    return why


def _waiting_for(
    conn: sqlite3.Connection, action: ActionRow, holds: Holds, tz: str
) -> dict[str, Any] | None:
    if action.status == A.READY:
        return holds.ready()
    if action.status != A.WAITING:
        return None
    recorded = held_record(action)  # what the engine's last look recorded, read once
    held = recorded if "constraint" in recorded else None
    if held is not None:  # an event-triggered action held by a run constraint (seed 004)
        until, timeout = held.get("until"), held.get("timeout")
        when = rfc822(until, tz) if isinstance(until, int) else None
        ends = rfc822(timeout, tz) if isinstance(timeout, int) else None
        outcome = "started anyway" if held.get("onTimeout") == "force" else "discarded"
        detail = f"held by {held['constraint']}" + (f" until {when}" if when else "")
        if ends:  # said apart: at the timeout the job is discarded (or forced), not released
            detail += f"; times out at {ends} ({outcome})"
        if holds.safemode:  # the engine checks no constraint then, nor times the job out
            detail += "; system SAFEMODE: constraints are checked when the mode is NORMAL"
        # the key names the kind ("concurrency", "group", "time-window"…); the detail has the
        # counts ("group heavy (1/1 running)"), which change from one look to the next
        kind, _, rest = str(held["constraint"]).partition(" ")
        said: dict[str, Any] = {
            "reason": "constraint",
            "constraint": kind,
            "until": when,
            "timeoutAt": ends,
            "detail": detail,
        }
        if kind == "group":
            said["group"] = rest.partition(" (")[0]
        return said
    if action.trigger:  # an event schedule's action has no inputs: its constraints decide
        when = " (system SAFEMODE: when the mode is NORMAL)" if holds.safemode else ""
        return {"reason": "check", "detail": f"run constraints not checked yet{when}"}
    missing, unresolved, total, unavailable = missing_inputs(conn, action, recorded)
    out: dict[str, Any] = {
        "reason": "inputs",
        "missing": missing,
        "missingCount": max(len(missing), unavailable),
        "inputs": total,
        "timeoutAt": rfc822(action.timeout_at, tz),
    }
    if unresolved:
        out["unresolved"] = unresolved
    count = out["missingCount"]
    if missing:
        more = f" (+{count - 1} more)" if count > 1 else ""
        of = f" of {total}" if total >= count else ""
        out["detail"] = f"{count}{of} inputs missing: {missing[0]}{more}"
    elif unresolved:
        out["detail"] = f"unresolved input {unresolved[0]}"
    elif action.held_by is None and total == 0:
        out["reason"] = "check"
        out["detail"] = "inputs not checked yet"
    else:
        out["detail"] = "inputs available; READY at the next input check"
    if isinstance(recorded.get("waitUntil"), int):  # an input-logic wait= holds it
        until, what = rfc822(recorded["waitUntil"], tz), str(recorded.get("waitFor") or "")
        out["waitUntil"], out["waitFor"] = until, what
        out["detail"] += (
            f"; input-logic wait= waits for {what} until {until}, then takes what its min= or"
            " the next alternative of its <or> allows"
        )
    # what stops the engine checking the inputs now (Oozie's check runs for a RUNNING or PAUSED
    # job only): then the missing ones are as its last look found them, and this is why it waits
    if holds.coord.status in COORD_SUSPENDED:
        out["checkHeld"] = f"coordinator {holds.coord.status}: inputs are checked after resume"
    elif holds.safemode:
        out["checkHeld"] = "system SAFEMODE: inputs are checked when the mode is NORMAL"
    if "checkHeld" in out:
        out["detail"] += f"; {out['checkHeld']}"
    return out


def held_record(action: ActionRow) -> dict[str, Any]:
    """What the engine recorded of why an action waits (its ``held_by`` JSON: the missing
    inputs and an input-logic wait, or the run constraint holding an event job); {} if none."""
    try:
        held = json.loads(action.held_by or "null")
    except ValueError:
        return {}
    return held if isinstance(held, dict) else {}


def missing_inputs(
    conn: sqlite3.Connection, action: ActionRow, held: dict[str, Any]
) -> tuple[list[str], list[str], int, int]:
    """(missing URIs, unresolved instances, #dependencies, #unavailable) of a WAITING action."""
    deps = jobs.input_deps_of(conn, action.id)
    unavailable = [path for path, _name, _seq, ok in deps if not ok]
    missing = held.get("missing")
    unresolved = held.get("unresolved")
    if not isinstance(missing, list):
        missing = unavailable
    # latest()/future() instances not resolved yet are EL text, not paths (Oozie's "!!" part)
    paths = [str(m) for m in missing if not str(m).startswith("${")]
    pending = [str(m) for m in missing if str(m).startswith("${")]
    pending += [str(u) for u in unresolved or () if str(u) not in pending]
    return paths, pending, len(deps), len(unavailable)

"""The engine's use of :mod:`bundletui.spec.materialize`: plans stored as JSON on the action.

The action's ``plan`` column holds the creation-phase plan and, once the action is READY, the
URIs the input check chose (what ``coord:dataIn`` returns at launch), so a launch after a
restart sees exactly what the input check saw.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bundletui.commands.coordinators import conf_of
from bundletui.model.apps import CoordinatorApp
from bundletui.model.clock import from_ms, to_ms
from bundletui.spec import materialize as mat
from bundletui.store.rows import ActionRow, CoordRow


@dataclass
class Result:
    ready: bool
    missing: list[str]
    unresolved: list[str]
    wait_until: int | None
    wait_for: str | None = None
    plan_json: dict[str, Any] = field(default_factory=dict)


def plan(
    conn: sqlite3.Connection,
    app: CoordinatorApp,
    coord: CoordRow,
    number: int,
    nominal_ms: int,
    now: int,
) -> mat.ActionPlan:
    return mat.plan_action(
        app,
        conf_of(coord, conn),
        coord_id=coord.id,
        number=number,
        nominal=from_ms(nominal_ms),
        actual=from_ms(now),
    )


def dependencies(p: mat.ActionPlan) -> list[tuple[str, str]]:
    """(done path, data-in name) in materialization order."""
    return [(path, d.name) for d in p.data_ins for path in d.done_paths]


def load_plan(
    conn: sqlite3.Connection, app: CoordinatorApp, coord: CoordRow, action: ActionRow, now: int
) -> mat.ActionPlan:
    """The stored plan, or a fresh one (after ``rerun --refresh`` dropped it)."""
    if action.plan:
        return mat.ActionPlan.from_dict(json.loads(action.plan)["plan"])
    return plan(conn, app, coord, action.action_number, action.nominal_time, now)


def check(
    app: CoordinatorApp, p: mat.ActionPlan, now: int, exists: Callable[[str], bool]
) -> Result:
    c = mat.check_inputs(app, p, now=from_ms(now), exists=exists)
    stored: dict[str, Any] = {"plan": p.to_dict()}
    if c.ready:
        stored["data_in"] = {k: list(v) if v is not None else None for k, v in c.data_in.items()}
    return Result(
        ready=c.ready,
        missing=list(c.missing),
        unresolved=list(c.unresolved),
        wait_until=to_ms(c.waiting_until) if c.waiting_until is not None else None,
        wait_for=c.waiting_for,
        plan_json=stored,
    )


def run_conf(
    conn: sqlite3.Connection, app: CoordinatorApp, coord: CoordRow, action: ActionRow, now: int
) -> dict[str, str]:
    if app.events is not None:
        from bundletui.spec.event_el import event_run_conf

        fired = json.loads(action.trigger or "{}")
        return event_run_conf(
            app,
            conf_of(coord, conn),
            fired,
            coord_id=coord.id,
            action_id=action.id,
            user=coord.user,
            now=from_ms(now),
        )
    stored = json.loads(action.plan or "{}")
    p = mat.ActionPlan.from_dict(stored["plan"])
    data_in = {
        k: tuple(v) if v is not None else None for k, v in (stored.get("data_in") or {}).items()
    }
    checked = mat.InputCheck(ready=True, data_in=data_in)
    return mat.run_conf(
        app,
        conf_of(coord, conn),
        p,
        checked,
        coord_id=coord.id,
        action_id=action.id,
        user=coord.user,
        now=from_ms(now),
    )


def data_outs(action: ActionRow) -> dict[str, list[str]]:
    stored = json.loads(action.plan or "{}")
    return {d["name"]: list(d["uris"]) for d in (stored.get("plan") or {}).get("data_outs", [])}

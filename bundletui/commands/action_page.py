"""A coordinator's actions as Oozie's JSON, a page at a time with Oozie's
``-filter``/``-order``/``-offset``/``-len`` (oozie.md §6.1).

The page is one indexed query (``UNIQUE(coord_id, nominal_time)`` gives the order), and
``total`` comes from the trigger-kept counts whenever the filter is on status only, so a page
costs O(page), not O(actions).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from bundletui.commands.base import fail
from bundletui.commands.event_json import fired_by_key
from bundletui.commands.queries import FILTER_LIMIT, conf_xml, one_line, rfc822
from bundletui.commands.waiting import Holds, held_record, missing_inputs, waiting_for
from bundletui.errors import BundletuiError, CommandError
from bundletui.model.clock import to_ms
from bundletui.model.status import ActionStatus
from bundletui.model.timeutil import parse_oozie_time
from bundletui.store import filters, jobs
from bundletui.store.filters import ACTION_ORDERS, ActionOrder
from bundletui.store.rows import ActionRow, CoordRow

A = ActionStatus

# Workflow-following action statuses, which equal the launched workflow's status.
_FOLLOWS_WORKFLOW = frozenset({A.RUNNING, A.SUSPENDED, A.SUCCEEDED, A.FAILED, A.KILLED})


@dataclass
class ActionPage:
    actions: list[dict[str, Any]]
    total: int
    offset: int
    length: int | None
    order: str
    filter: str


def _missing_text(paths: list[str], unresolved: list[str] | None) -> str:
    """Oozie's missingDependencies: paths joined by #, unresolved instances after !!."""
    return "#".join(paths) + ("!!" + "#".join(unresolved) if unresolved else "")


def action_json(
    conn: sqlite3.Connection,
    action: ActionRow,
    coord: CoordRow,
    holds: Holds,
    *,
    tz: str = "GMT",
    created_conf: str | None = None,
) -> dict[str, Any]:
    why = waiting_for(conn, action, holds, tz)
    missing = ""
    if why is not None and why["reason"] == "inputs":
        missing = _missing_text(why["missing"], why.get("unresolved"))
    elif why is None and action.external_id is None and not action.trigger:
        # an action that ended without running (TIMEDOUT, KILLED while it waited) keeps what it
        # was missing, as Oozie's row does: the operator's first question is which input
        paths, unresolved, _total, _unavailable = missing_inputs(conn, action, held_record(action))
        missing = _missing_text(paths, unresolved)
    run_conf = action.run_conf_dict()
    status = action.status
    return {
        "id": action.id,
        "coordJobId": action.coord_id,
        "type": None,
        "actionNumber": action.action_number,
        "createdConf": created_conf if created_conf is not None else conf_xml(coord.conf_dict()),
        "createdTime": rfc822(action.created_time, tz),
        "nominalTime": rfc822(action.nominal_time, tz),
        "externalId": action.external_id,
        "status": status,
        "runConf": conf_xml(run_conf) if run_conf else None,
        "lastModifiedTime": rfc822(action.last_modified, tz),
        "missingDependencies": missing,
        "pushMissingDependencies": None,
        "externalStatus": status if action.external_id and status in _FOLLOWS_WORKFLOW else None,
        "trackerUri": None,
        "consoleUrl": None,
        "errorCode": action.error_code,
        "errorMessage": action.error_message,
        "toString": f"CoordinatorAction name[{action.id}] status[{status}]",
        # ours, beside Oozie's keys
        "pending": bool(action.pending),
        "waitingFor": why,
        **fired_by_key(conn, action, coord, tz),
    }


_CLAUSE = re.compile(r"^\s*([A-Za-z_]+)\s*(<=|>=|!=|=|<|>)(.*)$")
_KEYS = ("status", "nominaltime")


@dataclass(frozen=True)
class ActionFilter:
    """Oozie's coordinator action filter: ``status`` (=, !=) and ``nominaltime`` (=, !=, <, <=,
    >, >=); ``=`` on the same key is ORed, everything else ANDed."""

    equals: dict[str, list[Any]]
    others: list[tuple[str, str, Any]]

    @classmethod
    def parse(cls, text: str) -> ActionFilter:
        equals: dict[str, list[Any]] = {}
        others: list[tuple[str, str, Any]] = []
        for token in (t for t in (text or "").split(";") if t.strip()):
            m = _CLAUSE.match(token)
            if m is None:
                raise _filter_error(
                    text,
                    f"invalid element [{token.strip()}]; elements are <key><comparator><value>",
                )
            key, op, raw = m.group(1).lower(), m.group(2), m.group(3).strip()
            if key not in _KEYS:
                raise _filter_error(
                    text,
                    f'invalid filter [{m.group(1)}]; valid filters are "status" and "nominaltime"',
                )
            value: Any
            if key == "status":
                if op not in ("=", "!="):
                    raise _filter_error(
                        text, f"invalid comparator [{op}] for status; only = and != apply"
                    )
                value = raw.upper()
                if value not in A.__members__:
                    raise _filter_error(
                        text,
                        f"invalid status value [{raw}]. Valid status values are: "
                        f"[{' '.join(s.value for s in ActionStatus)}]",
                    )
            else:
                try:
                    value = to_ms(parse_oozie_time(raw, what="nominaltime"))
                except BundletuiError:
                    raise _filter_error(
                        text, f"invalid nominaltime value [{raw}]; use yyyy-MM-ddTHH:mmZ"
                    ) from None
            if op != "=":
                if (key, op, value) not in others:
                    others.append((key, op, value))
            elif value not in equals.setdefault(key, []):
                equals[key].append(value)
        if len(others) + sum(len(v) for v in equals.values()) > FILTER_LIMIT:
            raise _filter_error(
                one_line(text)[:60] + "…", f"more than {FILTER_LIMIT} distinct elements"
            )
        return cls(equals, others)

    def statuses(self) -> set[str] | None:
        """The statuses it selects, when it is on status only (else None: count the rows)."""
        if "nominaltime" in self.equals or any(k == "nominaltime" for k, _, _ in self.others):
            return None
        chosen = set(self.equals.get("status") or [s.value for s in ActionStatus])
        chosen -= {v for k, op, v in self.others if k == "status"}
        return chosen


def _filter_error(text: str, why: str) -> CommandError:
    return CommandError(
        "E0421",
        f"Invalid job filter [{text}], {why}",
        hint="e.g. --filter 'status=WAITING;status=READY;nominaltime>=2024-01-01T00:00Z'",
    )


def action_page(
    conn: sqlite3.Connection,
    coord: CoordRow,
    *,
    offset: int = 1,
    length: int | None = None,
    order: str = "asc",
    filter_text: str = "",
    tz: str = "GMT",
    by: str = "nominal",
) -> ActionPage:
    """One page of a coordinator's actions by nominal time (one indexed query plus the
    total), or ``by="status"`` (ties newest first), so a sorted page is of all its actions."""
    direction = (order or "asc").strip().lower()
    if direction not in ("asc", "desc"):
        raise fail("E0303", "order", order, hint="order is asc (default) or desc")
    if by not in ACTION_ORDERS:
        raise fail("E0303", "by", by, hint=f"by is {' or '.join(ACTION_ORDERS)}")
    flt = ActionFilter.parse(filter_text)
    counts = jobs.action_counts(conn, coord.id)
    chosen = flt.statuses()
    if chosen is not None:
        total = sum(n for s, n in counts.items() if s in chosen)
    else:
        total = filters.count_filtered_actions(conn, coord.id, flt.equals, flt.others)
    start = max(int(offset or 1), 1)
    limit = None if length is None or length < 0 else int(length)
    rows: list[ActionRow] = []
    if limit != 0:
        rows = filters.filtered_actions(
            conn,
            coord.id,
            flt.equals,
            flt.others,
            by=action_order(by),
            descending=direction == "desc",
            limit=limit,
            offset=start - 1,
        )
    holds = Holds.of(conn, coord, counts)
    created_conf = conf_xml(coord.conf_dict())
    return ActionPage(
        [action_json(conn, r, coord, holds, tz=tz, created_conf=created_conf) for r in rows],
        total,
        start,
        limit,
        direction,
        filter_text,
    )


def action_order(by: str) -> ActionOrder:
    """The order a ``by`` option names: ``status``, else nominal time."""
    return "status" if by == "status" else "nominal"

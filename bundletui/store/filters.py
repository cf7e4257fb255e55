"""The listings' filters as SQL, from the values the commands parsed and checked: the job
listings of Oozie's ``-filter name=value;...`` (``jobs -jobtype wf|coordinator|bundle``) and a
coordinator's action page (``status`` and ``nominaltime`` comparisons), with the counts and the
positions that page along with them."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

from bundletui.store.jobs import count, select
from bundletui.store.rows import ActionRow

R = TypeVar("R")

# ----------------------------------------------------------------------------- job listings

#: a job filter's keys, as the column each one reads (``text`` reads the name, the user and
#: the id); a workflow has no frequency or unit
JOB_FILTER_COLUMNS = {
    "status": "status",
    "name": "app_name",
    "user": "user",
    "id": "id",
    "group": "grp",
    "frequency": "frequency",
    "unit": "time_unit",
}

ListingSort = Literal["created", "modified"]
_LISTING_ORDER: dict[ListingSort, str] = {
    "created": "created_time DESC, id DESC",
    "modified": "last_modified DESC, id DESC",
}


def job_listing(
    conn: sqlite3.Connection,
    cls: type[R],
    match: Mapping[str, Sequence[str]],
    *,
    created_from: Sequence[int] = (),
    created_to: Sequence[int] = (),
    sort: ListingSort = "created",
    limit: int,
    offset: int,
) -> tuple[int, list[R]]:
    """(how many jobs match, the ``limit`` of them after ``offset``), newest first.

    ``match``: for each key of :data:`JOB_FILTER_COLUMNS`, the values one of which the column
    holds (as stored: statuses in capitals); for ``text``, words each of which the name or the
    user contains, or the id is. The keys are ANDed in their order. ``created_from`` and
    ``created_to``: bounds (ms, included) the created time is within, every one of them."""
    terms: list[str] = []
    params: list[Any] = []
    for key, values in match.items():
        if key == "text":
            ors = []
            for v in values:
                ors.append("(app_name LIKE ? OR user LIKE ? OR id = ?)")
                params += [f"%{v}%", f"%{v}%", v]
            terms.append("(" + " OR ".join(ors) + ")")
            continue
        terms.append(f"{JOB_FILTER_COLUMNS[key]} IN ({','.join('?' * len(values))})")
        params += values
    where = " AND ".join(terms) or "1"
    for op, bounds in ((">=", created_from), ("<=", created_to)):
        for ms in bounds:
            where += f" AND created_time {op} ?"
            params.append(ms)
    total = count(conn, cls, where, params)
    rows = select(conn, cls, where, params, order=_LISTING_ORDER[sort], limit=limit, offset=offset)
    return total, rows


# ----------------------------------------------------------------------------- the action page

ActionOrder = Literal["nominal", "status"]
#: how an action page may be sorted: by nominal time, or by status (ties newest first)
ACTION_ORDERS: tuple[ActionOrder, ...] = ("nominal", "status")
_PAGE_ORDER: dict[ActionOrder, str] = {
    "nominal": "nominal_time {}",
    "status": "status {}, nominal_time DESC",
}
_ACTION_COLUMNS = {"status": "status", "nominaltime": "nominal_time"}
_COMPARATORS = {"!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

#: an action filter's terms: ``status`` or ``nominaltime`` (ms) equal to one of some values,
#: and (key, comparator, value) comparisons, comparators ``!=``, ``<``, ``<=``, ``>``, ``>=``
Equals = Mapping[str, Sequence[Any]]
Compared = Sequence[tuple[str, str, Any]]


def _action_where(coord_id: str, equals: Equals, others: Compared) -> tuple[str, list[Any]]:
    terms: list[str] = []
    params: list[Any] = []
    for key, values in equals.items():
        terms.append(f"{_ACTION_COLUMNS[key]} IN ({','.join('?' * len(values))})")
        params += values
    for key, op, value in others:
        terms.append(f"{_ACTION_COLUMNS[key]} {_COMPARATORS[op]} ?")
        params.append(value)
    clause = " AND ".join(terms)
    return "coord_id = ?" + (f" AND {clause}" if clause else ""), [coord_id, *params]


def count_filtered_actions(
    conn: sqlite3.Connection, coord_id: str, equals: Equals, others: Compared
) -> int:
    """How many of a coordinator's actions the filter takes (all terms ANDed)."""
    return count(conn, ActionRow, *_action_where(coord_id, equals, others))


def filtered_actions(
    conn: sqlite3.Connection,
    coord_id: str,
    equals: Equals,
    others: Compared,
    *,
    by: ActionOrder,
    descending: bool,
    limit: int | None,
    offset: int,
) -> list[ActionRow]:
    """One page of the actions the filter takes, sorted ``by`` (None: to the end)."""
    where, params = _action_where(coord_id, equals, others)
    return select(
        conn,
        ActionRow,
        where,
        params,
        order=_PAGE_ORDER[by].format("DESC" if descending else "ASC"),
        limit=-1 if limit is None else limit,
        offset=offset,
    )


def actions_before(
    conn: sqlite3.Connection,
    coord_id: str,
    *,
    status: str,
    nominal_time: int,
    by: ActionOrder,
    descending: bool,
) -> int:
    """How many of a coordinator's actions an unfiltered page sorted ``by`` puts before the
    action of this status and nominal time (counted on the indexes)."""
    if by == "status":  # status in the order asked, then the newest first (as _PAGE_ORDER)
        where = f"status {'>' if descending else '<'} ? OR (status = ? AND nominal_time > ?)"
        params: tuple[Any, ...] = (status, status, nominal_time)
    else:
        where, params = f"nominal_time {'>' if descending else '<'} ?", (nominal_time,)
    return count(conn, ActionRow, f"coord_id = ? AND ({where})", (coord_id, *params))

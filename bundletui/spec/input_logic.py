"""Oozie's ``<input-logic>`` (oozie.md §2.7) over the input check's found and missing instances.

``and`` (all), ``or`` (the first child in document order that is satisfied; a child still
inside its ``wait`` holds the ``or``), ``combine`` (instance i of the first data-in, else of the
next), ``min`` (enough instances), ``wait`` (minutes from max(nominal, created)); min and wait
inherit from the parent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bundletui.model.apps import InputLogic, LogicOp

# a node's status; LOGIC_TRUE: satisfied (the materializer compares with it)
LOGIC_TRUE, _FALSE, _WAITING = "true", "false", "waiting"


@dataclass
class LogicResult:
    """What an input-logic tree says of an action's inputs: its status (available, waiting,
    not available) and the URIs it takes."""

    status: str
    uris: list[str] = field(default_factory=list)


def named_logic_nodes(node: InputLogic) -> list[InputLogic]:
    """The operators ``coord:dataIn`` can name: any with a ``name``, a ``<data-in>`` under
    ``<input-logic>`` included, as Oozie's InputLogicParser.parseWithName finds them."""
    out = [node] if node.name else []
    for child in node.children:
        out.extend(named_logic_nodes(child))
    return out


def _verdict(
    found_all: bool,
    available: list[str],
    min_: int | None,
    wait: int | None,
    now: datetime | None,
    base: datetime,
    waiting: list[tuple[datetime, str]],
    what: str,
) -> LogicResult:
    """Oozie's getEvalResult: all found, or at least ``min``; ``wait`` holds a shortfall."""
    if (
        not found_all
        and wait is not None
        and wait > 0
        and now is not None
        and (now - base) // timedelta(minutes=1) < wait
    ):
        with contextlib.suppress(OverflowError):  # runs out after year 9999: no wake-up
            waiting.append((base + timedelta(minutes=wait), what))
        return LogicResult(_WAITING)
    if found_all or (min_ is not None and min_ > 0 and len(available) >= min_) or min_ == 0:
        return LogicResult(LOGIC_TRUE, available)
    return LogicResult(_FALSE)


def evaluate_logic(
    node: InputLogic,
    entries: Mapping[str, list[tuple[str, bool]]],
    min_: int | None,
    wait: int | None,
    now: datetime | None,
    base: datetime,
    waiting: list[tuple[datetime, str]],
) -> LogicResult:
    """Evaluate an input-logic node; ``now=None`` treats every wait as elapsed (start phase)."""
    m = node.min if node.min is not None else min_
    w = node.wait if node.wait is not None else wait
    if node.op is LogicOp.DATA_IN:
        available: list[str] = []
        found_all = True
        for uri, ok in entries.get(node.dataset or "", []):
            if ok:
                available.append(uri)
            else:
                found_all = False
                if m is None:
                    break
        return _verdict(found_all, available, m, w, now, base, waiting, node.dataset or "")
    if node.op is LogicOp.COMBINE:
        lists = [entries.get(c.dataset or "", []) for c in node.children]
        first = lists[0] if lists else []
        available = []
        for i in range(len(first)):
            pick = next((lst[i][0] for lst in lists if i < len(lst) and lst[i][1]), None)
            if pick is not None:
                available.append(pick)
            elif m is None:
                break
        what = "combine(" + ", ".join(c.dataset or "" for c in node.children) + ")"
        return _verdict(len(available) == len(first), available, m, w, now, base, waiting, what)
    results: list[LogicResult] = []
    for child in node.children:
        r = evaluate_logic(child, entries, m, w, now, base, waiting)
        if node.op is LogicOp.OR:
            if r.status != _FALSE:
                return r
            continue
        if r.status == _FALSE:
            return r
        results.append(r)
    if node.op is LogicOp.OR:
        return LogicResult(_FALSE)
    if any(r.status == _WAITING for r in results):
        return LogicResult(_WAITING)
    return LogicResult(LOGIC_TRUE, [u for r in results for u in r.uris])

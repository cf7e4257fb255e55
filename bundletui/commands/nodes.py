"""A workflow node finishing: status through the node table, the Oozie transition it takes,
and the workflow asked to advance. Used by the engine (process exits, in-process actions) and
by propagation (sub-workflows), so there is one rule for it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from bundletui.commands.effects import Effects
from bundletui.model import codec
from bundletui.model.apps import Node, WorkflowApp
from bundletui.model.status import NodeStatus
from bundletui.model.transitions import Event, Machine, decide
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow


@lru_cache(maxsize=512)
def app_of(app_json: str) -> WorkflowApp:
    """Decoded workflow definitions, shared by every workflow with the same definition."""
    return codec.loads(app_json, WorkflowApp)


def node_killed(tx: Tx, node: NodeRow) -> None:
    """Record a node killed (Oozie's E0726): by a kill of its workflow, whether the engine then
    signals its process or the node's sub-workflow was killed with its parent."""
    t = decide(Machine.NODE, node.status, Event.KILL, node.id)
    jobs.update(
        tx,
        NodeRow,
        node.id,
        status=t.to,
        ended=tx.now_ms,
        error_code="E0726",
        error_message="killed",
    )


def node_finished(
    tx: Tx,
    effects: Effects,
    wf: WorkflowRow,
    node: NodeRow,
    *,
    ok: bool,
    spec: Node | None = None,
    exit_code: int | None = None,
    error_code: str | None = None,
    error_message: str | None = None,
    data: dict[str, Any] | None = None,
    also: dict[str, Any] | None = None,
) -> None:
    """The node ends; ``spec`` is its definition (looked up from ``wf.app`` when not given);
    ``also``: more columns for the same write (an in-process launch's start, not written yet)."""
    t = decide(Machine.NODE, node.status, Event.SUCCEED if ok else Event.FAIL, node.id)
    if spec is None:
        spec = app_of(wf.app).node(node.name)
    fields: dict[str, Any] = {
        "status": t.to,
        "ended": tx.now_ms,
        "exit_code": exit_code,
        "transition": spec.ok_to if ok else spec.error_to,
    }
    if not ok:
        fields["error_code"] = error_code
        fields["error_message"] = error_message
    elif node.error_code or node.error_message:  # an earlier attempt's: this one succeeded
        fields["error_code"] = fields["error_message"] = None
    if data is not None:
        fields["data"] = json.dumps(data)
    if also:
        fields.update(also)
    jobs.update(tx, NodeRow, node.id, **fields)
    effects.node_done(tx, wf.id, node.name, str(t.to))


def node_retry(
    tx: Tx,
    node: NodeRow,
    due_ms: int,
    *,
    exit_code: int | None,
    error_code: str | None,
    error_message: str | None,
) -> None:
    """A failed attempt with retries left: READY again, due later (oozie.md §5.3)."""
    t = decide(Machine.NODE, node.status, Event.RETRY, node.id)
    jobs.update(
        tx,
        NodeRow,
        node.id,
        status=t.to,
        due_time=due_ms,
        exit_code=exit_code,
        error_code=error_code,
        error_message=error_message,
        pid=None,
        start_ticks=None,
    )


def is_running(node: NodeRow) -> bool:
    return node.status == NodeStatus.RUNNING

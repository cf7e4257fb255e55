"""A child's end reaches its parent in the same transaction (no periodic sweep).

workflow -> parent workflow's sub-workflow node, or -> coordinator action -> coordinator
roll-up -> bundle action -> bundle roll-up.
"""

from __future__ import annotations

from bundletui.commands.effects import Effects
from bundletui.commands.nodes import node_finished, node_killed
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.status import WorkflowStatus
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import WorkflowRow

W = WorkflowStatus


def workflow_finished(tx: Tx, effects: Effects, wf: WorkflowRow) -> None:
    """Call after a workflow's status changed (to a terminal one, or suspended/resumed)."""
    parent = wf.parent_id
    if not parent:
        return
    kind = kind_of(parent)
    if kind is IdKind.COORD_ACTION:
        from bundletui.commands.coordinators import action_workflow_changed

        action_workflow_changed(tx, effects, parent, wf)
    elif kind is IdKind.WORKFLOW:
        _sub_workflow_changed(tx, effects, parent, wf)


def _sub_workflow_changed(tx: Tx, effects: Effects, parent_id: str, child: WorkflowRow) -> None:
    if child.status not in (W.SUCCEEDED, W.FAILED, W.KILLED):
        return
    parent = jobs.get(tx.conn, WorkflowRow, parent_id)
    if parent is None:
        return
    rows = jobs.nodes_running_child(tx.conn, parent_id, child.id)
    if parent.status == W.KILLED:
        # The parent's kill reached the child first (kill cascades in one transaction): the
        # sub-workflow node is killed with its workflow, not failed by its child.
        for node in rows:
            node_killed(tx, node)
        return
    ok = child.status == W.SUCCEEDED
    for node in rows:
        node_finished(
            tx,
            effects,
            parent,
            node,
            ok=ok,
            error_code=None if ok else (child.error_code or f"SUBWF_{child.status}"),
            error_message=None
            if ok
            else (child.error_message or f"sub-workflow {child.id} ended {child.status}"),
        )

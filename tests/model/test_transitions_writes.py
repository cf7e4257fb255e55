"""Every status write is a row of its machine's table: the rows the writers needed (a control
node passed, a node recovered, a live node rerun, a bundle with nothing to start), the sets the
former hand-written guards restated (pinned, so that asking the table keeps their behaviour),
and a scan of the writers for a status written as a literal instead of a table's ``to``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bundletui.errors import ModelError
from bundletui.model.status import (
    JOB_LIVE,
    ActionStatus,
    JobStatus,
    NodeStatus,
    WorkflowStatus,
)
from bundletui.model.transitions import (
    Event,
    Machine,
    allowed,
    decide,
    sources,
    target,
)

A = ActionStatus
E = Event
J = JobStatus
N = NodeStatus
W = WorkflowStatus

# ----------------------------------------------------------------------------- new rows


@pytest.mark.parametrize(
    ("machine", "src", "event", "to"),
    [
        # engine/wf_advance.py _apply: a control node passed by the walk
        (Machine.NODE, N.WAITING, E.PASS, N.SUCCEEDED),
        # engine/wf_recovery.py recover: RUNNING but never started
        (Machine.NODE, N.RUNNING, E.RECOVER, N.READY),
        # commands/workflows.py rerun_tx: every node not kept starts over, live ones too
        (Machine.NODE, N.RUNNING, E.RERUN, N.WAITING),
        (Machine.NODE, N.READY, E.RERUN, N.WAITING),
        (Machine.NODE, N.WAITING, E.RERUN, N.WAITING),
        # commands/bundles.py start_tx: no enabled coordinator (oozie.md §1.3, E1318)
        (Machine.BUNDLE, J.PREP, E.NO_CHILDREN, J.FAILED),
    ],
)
def test_the_rows_the_writers_need(machine: Machine, src: str, event: Event, to: str) -> None:
    assert allowed(machine, src, event)
    assert decide(machine, src, event).to == to


@pytest.mark.parametrize(
    ("machine", "src", "event"),
    [
        # a control node is passed once: never from where a run is under way or over
        *((Machine.NODE, s, E.PASS) for s in NodeStatus if s is not N.WAITING),
        # only a RUNNING node can have been marked so by a dead engine
        *((Machine.NODE, s, E.RECOVER) for s in NodeStatus if s is not N.RUNNING),
        # only a PREP bundle starts
        *((Machine.BUNDLE, s, E.NO_CHILDREN) for s in JobStatus if s is not J.PREP),
        # the new events belong to their machine only
        (Machine.ACTION, A.WAITING, E.PASS),
        (Machine.WORKFLOW, W.RUNNING, E.PASS),
        (Machine.COORDINATOR, J.PREP, E.NO_CHILDREN),
        (Machine.WORKFLOW, W.RUNNING, E.RECOVER),
    ],
)
def test_decide_refuses_what_no_row_allows(machine: Machine, src: str, event: Event) -> None:
    assert not allowed(machine, src, event)
    with pytest.raises(ModelError) as err:
        decide(machine, src, event, "0000001-x-W@n")
    assert err.value.code == "E1100"
    assert src in err.value.message


def test_every_node_status_reruns_to_waiting() -> None:
    """A rerun writes WAITING to every node it does not keep, whatever its status."""
    assert sources(Machine.NODE, E.RERUN) == set(NodeStatus)
    assert {decide(Machine.NODE, s, E.RERUN).to for s in NodeStatus} == {N.WAITING}


# ----------------------------------------------------------------------------- helpers


def test_sources_and_target() -> None:
    assert sources(Machine.NODE, E.KILL) == {N.WAITING, N.READY, N.RUNNING}
    assert sources(Machine.BUNDLE, E.SUBMIT) == frozenset()  # the "new" row has no status
    # the kill command's bulk write: every node no process runs for, to one status
    idle = sources(Machine.NODE, E.KILL) - {N.RUNNING}
    assert target(Machine.NODE, idle, E.KILL) == N.KILLED
    with pytest.raises(ModelError):  # a status the event does not apply to
        target(Machine.NODE, {N.WAITING, N.SUCCEEDED}, E.KILL)
    with pytest.raises(ValueError):  # rows that end in different statuses
        target(Machine.COORDINATOR, {J.PREP, J.RUNNING}, E.SUSPEND)
    with pytest.raises(ValueError):  # nothing to write
        target(Machine.NODE, (), E.KILL)


def test_the_hint_still_lists_the_sources() -> None:
    with pytest.raises(ModelError) as err:
        decide(Machine.NODE, N.SUCCEEDED, E.RECOVER)
    assert err.value.hint == "recover applies to a workflow node in: RUNNING"


# ----------------------------------------------------------------------------- guards


@pytest.mark.parametrize(
    ("machine", "event", "former"),
    [
        # commands/coordinators.py action_workflow_changed / hold_actions
        (Machine.ACTION, E.SUSPEND, {A.RUNNING}),
        (Machine.ACTION, E.RESUME, {A.SUSPENDED}),
        (Machine.ACTION, E.KILL, {A.WAITING, A.READY, A.SUBMITTED, A.RUNNING, A.SUSPENDED}),
        # commands/coordinators.py _kill_action: the action's workflow
        (Machine.WORKFLOW, E.KILL, {W.PREP, W.RUNNING, W.SUSPENDED}),
        # commands/coordinators.py change_tx, commands/bundles.py change_tx
        (Machine.COORDINATOR, E.CHANGE_END, {J.SUCCEEDED, J.DONEWITHERROR, J.FAILED}),
        (Machine.BUNDLE, E.CHANGE_END, {J.SUCCEEDED, J.DONEWITHERROR, J.FAILED}),
        (Machine.COORDINATOR, E.UNPAUSE, {J.PAUSED, J.PAUSEDWITHERROR, J.PREPPAUSED}),
        (Machine.BUNDLE, E.UNPAUSE, {J.PAUSED, J.PAUSEDWITHERROR, J.PREPPAUSED}),
        # engine/coordinators.py _pause_check, on_timeout, on_skip
        (Machine.COORDINATOR, E.PAUSE, {J.PREP, J.RUNNING, J.RUNNINGWITHERROR}),
        (Machine.ACTION, E.TIMEOUT, {A.WAITING}),
        (Machine.ACTION, E.SKIP, {A.WAITING, A.READY}),
        # commands/coordinators.py rerun_tx (_RERUN_FROM) and rerun_rows (_RERUNNABLE)
        (
            Machine.COORDINATOR,
            E.RERUN,
            set(JobStatus) - {J.PREP, J.PREPSUSPENDED, J.PREPPAUSED, J.IGNORED},
        ),
        (
            Machine.ACTION,
            E.RERUN,
            {A.TIMEDOUT, A.SUCCEEDED, A.KILLED, A.FAILED, A.IGNORED, A.SKIPPED},
        ),
        # commands/bundles.py kill_tx / resume_tx cascades
        (Machine.COORDINATOR, E.KILL, set(JOB_LIVE)),
        (Machine.COORDINATOR, E.RESUME, {J.SUSPENDED, J.SUSPENDEDWITHERROR, J.PREPSUSPENDED}),
    ],
)
def test_a_guard_that_asks_the_table_keeps_its_former_set(
    machine: Machine, event: Event, former: set[str]
) -> None:
    assert sources(machine, event) == former


def test_change_end_is_one_rule_for_bundles_and_coordinators() -> None:
    """The bundle's change command used a hand copy of these rows; it asks the table now."""
    for src in sources(Machine.BUNDLE, E.CHANGE_END):
        assert decide(Machine.BUNDLE, src, E.CHANGE_END) == decide(
            Machine.COORDINATOR, src, E.CHANGE_END
        )
    assert decide(Machine.BUNDLE, J.SUCCEEDED, E.CHANGE_END).to == J.RUNNING
    assert decide(Machine.BUNDLE, J.FAILED, E.CHANGE_END).to == J.RUNNINGWITHERROR
    assert not allowed(Machine.BUNDLE, J.RUNNING, E.CHANGE_END)  # a live one keeps its status


# ----------------------------------------------------------------------------- the writers

ROOT = Path(__file__).resolve().parents[2] / "bundletui"
WRITERS = [
    "engine/workflows.py",
    *(f"engine/{p.name}" for p in sorted((ROOT / "engine").glob("wf_*.py"))),
    "engine/coordinators.py",
    "commands/workflows.py",
    "commands/bundles.py",
    "commands/coordinators.py",
    "commands/nodes.py",
    "commands/propagate.py",
    "engine/events.py",
]
# the job tables with a machine (a bundle action row mirrors its coordinator's status)
MACHINE_ROWS = {"BundleRow", "CoordRow", "ActionRow", "WorkflowRow", "NodeRow"}
STATUS_ENUMS = {"J", "A", "W", "N", "JobStatus", "ActionStatus", "WorkflowStatus", "NodeStatus"}


def _literal(node: ast.expr) -> bool:
    """``N.KILLED``, ``JobStatus.PREP`` or a status name in quotes."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id in STATUS_ENUMS and node.attr.isupper()
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isupper()


def _literal_writes(source: str) -> list[int]:
    lines = []
    for call in ast.walk(ast.parse(source)):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "jobs"
            and call.func.attr in ("update", "update_where", "insert", "insert_returning")
            and len(call.args) >= 2
            and isinstance(call.args[1], ast.Name)
            and call.args[1].id in MACHINE_ROWS
        ):
            continue
        values = [k.value for k in call.keywords if k.arg == "status"]
        for arg in call.args[2:]:
            if isinstance(arg, ast.Dict):
                values += [
                    v
                    for k, v in zip(arg.keys, arg.values, strict=True)
                    if isinstance(k, ast.Constant) and k.value == "status"
                ]
        lines += [call.lineno for v in values if _literal(v)]
    return lines


@pytest.mark.parametrize("path", WRITERS)
def test_no_writer_writes_a_status_the_table_did_not_give(path: str) -> None:
    assert _literal_writes((ROOT / path).read_text()) == []


def test_the_scan_sees_a_literal_write() -> None:
    bad = (
        "jobs.update(tx, NodeRow, nid, status=N.SUCCEEDED)\n"
        "jobs.insert(tx, BundleRow, {'id': i, 'status': J.PREP})\n"
        "jobs.update(tx, NodeRow, nid, status=t.to)\n"
        "jobs.update(tx, BundleActionRow, ba, status=J.KILLED)\n"
    )
    assert _literal_writes(bad) == [1, 2]

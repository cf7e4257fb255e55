"""Every row of every transition table, legal and illegal, and the seed's bundle table verbatim."""

from __future__ import annotations

import pytest

from bundletui.errors import ModelError
from bundletui.model.status import ActionStatus, JobStatus, NodeStatus, WorkflowStatus
from bundletui.model.transitions import (
    TABLES,
    Children,
    Event,
    Machine,
    allowed,
    decide,
    events_from,
)

J = JobStatus
E = Event
C = Children

STATUSES = {
    Machine.BUNDLE: [s for s in JobStatus if s is not J.IGNORED],
    Machine.COORDINATOR: list(JobStatus),
    Machine.ACTION: list(ActionStatus),
    Machine.WORKFLOW: list(WorkflowStatus),
    Machine.NODE: list(NodeStatus),
}

# Seed 000 "State Transition", row by row: (from, trigger, to, action on children).
SEED_BUNDLE_TABLE = [
    ("", E.SUBMIT, J.PREP, C.NONE),
    (J.PREP, E.START, J.RUNNING, C.SUBMIT),
    (J.PREP, E.KICKOFF, J.RUNNING, C.SUBMIT),
    (J.PREP, E.PAUSE, J.PREPPAUSED, C.NONE),
    (J.PREP, E.SUSPEND, J.PREPSUSPENDED, C.NONE),
    (J.PREPPAUSED, E.UNPAUSE, J.PREP, C.NONE),
    (J.PREPSUSPENDED, E.RESUME, J.PREP, C.NONE),
    (J.RUNNING, E.SUSPEND, J.SUSPENDED, C.SUSPEND),
    (J.RUNNING, E.PAUSE, J.PAUSED, C.NONE),
    (J.RUNNING, E.CRITICAL_CHILD_FAILED, J.FAILED, C.KILL),
    (J.RUNNING, E.CHILD_FAILED, J.RUNNINGWITHERROR, C.NONE),
    (J.RUNNING, E.CHILDREN_DONE, J.SUCCEEDED, C.NONE),
    (J.RUNNINGWITHERROR, E.CRITICAL_CHILD_FAILED, J.FAILED, C.KILL),
    (J.RUNNINGWITHERROR, E.CHILDREN_DONE, J.DONEWITHERROR, C.NONE),
    (J.RUNNINGWITHERROR, E.SUSPEND, J.SUSPENDEDWITHERROR, C.SUSPEND),
    (J.RUNNINGWITHERROR, E.PAUSE, J.PAUSEDWITHERROR, C.NONE),
    (J.PAUSED, E.UNPAUSE, J.RUNNING, C.RESET_PAUSE),
    (J.PAUSED, E.SUSPEND, J.SUSPENDED, C.SUSPEND),
    (J.PAUSEDWITHERROR, E.UNPAUSE, J.RUNNINGWITHERROR, C.NONE),
    (J.PAUSEDWITHERROR, E.SUSPEND, J.SUSPENDEDWITHERROR, C.SUSPEND),
    (J.SUSPENDED, E.RESUME, J.RUNNING, C.RESUME),
    (J.SUSPENDEDWITHERROR, E.RESUME, J.RUNNINGWITHERROR, C.RESUME),
]


@pytest.mark.parametrize(("src", "event", "dst", "children"), SEED_BUNDLE_TABLE)
def test_seed_bundle_table_row(src: str, event: Event, dst: str, children: Children) -> None:
    t = decide(Machine.BUNDLE, src, event)
    assert (t.to, t.children) == (dst, children)


@pytest.mark.parametrize(
    "src",
    [
        s
        for s in JobStatus
        if s not in (J.SUCCEEDED, J.FAILED, J.KILLED, J.DONEWITHERROR, J.IGNORED)
    ],
)
def test_bundle_any_live_state_can_be_killed_and_kills_children(src: JobStatus) -> None:
    t = decide(Machine.BUNDLE, src, E.KILL)
    assert (t.to, t.children) == (J.KILLED, C.KILL)


def _all_cases() -> list[tuple[Machine, str, Event]]:
    return [(m, str(s), e) for m in Machine for s in STATUSES[m] for e in Event]


@pytest.mark.parametrize(("machine", "src", "event"), _all_cases())
def test_every_cell_is_either_a_row_or_a_typed_error(
    machine: Machine, src: str, event: Event
) -> None:
    row = TABLES[machine].get((src, event))
    if row is not None:
        assert decide(machine, src, event) == row
        assert allowed(machine, src, event)
        assert event in events_from(machine, src)
        # the target is a status of the same machine
        assert row.to in {str(s) for s in STATUSES[machine]} or (
            machine is Machine.BUNDLE and row.to == J.IGNORED
        )
    else:
        with pytest.raises(ModelError) as err:
            decide(machine, src, event, job_id="0000001-x-B")
        assert err.value.code.startswith("E")
        assert src in err.value.message
        assert not allowed(machine, src, event)


@pytest.mark.parametrize(
    ("machine", "src", "event", "code"),
    [
        (Machine.BUNDLE, J.SUCCEEDED, E.SUSPEND, "E1312"),
        (Machine.BUNDLE, J.KILLED, E.KILL, "E1323"),
        (Machine.BUNDLE, J.RUNNING, E.START, "E1100"),
        (Machine.BUNDLE, J.RUNNING, E.RESUME, "E1100"),
        (Machine.COORDINATOR, J.FAILED, E.SUSPEND, "E0728"),
        (Machine.COORDINATOR, J.SUCCEEDED, E.KILL, "E1020"),
        (Machine.COORDINATOR, J.PREP, E.START, "E0303"),
        (Machine.ACTION, ActionStatus.RUNNING, E.IGNORE, "E1024"),
        (Machine.ACTION, ActionStatus.WAITING, E.RERUN, "E1018"),
        (Machine.WORKFLOW, WorkflowStatus.RUNNING, E.RESUME, "E1100"),
    ],
)
def test_oozie_error_codes(machine: Machine, src: str, event: Event, code: str) -> None:
    with pytest.raises(ModelError) as err:
        decide(machine, src, event)
    assert err.value.code == code
    assert err.value.hint


def test_coordinator_extras() -> None:
    assert decide(Machine.COORDINATOR, J.PREP, E.MATERIALIZE).to == J.RUNNING
    assert decide(Machine.COORDINATOR, J.FAILED, E.IGNORE).to == J.IGNORED
    assert decide(Machine.COORDINATOR, J.IGNORED, E.CHANGE_STATUS_RUNNING).to == J.RUNNING
    with pytest.raises(ModelError):
        decide(Machine.BUNDLE, J.FAILED, E.IGNORE)  # bundles cannot be ignored


def test_rerun_keeps_paused_and_maps_errors() -> None:
    assert decide(Machine.BUNDLE, J.PAUSED, E.RERUN).to == J.PAUSED
    assert decide(Machine.BUNDLE, J.DONEWITHERROR, E.RERUN).to == J.RUNNINGWITHERROR
    assert decide(Machine.BUNDLE, J.SUCCEEDED, E.RERUN).to == J.RUNNING
    for src in (J.KILLED, J.FAILED, J.PREP, J.PREPPAUSED, J.PREPSUSPENDED):
        with pytest.raises(ModelError) as err:
            decide(Machine.BUNDLE, src, E.RERUN)
        assert err.value.code == "E1100"


def test_action_lifecycle_walk() -> None:
    A = ActionStatus
    path = [
        (E.SUBMIT, A.WAITING),
        (E.INPUTS_READY, A.READY),
        (E.LAUNCH, A.SUBMITTED),
        (E.STARTED, A.RUNNING),
        (E.SUSPEND, A.SUSPENDED),
        (E.RESUME, A.RUNNING),
        (E.FAIL, A.FAILED),
        (E.IGNORE, A.IGNORED),
        (E.RERUN, A.WAITING),
        (E.TIMEOUT, A.TIMEDOUT),
    ]
    status = ""
    for event, expected in path:
        status = decide(Machine.ACTION, status, event).to
        assert status == expected


def test_node_jobcontrol_walk() -> None:
    N = NodeStatus
    assert decide(Machine.NODE, N.WAITING, E.DEPS_MET).to == N.READY
    assert decide(Machine.NODE, N.READY, E.LAUNCH).to == N.RUNNING
    assert decide(Machine.NODE, N.RUNNING, E.RETRY).to == N.READY
    assert decide(Machine.NODE, N.WAITING, E.DEP_FAILED).to == N.DEPENDENT_FAILED
    with pytest.raises(ModelError):
        decide(Machine.NODE, N.SUCCEEDED, E.LAUNCH)

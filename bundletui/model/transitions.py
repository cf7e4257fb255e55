"""State machines as data: ``(from, event) -> (to, what happens to the children)``.

One small function, :func:`decide`, reads the tables. The bundle table is the seed's
"State Transition" table (seed 000) completed with oozie.md §1.3; coordinator jobs share it
(§2.3) with their own extras; coordinator actions follow §2.4, workflows §5.4, and workflow
nodes Hadoop JobControl. An illegal move raises :class:`ModelError` carrying Oozie's code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from bundletui.errors import ModelError
from bundletui.model.status import (
    JOB_LIVE,
    ActionStatus,
    JobStatus,
    NodeStatus,
    WorkflowStatus,
)


class Event(StrEnum):
    SUBMIT = "SUBMIT"
    START = "START"  # user start (bundle, workflow)
    KICKOFF = "KICKOFF"  # bundle kick-off time reached
    NO_CHILDREN = "NO_CHILDREN"  # bundle started (or kicked off) with no enabled coordinator
    MATERIALIZE = "MATERIALIZE"  # coordinator: start time reached, first action materialized
    MATERIALIZE_FAILED = "MATERIALIZE_FAILED"
    PAUSE = "PAUSE"  # pause time reached
    UNPAUSE = "UNPAUSE"  # user RESET_PAUSE_TIME (cleared or moved to the future)
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    KILL = "KILL"
    CRITICAL_CHILD_FAILED = "CRITICAL_CHILD_FAILED"  # submit of a critical child failed
    CHILD_FAILED = "CHILD_FAILED"  # submit of a non-critical child failed
    CHILDREN_DONE = "CHILDREN_DONE"  # every child terminated
    CHANGE_END = "CHANGE_END"  # end time changed
    CHANGE_STATUS_RUNNING = "CHANGE_STATUS_RUNNING"  # coord -change status=RUNNING
    IGNORE = "IGNORE"
    RERUN = "RERUN"
    # coordinator action
    INPUTS_READY = "INPUTS_READY"
    TIMEOUT = "TIMEOUT"
    SKIP = "SKIP"
    LAUNCH = "LAUNCH"  # action READY -> SUBMITTED, node READY -> RUNNING
    STARTED = "STARTED"  # workflow created and running
    SUCCEED = "SUCCEED"
    FAIL = "FAIL"
    # workflow node
    DEPS_MET = "DEPS_MET"
    DEP_FAILED = "DEP_FAILED"
    RETRY = "RETRY"
    PASS = "PASS"  # a control node (start, decision, fork, join, kill, end) reached and passed
    RECOVER = "RECOVER"  # engine start: a node marked RUNNING whose process never started


class Children(StrEnum):
    """What a parent's transition asks of its children."""

    NONE = "NONE"
    SUBMIT = "SUBMIT"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    KILL = "KILL"
    RESET_PAUSE = "RESET_PAUSE"
    RERUN = "RERUN"


class Machine(StrEnum):
    BUNDLE = "bundle"
    COORDINATOR = "coordinator"
    ACTION = "coordinator action"
    WORKFLOW = "workflow"
    NODE = "workflow node"


@dataclass(frozen=True, slots=True)
class Transition:
    to: str
    children: Children = Children.NONE


J = JobStatus
E = Event
C = Children

_JOB_SUSPEND = {
    J.PREP: J.PREPSUSPENDED,
    J.RUNNING: J.SUSPENDED,
    J.RUNNINGWITHERROR: J.SUSPENDEDWITHERROR,
    J.PAUSED: J.SUSPENDED,
    J.PAUSEDWITHERROR: J.SUSPENDEDWITHERROR,
    J.PREPPAUSED: J.PREPSUSPENDED,
}
_JOB_RESUME = {
    J.PREPSUSPENDED: J.PREP,
    J.SUSPENDED: J.RUNNING,
    J.SUSPENDEDWITHERROR: J.RUNNINGWITHERROR,
}
_JOB_PAUSE = {J.PREP: J.PREPPAUSED, J.RUNNING: J.PAUSED, J.RUNNINGWITHERROR: J.PAUSEDWITHERROR}
_JOB_UNPAUSE = {J.PREPPAUSED: J.PREP, J.PAUSED: J.RUNNING, J.PAUSEDWITHERROR: J.RUNNINGWITHERROR}
_JOB_RERUN = {
    J.SUCCEEDED: J.RUNNING,
    J.SUSPENDED: J.RUNNING,
    J.RUNNING: J.RUNNING,
    J.PAUSED: J.PAUSED,  # a paused job keeps its status (oozie.md §1.7)
    J.PAUSEDWITHERROR: J.PAUSEDWITHERROR,
    J.RUNNINGWITHERROR: J.RUNNINGWITHERROR,
    J.SUSPENDEDWITHERROR: J.RUNNINGWITHERROR,
    J.DONEWITHERROR: J.RUNNINGWITHERROR,
}
_JOB_CHANGE_END = {
    J.SUCCEEDED: J.RUNNING,
    J.DONEWITHERROR: J.RUNNINGWITHERROR,
    J.FAILED: J.RUNNINGWITHERROR,
}
_JOB_KILLABLE = sorted(JOB_LIVE)


def _job_rows(children_on_suspend: bool) -> dict[tuple[str, str], Transition]:
    """Rows shared by bundle and coordinator jobs (seed 000 table + oozie.md §1.3)."""
    kid = C.SUSPEND if children_on_suspend else C.NONE
    rows: dict[tuple[str, str], Transition] = {}
    for src, dst in _JOB_SUSPEND.items():
        # The seed: suspending a PREP* bundle has no children to act on yet.
        effect = C.NONE if src in (J.PREP, J.PREPPAUSED) else kid
        rows[(src, E.SUSPEND)] = Transition(dst, effect)
    for src, dst in _JOB_RESUME.items():
        rows[(src, E.RESUME)] = Transition(dst, C.NONE if src is J.PREPSUSPENDED else C.RESUME)
    for src, dst in _JOB_PAUSE.items():
        rows[(src, E.PAUSE)] = Transition(dst)
    for src, dst in _JOB_UNPAUSE.items():
        effect = C.RESET_PAUSE if src is J.PAUSED else C.NONE
        rows[(src, E.UNPAUSE)] = Transition(dst, effect)
    for src in _JOB_KILLABLE:
        rows[(src, E.KILL)] = Transition(J.KILLED, C.KILL)
    for src, dst in _JOB_RERUN.items():
        rows[(src, E.RERUN)] = Transition(dst, C.RERUN)
    for src, dst in _JOB_CHANGE_END.items():
        rows[(src, E.CHANGE_END)] = Transition(dst)
    return rows


BUNDLE_TABLE: dict[tuple[str, str], Transition] = {
    ("", E.SUBMIT): Transition(J.PREP),
    (J.PREP, E.START): Transition(J.RUNNING, C.SUBMIT),
    (J.PREP, E.KICKOFF): Transition(J.RUNNING, C.SUBMIT),
    # oozie.md §1.3: a start that finds no enabled coordinator fails the bundle (E1318)
    (J.PREP, E.NO_CHILDREN): Transition(J.FAILED),
    (J.RUNNING, E.CRITICAL_CHILD_FAILED): Transition(J.FAILED, C.KILL),
    (J.RUNNING, E.CHILD_FAILED): Transition(J.RUNNINGWITHERROR),
    (J.RUNNING, E.CHILDREN_DONE): Transition(J.SUCCEEDED),
    (J.RUNNINGWITHERROR, E.CRITICAL_CHILD_FAILED): Transition(J.FAILED, C.KILL),
    (J.RUNNINGWITHERROR, E.CHILD_FAILED): Transition(J.RUNNINGWITHERROR),
    (J.RUNNINGWITHERROR, E.CHILDREN_DONE): Transition(J.DONEWITHERROR),
    # The seed's rule, "a critical child's failed submit fails the bundle and kills its
    # siblings", holds while the bundle is held too: a bundle started while suspended or
    # paused submits its children held, and one may fail then.
    **{
        (s, E.CRITICAL_CHILD_FAILED): Transition(J.FAILED, C.KILL)
        for s in (
            J.SUSPENDED,
            J.SUSPENDEDWITHERROR,
            J.PAUSED,
            J.PAUSEDWITHERROR,
            J.PREPSUSPENDED,
            J.PREPPAUSED,
        )
    },
    **_job_rows(children_on_suspend=True),
}

COORD_TABLE: dict[tuple[str, str], Transition] = {
    ("", E.SUBMIT): Transition(J.PREP),
    (J.PREP, E.MATERIALIZE): Transition(J.RUNNING),
    (J.PREP, E.MATERIALIZE_FAILED): Transition(J.FAILED),
    (J.RUNNING, E.MATERIALIZE_FAILED): Transition(J.FAILED),
    (J.RUNNINGWITHERROR, E.MATERIALIZE_FAILED): Transition(J.FAILED),
    # a paused coordinator still creates the actions before its pause time (a catch-up)
    (J.PAUSED, E.MATERIALIZE_FAILED): Transition(J.FAILED),
    (J.PAUSEDWITHERROR, E.MATERIALIZE_FAILED): Transition(J.FAILED),
    (J.FAILED, E.IGNORE): Transition(J.IGNORED),
    (J.KILLED, E.IGNORE): Transition(J.IGNORED),
    (J.FAILED, E.CHANGE_STATUS_RUNNING): Transition(J.RUNNING),
    (J.KILLED, E.CHANGE_STATUS_RUNNING): Transition(J.RUNNING),
    (J.IGNORED, E.CHANGE_STATUS_RUNNING): Transition(J.RUNNING),
    # a coordinator refuses a rerun only while PREP or IGNORED (oozie.md §2.6): a FAILED or
    # KILLED one reruns the chosen actions, with errors (a bundle refuses, §1.7)
    (J.FAILED, E.RERUN): Transition(J.RUNNINGWITHERROR, C.RERUN),
    (J.KILLED, E.RERUN): Transition(J.RUNNINGWITHERROR, C.RERUN),
    **_job_rows(children_on_suspend=True),
}

A = ActionStatus
ACTION_TABLE: dict[tuple[str, str], Transition] = {
    ("", E.SUBMIT): Transition(A.WAITING),
    (A.WAITING, E.INPUTS_READY): Transition(A.READY),
    (A.WAITING, E.TIMEOUT): Transition(A.TIMEDOUT),
    (A.WAITING, E.SKIP): Transition(A.SKIPPED),
    (A.READY, E.SKIP): Transition(A.SKIPPED),
    (A.READY, E.LAUNCH): Transition(A.SUBMITTED, C.SUBMIT),
    (A.SUBMITTED, E.STARTED): Transition(A.RUNNING),
    (A.SUBMITTED, E.FAIL): Transition(A.FAILED),
    (A.SUBMITTED, E.SUCCEED): Transition(A.SUCCEEDED),
    (A.RUNNING, E.SUCCEED): Transition(A.SUCCEEDED),
    (A.RUNNING, E.FAIL): Transition(A.FAILED),
    (A.RUNNING, E.SUSPEND): Transition(A.SUSPENDED, C.SUSPEND),
    (A.SUSPENDED, E.RESUME): Transition(A.RUNNING, C.RESUME),
    (A.SUSPENDED, E.SUCCEED): Transition(A.SUCCEEDED),
    (A.SUSPENDED, E.FAIL): Transition(A.FAILED),
    **{
        (s, E.KILL): Transition(A.KILLED, C.KILL)
        for s in (A.WAITING, A.READY, A.SUBMITTED, A.RUNNING, A.SUSPENDED)
    },
    **{(s, E.IGNORE): Transition(A.IGNORED) for s in (A.FAILED, A.KILLED, A.TIMEDOUT)},
    **{
        (s, E.RERUN): Transition(A.WAITING, C.RERUN)
        for s in (A.TIMEDOUT, A.SUCCEEDED, A.KILLED, A.FAILED, A.IGNORED, A.SKIPPED)
    },
}

W = WorkflowStatus
WORKFLOW_TABLE: dict[tuple[str, str], Transition] = {
    ("", E.SUBMIT): Transition(W.PREP),
    (W.PREP, E.START): Transition(W.RUNNING, C.SUBMIT),
    (W.RUNNING, E.SUSPEND): Transition(W.SUSPENDED, C.SUSPEND),
    (W.SUSPENDED, E.RESUME): Transition(W.RUNNING, C.RESUME),
    (W.RUNNING, E.SUCCEED): Transition(W.SUCCEEDED),
    (W.RUNNING, E.FAIL): Transition(W.FAILED, C.KILL),
    (W.RUNNING, E.KILL): Transition(W.KILLED, C.KILL),  # also a kill node
    (W.PREP, E.KILL): Transition(W.KILLED, C.KILL),
    (W.SUSPENDED, E.KILL): Transition(W.KILLED, C.KILL),
    **{(s, E.RERUN): Transition(W.RUNNING, C.RERUN) for s in (W.SUCCEEDED, W.KILLED, W.FAILED)},
}

N = NodeStatus
NODE_TABLE: dict[tuple[str, str], Transition] = {
    ("", E.SUBMIT): Transition(N.WAITING),
    (N.WAITING, E.DEPS_MET): Transition(N.READY),
    (N.READY, E.LAUNCH): Transition(N.RUNNING),
    (N.RUNNING, E.SUCCEED): Transition(N.SUCCEEDED),
    (N.RUNNING, E.FAIL): Transition(N.FAILED),
    (N.WAITING, E.FAIL): Transition(N.FAILED),  # a decision whose case cannot be evaluated
    (N.RUNNING, E.RETRY): Transition(N.READY),  # READY again, with a due time
    (N.WAITING, E.DEP_FAILED): Transition(N.DEPENDENT_FAILED),
    (N.READY, E.DEP_FAILED): Transition(N.DEPENDENT_FAILED),
    (N.WAITING, E.SKIP): Transition(N.SKIPPED),
    (N.READY, E.SKIP): Transition(N.SKIPPED),
    # A control node does its work the moment the walk reaches it and moves on (oozie.md §5.2:
    # start, a decision's case, a fork's paths, a join once every path arrived, end, kill); it
    # never runs, so it goes from WAITING straight to SUCCEEDED, its transition recorded.
    (N.WAITING, E.PASS): Transition(N.SUCCEEDED),
    # Engine start: a node the dead engine marked RUNNING (attempt counted) but whose process
    # it never started (no wrapper found, no exit record) is READY again, for the same attempt.
    (N.RUNNING, E.RECOVER): Transition(N.READY),
    **{(s, E.KILL): Transition(N.KILLED) for s in (N.WAITING, N.READY, N.RUNNING)},
    **{
        (s, E.RERUN): Transition(N.WAITING)
        for s in (N.SUCCEEDED, N.FAILED, N.DEPENDENT_FAILED, N.KILLED, N.SKIPPED)
    },
    # A rerun (of an ended workflow, oozie.md §5.4) starts every node it does not keep over,
    # whatever its status. Not only the ended ones:
    # - RUNNING: a ``kill`` while no engine ran leaves a running node RUNNING until an engine
    #   sends the signal; the rerun takes the node, and the kill stays watched for the job.
    # - WAITING: a node the definition, read again for the rerun, added (its row is made
    #   WAITING just before); starting it over changes nothing but its run.
    # - READY: none is left in an ended workflow (its end skips or kills them), but a stray
    #   one starts over like the rest rather than make the workflow refuse every rerun.
    **{(s, E.RERUN): Transition(N.WAITING) for s in (N.RUNNING, N.READY, N.WAITING)},
}

TABLES: dict[Machine, dict[tuple[str, str], Transition]] = {
    Machine.BUNDLE: BUNDLE_TABLE,
    Machine.COORDINATOR: COORD_TABLE,
    Machine.ACTION: ACTION_TABLE,
    Machine.WORKFLOW: WORKFLOW_TABLE,
    Machine.NODE: NODE_TABLE,
}

# Which Oozie code an illegal (machine, event) carries; E1100 otherwise (oozie.md §1.3, §8).
_ERROR_CODES: dict[tuple[Machine, str], str] = {
    (Machine.BUNDLE, E.SUSPEND): "E1312",
    (Machine.BUNDLE, E.KILL): "E1323",
    (Machine.COORDINATOR, E.SUSPEND): "E0728",
    (Machine.COORDINATOR, E.KILL): "E1020",
    (Machine.COORDINATOR, E.START): "E0303",
    (Machine.ACTION, E.IGNORE): "E1024",
    (Machine.ACTION, E.RERUN): "E1018",
    (Machine.COORDINATOR, E.IGNORE): "E1024",
    (Machine.WORKFLOW, E.KILL): "E0725",  # Workflow instance can not be killed
    (Machine.WORKFLOW, E.SUSPEND): "E0727",  # … can not be suspended as its not in running state
}


# Oozie's codes that say the job already ended; for other refusals (e.g. suspending a job that
# is already suspended) the plain precondition error E1100 is the truthful one.
_ENDED_CODES = frozenset({"E1312", "E1323", "E0728", "E1020"})
_ENDED = frozenset({"SUCCEEDED", "DONEWITHERROR", "KILLED", "FAILED", "IGNORED"})


def decide(machine: Machine, current: str | None, event: Event, job_id: str = "") -> Transition:
    """May a ``machine`` in ``current`` take ``event``? Returns the transition or raises."""
    row = TABLES[machine].get((current or "", event))
    if row is not None:
        return row
    code = _ERROR_CODES.get((machine, event), "E1100")
    if code in _ENDED_CODES and (current or "") not in _ENDED:
        code = "E1100"  # "finished or failed or killed" only when it is; else a plain precondition

    who = f"{machine} {job_id}".strip()
    legal = sorted(sources(machine, event))
    said = SAID.get(event, event.lower().replace("_", " "))
    hint = (
        f"{said} applies to a {machine} in: {', '.join(legal)}"
        if legal
        else f"a {machine} never takes {said}"
    )
    raise ModelError(code, f"{said} is not allowed: {who} is {current or 'new'}", hint=hint)


# An event as the user asked for it, where its name is not what they typed
SAID = {
    Event.CHANGE_STATUS_RUNNING: "change status=RUNNING",
    Event.CHANGE_END: "change endtime",
    Event.UNPAUSE: "clearing the pause time",
}


def allowed(machine: Machine, current: str | None, event: Event) -> bool:
    """The non-raising form, for faces that grey out keys."""
    return (current or "", event) in TABLES[machine]


def sources(machine: Machine, event: Event) -> frozenset[str]:
    """Every status ``event`` applies to, for a write of many rows at once (``status IN …``)."""
    return frozenset(src for (src, ev) in TABLES[machine] if ev == event and src)


def target(machine: Machine, among: Iterable[str], event: Event) -> str:
    """The one status ``event`` takes every status of ``among`` to (a write of many rows at once
    gives them one new status); refused, as :func:`decide` refuses, for a status that may not
    take ``event``, and a ValueError when the table's rows for them end in different ones."""
    given = sorted(among)
    ends = {decide(machine, src, event).to for src in given}
    if len(ends) != 1:
        raise ValueError(f"{event} takes a {machine} in {given} to {sorted(ends)}")
    return ends.pop()


def events_from(machine: Machine, current: str) -> list[Event]:
    """Every event a job in ``current`` may take (for help texts and greyed keys)."""
    return [Event(ev) for (src, ev) in TABLES[machine] if src == current]


# The §1.2 list of valid status changes, used to check roll-up results. Roll-up rule 1
# (every child terminal) ignores the current status, so any live job may also end.
_ENDS = frozenset({J.SUCCEEDED, J.DONEWITHERROR, J.KILLED, J.FAILED})
_DOCUMENTED_MOVES: dict[JobStatus, frozenset[JobStatus]] = {
    J.PREP: frozenset(
        {J.PREPSUSPENDED, J.PREPPAUSED, J.RUNNING, J.RUNNINGWITHERROR, J.KILLED, J.FAILED}
    ),
    J.RUNNING: frozenset(
        {
            J.RUNNINGWITHERROR,
            J.SUSPENDED,
            J.SUSPENDEDWITHERROR,
            J.PAUSED,
            J.SUCCEEDED,
            J.KILLED,
            J.FAILED,
            J.DONEWITHERROR,
        }
    ),
    J.RUNNINGWITHERROR: frozenset(
        {
            J.RUNNING,
            J.SUSPENDED,
            J.SUSPENDEDWITHERROR,
            J.PAUSEDWITHERROR,
            J.DONEWITHERROR,
            J.FAILED,
            J.KILLED,
        }
    ),
    J.PREPSUSPENDED: frozenset({J.PREP, J.KILLED}),
    J.SUSPENDED: frozenset({J.RUNNING, J.KILLED, J.SUSPENDEDWITHERROR, J.SUCCEEDED}),
    J.SUSPENDEDWITHERROR: frozenset({J.RUNNINGWITHERROR, J.KILLED, J.SUSPENDED, J.DONEWITHERROR}),
    J.PREPPAUSED: frozenset({J.PREP, J.KILLED, J.PREPSUSPENDED}),
    J.PAUSED: frozenset({J.SUSPENDED, J.RUNNING, J.KILLED, J.PAUSEDWITHERROR, J.SUCCEEDED}),
    J.PAUSEDWITHERROR: frozenset(
        {J.SUSPENDEDWITHERROR, J.RUNNINGWITHERROR, J.KILLED, J.PAUSED, J.DONEWITHERROR}
    ),
    J.SUCCEEDED: frozenset({J.RUNNING}),
    J.DONEWITHERROR: frozenset({J.RUNNINGWITHERROR}),
    # FAILED -> DONEWITHERROR: a coordinator whose materialization failed, once the actions it
    # had made are done (§2.3 roll-up rule 1), and its bundle with it
    J.FAILED: frozenset({J.RUNNINGWITHERROR, J.IGNORED, J.RUNNING, J.DONEWITHERROR}),
    J.KILLED: frozenset({J.IGNORED, J.RUNNING}),
    J.IGNORED: frozenset({J.RUNNING}),
}

VALID_JOB_MOVES: dict[JobStatus, frozenset[JobStatus]] = {
    src: moves | (_ENDS if src not in _ENDS and src is not J.IGNORED else frozenset())
    for src, moves in _DOCUMENTED_MOVES.items()
}

"""Status enums for every job kind (oozie.md §1.2, §2.3, §2.4, §5.4; JobControl for nodes)."""

from __future__ import annotations

from enum import StrEnum


class JobStatus(StrEnum):
    """Bundle and coordinator job statuses (IGNORED is coordinator-only)."""

    PREP = "PREP"
    RUNNING = "RUNNING"
    RUNNINGWITHERROR = "RUNNINGWITHERROR"
    PREPSUSPENDED = "PREPSUSPENDED"
    SUSPENDED = "SUSPENDED"
    SUSPENDEDWITHERROR = "SUSPENDEDWITHERROR"
    PREPPAUSED = "PREPPAUSED"
    PAUSED = "PAUSED"
    PAUSEDWITHERROR = "PAUSEDWITHERROR"
    SUCCEEDED = "SUCCEEDED"
    DONEWITHERROR = "DONEWITHERROR"
    KILLED = "KILLED"
    FAILED = "FAILED"
    IGNORED = "IGNORED"


BundleStatus = JobStatus
CoordStatus = JobStatus

JOB_TERMINAL = frozenset(
    {JobStatus.SUCCEEDED, JobStatus.DONEWITHERROR, JobStatus.KILLED, JobStatus.FAILED}
)
# Not started yet: submitted and waiting for a start or a kick-off time.
JOB_PREP = frozenset({JobStatus.PREP, JobStatus.PREPSUSPENDED, JobStatus.PREPPAUSED})
# Not ended yet (and not IGNORED): what a kill may still stop.
JOB_LIVE = frozenset(JobStatus) - JOB_TERMINAL - {JobStatus.IGNORED}
# A coordinator in these creates its due actions. A paused one still creates those before
# its pause time: a clock that jumps past the pause (a catch-up) owes them all the same.
COORD_MATERIALIZING = frozenset(
    {
        JobStatus.PREP,
        JobStatus.RUNNING,
        JobStatus.RUNNINGWITHERROR,
        JobStatus.PAUSED,
        JobStatus.PAUSEDWITHERROR,
    }
)
COORD_PAUSED = frozenset({JobStatus.PAUSED, JobStatus.PAUSEDWITHERROR})
# Oozie's ready command launches READY actions only for these (oozie.md §2.4): outside them
# a READY action is held by its coordinator.
COORD_SUBMITTABLE = frozenset(
    {
        JobStatus.RUNNING,
        JobStatus.RUNNINGWITHERROR,
        JobStatus.SUCCEEDED,
        JobStatus.PAUSED,
        JobStatus.PAUSEDWITHERROR,
        JobStatus.DONEWITHERROR,
    }
)
# Oozie checks no inputs of a suspended coordinator: none of its actions becomes READY or
# times out until the resume.
COORD_SUSPENDED = frozenset(
    {JobStatus.SUSPENDED, JobStatus.SUSPENDEDWITHERROR, JobStatus.PREPSUSPENDED}
)


class ActionStatus(StrEnum):
    """Coordinator action statuses (oozie.md §2.4)."""

    WAITING = "WAITING"
    READY = "READY"
    SUBMITTED = "SUBMITTED"
    RUNNING = "RUNNING"
    SUSPENDED = "SUSPENDED"
    TIMEDOUT = "TIMEDOUT"
    SUCCEEDED = "SUCCEEDED"
    KILLED = "KILLED"
    FAILED = "FAILED"
    IGNORED = "IGNORED"
    SKIPPED = "SKIPPED"


ACTION_TERMINAL = frozenset(
    {
        ActionStatus.TIMEDOUT,
        ActionStatus.SUCCEEDED,
        ActionStatus.KILLED,
        ActionStatus.FAILED,
        ActionStatus.IGNORED,
        ActionStatus.SKIPPED,
    }
)
# Not yet ended, in the enum's order: what a kill, or a date scope's "pending" actions, take.
ACTION_ACTIVE = tuple(s for s in ActionStatus if s not in ACTION_TERMINAL)


class WorkflowStatus(StrEnum):
    """Workflow job statuses (oozie.md §5.4)."""

    PREP = "PREP"
    RUNNING = "RUNNING"
    SUSPENDED = "SUSPENDED"
    SUCCEEDED = "SUCCEEDED"
    KILLED = "KILLED"
    FAILED = "FAILED"


WORKFLOW_TERMINAL = frozenset(
    {WorkflowStatus.SUCCEEDED, WorkflowStatus.KILLED, WorkflowStatus.FAILED}
)


class NodeStatus(StrEnum):
    """Workflow node statuses: Hadoop JobControl's, plus KILLED and SKIPPED.

    A node waiting out its retry interval is READY with a due time in the future.
    """

    WAITING = "WAITING"
    READY = "READY"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    DEPENDENT_FAILED = "DEPENDENT_FAILED"
    KILLED = "KILLED"
    SKIPPED = "SKIPPED"


NODE_TERMINAL = frozenset(
    {
        NodeStatus.SUCCEEDED,
        NodeStatus.FAILED,
        NodeStatus.DEPENDENT_FAILED,
        NodeStatus.KILLED,
        NodeStatus.SKIPPED,
    }
)

# How Oozie's REST/CLI names a node status (workflow action statuses, oozie.md §5.4).
NODE_OOZIE_STATUS: dict[NodeStatus, str] = {
    NodeStatus.WAITING: "PREP",
    NodeStatus.READY: "PREP",
    NodeStatus.RUNNING: "RUNNING",
    NodeStatus.SUCCEEDED: "OK",
    NodeStatus.FAILED: "ERROR",
    NodeStatus.DEPENDENT_FAILED: "FAILED",
    NodeStatus.KILLED: "KILLED",
    NodeStatus.SKIPPED: "PREP",  # never started (a path not taken): not OK, which says it ran
}


# What has ended, whatever the kind of job: no status name is live for one kind and ended for
# another (IGNORED ends an action and, short of a status=RUNNING change, a coordinator).
_ENDED = frozenset(
    {
        *JOB_TERMINAL,
        JobStatus.IGNORED,
        *ACTION_TERMINAL,
        *WORKFLOW_TERMINAL,
        *NODE_TERMINAL,
    }
)


# Ended, but not as meant: killed, failed, timed out, or done with some children failed, for
# every kind of job (a DEPENDENT_FAILED node never ran for a failed parent).
ENDED_BADLY: frozenset[str] = _ENDED - {
    JobStatus.SUCCEEDED,
    JobStatus.IGNORED,
    ActionStatus.SKIPPED,
}
# A coordinator action that ended without its workflow done.
ACTION_ENDED_BADLY: frozenset[str] = frozenset(s for s in ACTION_TERMINAL if s in ENDED_BADLY)
# Held until somebody resumes it, whatever the kind of job.
SUSPENDED_ANY: frozenset[str] = COORD_SUSPENDED | {
    ActionStatus.SUSPENDED,
    WorkflowStatus.SUSPENDED,
}
# What needs an operator (the console's faults-only view): ended badly, live with a failed
# child below it (*WITHERROR), or suspended.
NEEDS_OPERATOR: frozenset[str] = (
    ENDED_BADLY
    | {JobStatus.RUNNINGWITHERROR, JobStatus.SUSPENDEDWITHERROR, JobStatus.PAUSEDWITHERROR}
    | SUSPENDED_ANY
)


def has_ended(status: str) -> bool:
    """Has a job (bundle, coordinator, action, workflow or node) in ``status`` ended? False for
    every status in which it may still run or write: PREP*, RUNNING*, SUSPENDED* (a drained
    suspend lets running nodes finish), PAUSED*, WAITING, READY, SUBMITTED."""
    return status in _ENDED


# A coordinator that takes no change but ``status=RUNNING`` (Oozie's E1016): its end time,
# pause time and concurrency are kept as they were when it was killed or ignored.
COORD_UNCHANGEABLE = frozenset({JobStatus.KILLED, JobStatus.IGNORED})


def takes_pause_time(status: str, *, bundle: bool) -> bool:
    """May ``change --value pausetime=…`` set or clear the pause time of a bundle (``bundle``)
    or a coordinator in ``status``? A bundle's until it has ended (E1312); a coordinator's
    unless it is KILLED or IGNORED (E1016: only status=RUNNING changes those), so a SUCCEEDED,
    FAILED or DONEWITHERROR coordinator still takes one."""
    if bundle:
        return status not in JOB_TERMINAL
    return status not in COORD_UNCHANGEABLE

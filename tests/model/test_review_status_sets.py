"""The status model's named sets of what went wrong, which the console's faults-only view
is built from (tests/tui/test_review_faults.py).

Review: the console listed its fault statuses as literals of its own.
"""

from __future__ import annotations

from bundletui.model import status
from bundletui.model.status import ActionStatus, JobStatus, NodeStatus, WorkflowStatus

#: the faults-only view's statuses as the console listed them before the review
FAULTS = {
    "FAILED",
    "KILLED",
    "TIMEDOUT",
    "RUNNINGWITHERROR",
    "SUSPENDEDWITHERROR",
    "PAUSEDWITHERROR",
    "DONEWITHERROR",
    "SUSPENDED",
    "PREPSUSPENDED",
    "DEPENDENT_FAILED",
}
ACTION_FAULTS = {"FAILED", "KILLED", "TIMEDOUT"}


def test_the_named_sets() -> None:
    assert {
        "DONEWITHERROR",
        "KILLED",
        "FAILED",
        "TIMEDOUT",
        "DEPENDENT_FAILED",
    } == status.ENDED_BADLY
    assert status.ACTION_ENDED_BADLY == ACTION_FAULTS
    assert all(isinstance(s, ActionStatus) for s in status.ACTION_ENDED_BADLY)
    assert {"SUSPENDED", "SUSPENDEDWITHERROR", "PREPSUSPENDED"} == status.SUSPENDED_ANY
    assert status.NEEDS_OPERATOR == FAULTS
    # every one ended badly has ended; none that needs an operator is a success or a plan
    assert all(status.has_ended(s) for s in status.ENDED_BADLY)
    good = {JobStatus.SUCCEEDED, JobStatus.IGNORED, NodeStatus.SKIPPED, JobStatus.PAUSED}
    assert not status.NEEDS_OPERATOR & good
    for kind in (JobStatus, ActionStatus, WorkflowStatus, NodeStatus):
        assert {s for s in kind if "SUSPENDED" in s} <= status.NEEDS_OPERATOR

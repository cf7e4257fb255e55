"""Status roll-up: a parent's status from its children's, as pure functions.

Bundle: oozie.md §1.4 (BundleStatusTransitXCommand); coordinator: §2.3 (CoordStatusTransitXCommand).
The engine calls these in the same transaction as the child's change, not from a periodic sweep.
``backward_support`` is Oozie's default quirk that maps every *WITHERROR state to its plain
form; we default it off, as the seed's table does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bundletui.model.status import ActionStatus, JobStatus

J = JobStatus
A = ActionStatus

_BACKWARD = {
    J.RUNNINGWITHERROR: J.RUNNING,
    J.SUSPENDEDWITHERROR: J.SUSPENDED,
    J.PAUSEDWITHERROR: J.PAUSED,
}


def backward_map(status: JobStatus, backward_support: bool) -> JobStatus:
    return _BACKWARD.get(status, status) if backward_support else status


@dataclass(frozen=True, slots=True)
class BundleRollupInput:
    status: JobStatus
    counts: Mapping[JobStatus, int]  # bundle actions by (coordinator) status, IGNORED excluded
    pending: bool = False  # any bundle action pending
    pause_time_set: bool = False
    suspended_time_set: bool = False
    critical_submit_failed: bool = False  # a critical child failed to submit (seed)
    noncritical_submit_failed: bool = False


def _n(counts: Mapping[JobStatus, int], *statuses: JobStatus) -> int:
    return sum(counts.get(s, 0) for s in statuses)


def bundle_rollup(inp: BundleRollupInput, *, backward_support: bool = False) -> JobStatus | None:
    """The bundle's status after its children changed, or None when it stays as it is."""
    result = _bundle_rollup(inp)
    if result is None:
        return None
    result = backward_map(result, backward_support)
    return None if result == inp.status else result


def _failed_child_ended_with_error(inp: BundleRollupInput, total: int) -> bool:
    """A coordinator whose materialization failed is FAILED at once, and DONEWITHERROR once the
    actions it had made are done (§2.3 rule 1); a bundle that went FAILED with it follows. Only
    that move: a bundle failed by a critical child, or killed, stays as it is."""
    c = inp.counts
    return (
        inp.status is J.FAILED
        and not inp.critical_submit_failed
        and total > 0
        and total == _n(c, J.SUCCEEDED, J.FAILED, J.KILLED, J.DONEWITHERROR)
        and c.get(J.DONEWITHERROR, 0) > 0
    )


def _bundle_rollup(inp: BundleRollupInput) -> JobStatus | None:
    c = inp.counts
    total = sum(v for k, v in c.items() if k is not J.IGNORED)
    if inp.status in (J.KILLED, J.FAILED) and not inp.pending:
        if _failed_child_ended_with_error(inp, total):
            return J.DONEWITHERROR
        return None  # killed/failed bundles stay so
    if inp.critical_submit_failed and inp.status not in (J.KILLED, J.FAILED):
        return J.FAILED
    # 1. terminal
    if (
        total
        and not inp.pending
        and total == _n(c, J.SUCCEEDED, J.FAILED, J.KILLED, J.DONEWITHERROR)
    ):
        if inp.status is J.KILLED:
            return J.KILLED
        if total == c.get(J.SUCCEEDED, 0):
            return J.SUCCEEDED
        if total == c.get(J.KILLED, 0):
            return J.KILLED
        if total == c.get(J.FAILED, 0):
            return J.FAILED
        return J.DONEWITHERROR
    error_kids = _n(
        c,
        J.KILLED,
        J.FAILED,
        J.DONEWITHERROR,
        J.SUSPENDEDWITHERROR,
        J.RUNNINGWITHERROR,
        J.PAUSEDWITHERROR,
    )
    has_error = error_kids > 0 or inp.noncritical_submit_failed
    # 2. paused. A bundle PAUSED with no pause time of its own was paused from below (its
    # coordinators' pause times): oozie.md §1.3 unpauses a PAUSED job whose pause time is null,
    # so it follows its children here rather than staying PAUSED for good.
    if inp.status in (J.PAUSED, J.PAUSEDWITHERROR) and inp.pause_time_set:
        return J.PAUSEDWITHERROR if has_error else J.PAUSED
    if total and total == c.get(J.PAUSED, 0):
        return J.PAUSED
    if c.get(J.PAUSEDWITHERROR, 0) and total == _n(c, J.PAUSED, J.PAUSEDWITHERROR):
        return J.PAUSEDWITHERROR
    # 3. suspended
    if inp.status in (J.SUSPENDED, J.SUSPENDEDWITHERROR) and inp.suspended_time_set:
        suspended_err = _n(
            c, J.KILLED, J.FAILED, J.DONEWITHERROR, J.SUSPENDEDWITHERROR, J.PAUSEDWITHERROR
        )
        return (
            J.SUSPENDEDWITHERROR if suspended_err or inp.noncritical_submit_failed else J.SUSPENDED
        )
    if (not inp.pending and c.get(J.SUSPENDED, 0)) or c.get(J.SUSPENDEDWITHERROR, 0):
        if total == _n(c, J.SUSPENDED, J.SUCCEEDED):
            return J.SUSPENDED
        if total == _n(
            c, J.SUSPENDEDWITHERROR, J.SUSPENDED, J.SUCCEEDED, J.KILLED, J.FAILED, J.DONEWITHERROR
        ):
            return J.SUSPENDEDWITHERROR
    # 4. running
    if inp.status is not J.PREP and inp.status not in (J.PREPSUSPENDED, J.PREPPAUSED):
        running_err = _n(c, J.FAILED, J.KILLED, J.DONEWITHERROR, J.RUNNINGWITHERROR)
        return J.RUNNINGWITHERROR if running_err or inp.noncritical_submit_failed else J.RUNNING
    # 5. PREP bundle whose children started
    if inp.status is J.PREP and not inp.pending and c.get(J.PREP, 0) and c.get(J.PREP, 0) != total:
        running_err = _n(c, J.FAILED, J.KILLED, J.DONEWITHERROR, J.RUNNINGWITHERROR)
        return J.RUNNINGWITHERROR if running_err else J.RUNNING
    return None


@dataclass(frozen=True, slots=True)
class CoordRollupInput:
    status: JobStatus
    counts: Mapping[ActionStatus, int]  # IGNORED actions excluded by the caller or here
    done_materialization: bool
    pending: bool = False  # any action pending


def coord_rollup(inp: CoordRollupInput, *, backward_support: bool = False) -> JobStatus | None:
    """The coordinator's status after its actions changed, or None when it stays."""
    result = _coord_rollup(inp)
    if result is None:
        return None
    result = backward_map(result, backward_support)
    return None if result == inp.status else result


def _coord_rollup(inp: CoordRollupInput) -> JobStatus | None:
    c = inp.counts
    st = inp.status
    total = sum(v for k, v in c.items() if k is not A.IGNORED)
    if st is J.IGNORED:
        return None
    # 1. terminal
    terminal = _n_a(c, A.SUCCEEDED, A.FAILED, A.KILLED, A.TIMEDOUT, A.SKIPPED)
    if (
        (inp.done_materialization or st in (J.FAILED, J.KILLED))
        and total == terminal
        and not inp.pending
    ):
        if st is J.KILLED:
            return J.KILLED
        if total == _n_a(c, A.SUCCEEDED, A.SKIPPED) and inp.done_materialization:
            return J.SUCCEEDED
        if total and total == c.get(A.KILLED, 0):
            return J.KILLED
        if total and total == c.get(A.FAILED, 0):
            return J.FAILED
        if st is J.FAILED and total == 0:
            return None
        return J.DONEWITHERROR
    if st in (J.SUCCEEDED, J.DONEWITHERROR, J.KILLED, J.FAILED):
        return None  # a terminal job moves only by a command (rerun, change)
    bad = _n_a(c, A.KILLED, A.FAILED, A.TIMEDOUT) > 0
    # 2. paused
    if st in (J.PAUSED, J.PAUSEDWITHERROR):
        return J.PAUSEDWITHERROR if bad else J.PAUSED
    # 3. suspended
    if st in (J.SUSPENDED, J.SUSPENDEDWITHERROR):
        return J.SUSPENDEDWITHERROR if bad else J.SUSPENDED
    if st in (J.PREPSUSPENDED, J.PREPPAUSED):
        return None
    if inp.done_materialization and not inp.pending and c.get(A.SUSPENDED, 0):
        if total == _n_a(c, A.SUSPENDED, A.SUCCEEDED):
            return J.SUSPENDED
        if total == _n_a(c, A.SUSPENDED, A.SUCCEEDED, A.KILLED, A.FAILED, A.TIMEDOUT):
            return J.SUSPENDEDWITHERROR
    # 4. running
    if st is not J.PREP:
        return J.RUNNINGWITHERROR if bad else J.RUNNING
    return None


def _n_a(counts: Mapping[ActionStatus, int], *statuses: ActionStatus) -> int:
    return sum(counts.get(s, 0) for s in statuses)

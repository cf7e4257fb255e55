"""Roll-up rules of oozie.md §1.4 (bundle) and §2.3 (coordinator), scenario by scenario."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bundletui.model.rollup import (
    BundleRollupInput,
    CoordRollupInput,
    bundle_rollup,
    coord_rollup,
)
from bundletui.model.status import ActionStatus, JobStatus
from bundletui.model.transitions import VALID_JOB_MOVES

J = JobStatus
A = ActionStatus


def b(status: JobStatus, *kids: JobStatus, **kw: bool) -> JobStatus | None:
    counts: dict[JobStatus, int] = {}
    for k in kids:
        counts[k] = counts.get(k, 0) + 1
    return bundle_rollup(BundleRollupInput(status=status, counts=counts, **kw))


def c(
    status: JobStatus, *acts: ActionStatus, done: bool = True, pending: bool = False
) -> JobStatus | None:
    counts: dict[ActionStatus, int] = {}
    for a in acts:
        counts[a] = counts.get(a, 0) + 1
    return coord_rollup(
        CoordRollupInput(status=status, counts=counts, done_materialization=done, pending=pending)
    )


class TestBundle:
    def test_all_children_succeeded(self) -> None:
        assert b(J.RUNNING, J.SUCCEEDED, J.SUCCEEDED) == J.SUCCEEDED

    def test_mixed_terminal_children_done_with_error(self) -> None:
        assert b(J.RUNNING, J.SUCCEEDED, J.FAILED) == J.DONEWITHERROR
        assert b(J.RUNNINGWITHERROR, J.SUCCEEDED, J.KILLED) == J.DONEWITHERROR

    def test_all_killed_or_all_failed(self) -> None:
        assert b(J.RUNNING, J.KILLED, J.KILLED) == J.KILLED
        assert b(J.RUNNING, J.FAILED, J.FAILED) == J.FAILED

    def test_pending_blocks_terminal(self) -> None:
        assert b(J.RUNNING, J.SUCCEEDED, J.SUCCEEDED, pending=True) is None

    def test_running_with_a_failed_child(self) -> None:
        assert b(J.RUNNING, J.RUNNING, J.FAILED) == J.RUNNINGWITHERROR
        assert b(J.RUNNINGWITHERROR, J.RUNNING, J.RUNNING) == J.RUNNING

    def test_a_failed_bundle_follows_its_failed_child_to_done_with_error(self) -> None:
        """The child's materialization failed while actions it had made still ran: it ends
        DONEWITHERROR, and so does the bundle that had gone FAILED with it. Nothing else moves
        a failed or killed bundle."""
        assert b(J.FAILED, J.DONEWITHERROR) == J.DONEWITHERROR
        assert b(J.FAILED, J.DONEWITHERROR, J.FAILED, J.SUCCEEDED) == J.DONEWITHERROR
        assert b(J.FAILED, J.DONEWITHERROR, critical_submit_failed=True) is None
        assert b(J.FAILED, J.DONEWITHERROR, J.RUNNING) is None
        assert b(J.FAILED, J.FAILED, J.SUCCEEDED) is None
        assert b(J.KILLED, J.DONEWITHERROR) is None

    def test_backward_support_hides_witherror(self) -> None:
        inp = BundleRollupInput(status=J.RUNNING, counts={J.RUNNING: 1, J.FAILED: 1})
        assert bundle_rollup(inp, backward_support=True) is None
        assert bundle_rollup(inp, backward_support=False) == J.RUNNINGWITHERROR

    def test_paused_bundle(self) -> None:
        assert b(J.PAUSED, J.PAUSED, J.FAILED, pause_time_set=True) == J.PAUSEDWITHERROR
        assert b(J.PAUSED, J.RUNNING, J.RUNNING, pause_time_set=True) is None  # its own pause
        # paused from below (no pause time of its own): it follows its children out of it, as
        # oozie.md §1.3 unpauses a PAUSED job whose pause time is null
        assert b(J.PAUSED, J.PAUSED, J.PAUSED) is None
        assert b(J.PAUSED, J.RUNNING, J.RUNNING) == J.RUNNING
        assert b(J.PAUSEDWITHERROR, J.RUNNING, J.FAILED) == J.RUNNINGWITHERROR
        assert b(J.RUNNING, J.PAUSED, J.PAUSED) == J.PAUSED
        assert b(J.RUNNING, J.PAUSED, J.PAUSEDWITHERROR) == J.PAUSEDWITHERROR

    def test_suspended_bundle(self) -> None:
        assert (
            b(J.SUSPENDED, J.SUSPENDED, J.KILLED, suspended_time_set=True) == J.SUSPENDEDWITHERROR
        )
        assert b(J.RUNNING, J.SUSPENDED, J.SUCCEEDED) == J.SUSPENDED
        assert b(J.RUNNING, J.SUSPENDEDWITHERROR, J.SUSPENDED) == J.SUSPENDEDWITHERROR

    def test_prep_with_started_children(self) -> None:
        assert b(J.PREP, J.PREP, J.RUNNING) == J.RUNNING
        assert b(J.PREP, J.PREP, J.PREP) is None

    def test_critical_child_failed_to_submit_fails_bundle(self) -> None:
        assert b(J.RUNNING, J.RUNNING, J.FAILED, critical_submit_failed=True) == J.FAILED

    def test_noncritical_child_failed_to_submit_runs_with_error(self) -> None:
        assert (
            b(J.RUNNING, J.RUNNING, J.FAILED, noncritical_submit_failed=True) == J.RUNNINGWITHERROR
        )

    def test_killed_bundle_stays_killed(self) -> None:
        assert b(J.KILLED, J.SUCCEEDED, J.KILLED) is None


class TestCoordinator:
    def test_all_succeeded_done(self) -> None:
        assert c(J.RUNNING, A.SUCCEEDED, A.SUCCEEDED, A.SKIPPED) == J.SUCCEEDED

    def test_not_done_materializing_keeps_running(self) -> None:
        assert c(J.RUNNING, A.SUCCEEDED, done=False) is None

    def test_no_actions_done_is_succeeded(self) -> None:
        assert c(J.RUNNING) == J.SUCCEEDED

    def test_timedout_mix_is_done_with_error(self) -> None:
        assert c(J.RUNNING, A.TIMEDOUT, A.TIMEDOUT) == J.DONEWITHERROR
        assert c(J.RUNNING, A.SUCCEEDED, A.FAILED) == J.DONEWITHERROR

    def test_all_failed_all_killed(self) -> None:
        assert c(J.RUNNING, A.FAILED, A.FAILED) == J.FAILED
        assert c(J.RUNNING, A.KILLED) == J.KILLED

    def test_killed_job_stays_killed(self) -> None:
        assert c(J.KILLED, A.SUCCEEDED, A.KILLED) is None

    def test_running_with_error(self) -> None:
        assert c(J.RUNNING, A.RUNNING, A.FAILED, done=False) == J.RUNNINGWITHERROR
        assert c(J.RUNNING, A.WAITING, A.TIMEDOUT, done=False) == J.RUNNINGWITHERROR

    def test_paused_and_suspended(self) -> None:
        assert c(J.PAUSED, A.WAITING, A.FAILED, done=False) == J.PAUSEDWITHERROR
        assert c(J.SUSPENDED, A.SUSPENDED, A.KILLED, done=False) == J.SUSPENDEDWITHERROR
        assert c(J.RUNNING, A.SUSPENDED, A.SUCCEEDED) == J.SUSPENDED

    def test_prep_stays_prep(self) -> None:
        assert c(J.PREP, done=False) is None

    def test_ignored_actions_excluded(self) -> None:
        assert c(J.RUNNING, A.SUCCEEDED, A.IGNORED) == J.SUCCEEDED


live = st.sampled_from(
    [
        J.RUNNING,
        J.RUNNINGWITHERROR,
        J.PAUSED,
        J.PAUSEDWITHERROR,
        J.SUSPENDED,
        J.SUSPENDEDWITHERROR,
        J.PREP,
    ]
)


@given(
    live, st.lists(st.sampled_from(list(ActionStatus)), max_size=12), st.booleans(), st.booleans()
)
def test_coord_rollup_moves_are_valid(
    status: JobStatus, acts: list[ActionStatus], done: bool, pending: bool
) -> None:
    if status is J.PREP:
        acts, done = [], False  # nothing is materialized before a coordinator runs
    result = c(status, *acts, done=done, pending=pending)
    if result is not None:
        assert result in VALID_JOB_MOVES[status], (status, result)


@given(
    live,
    st.lists(st.sampled_from([s for s in JobStatus if s is not J.IGNORED]), max_size=8),
    st.booleans(),
)
def test_bundle_rollup_moves_are_valid(
    status: JobStatus, kids: list[JobStatus], pending: bool
) -> None:
    paused = status in (J.PAUSED, J.PAUSEDWITHERROR)
    suspended = status in (J.SUSPENDED, J.SUSPENDEDWITHERROR)
    result = b(status, *kids, pending=pending, pause_time_set=paused, suspended_time_set=suspended)
    if result is not None:
        assert result in VALID_JOB_MOVES[status] | {
            J.PAUSED,
            J.PAUSEDWITHERROR,
            J.SUSPENDED,
            J.SUSPENDEDWITHERROR,
        }, (status, result)

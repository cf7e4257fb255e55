"""The details pane's time form (the constraint and timeout lines of a held job)."""

from __future__ import annotations

from bundletui.tui.details import short_times

DAY = "Sun, 01 Mar 2026 00:00:00 GMT"


def test_times_keep_their_seconds_when_they_have_some() -> None:
    """A run constraint's 30 s delay lifts at 22:00:30: the pane said 22:00 (left-alone item)."""
    text = "held until Sun, 01 Mar 2026 22:00:30 GMT; then Mon, 02 Mar 2026 22:00:00 GMT"
    assert short_times(text) == "held until 2026-03-01 22:00:30Z; then 2026-03-02 22:00Z"
    assert short_times(text, DAY) == "held until 22:00:30; then 03-02 22:00"
    assert short_times("not a time: Sun, 99 Mar 2026 22:00:30 GMT") == (
        "not a time: Sun, 99 Mar 2026 22:00:30 GMT"
    )


def test_a_coordinator_whose_materialization_a_kill_stopped_says_so() -> None:
    """QA (u): a KILLED coordinator's why said "every action is materialized; KILLED", and
    showed a next time, though the kill had ended it before its end time."""
    from bundletui.tui.details import coordinator_page

    held = (
        "stopped at 2026-01-01 04:00 GMT, before its end 2026-01-01 06:00 GMT: a kill or a"
        " failure ended materialization; change --value status=RUNNING resumes it"
    )
    info = {
        "coordJobName": "busy",
        "coordJobId": "0000001-260101000000000-bundletui-u-C",
        "status": "KILLED",
        "materialization": {"next": None, "done": True, "stopped": True, "heldBy": held},
        "counts": {"SUCCEEDED": 3},
    }
    text = coordinator_page(info).plain
    assert f"why: {held}; KILLED" in text.replace("\n", " "), text
    assert "every action is materialized" not in text and "next" not in text


def test_a_suspended_action_says_why_and_read_only_names_its_command() -> None:
    """QA (u): a SUSPENDED action's details had no why line (a READY one has one)."""
    from bundletui.tui.details import action_page

    aid = "0000001-260101000000000-bundletui-u-C@3"
    info = {"id": aid, "actionNumber": 3, "coordJobName": "busy", "status": "SUSPENDED"}
    assert "why: suspended: its workflow is held until r resumes it" in action_page(info).plain
    read_only = action_page(info, read_only=True).plain
    assert f"until `bundletui resume {aid}` resumes it" in read_only, read_only

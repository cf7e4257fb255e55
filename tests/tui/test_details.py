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

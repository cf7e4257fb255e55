"""A store's first simulated run says when jobs were stamped on the real clock.

Jobs submitted before any ``run --clock simulated`` are stamped with the real time, which is
usually later than the simulated start: a workflow then reads as ending before it started.
The engine cannot know which times the operator meant, so it warns, and says how to stamp
submissions on the simulated clock instead (set the clock first, then submit).
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e4.conftest import MARK, Bt4, ms

WARNING = "were submitted on the real clock"


def _props(bt: Bt4) -> Path:
    bt.apps.write("wf.xml", MARK.read_text())
    return bt.apps.props("wf.properties", {"oozie.wf.application.path": "wf.xml", "aid": "w"})


def test_jobs_stamped_on_the_real_clock_are_warned_of(bt: Bt4) -> None:
    bt.submit_job(_props(bt), start=True)
    e = bt.sim("2026-01-01T00:00Z", "2026-01-01T01:00Z")
    assert f"1 job(s) of this store {WARNING}" in e.log(), e.log()
    assert "--start-time T --until T), then submit" in " ".join(e.log().split())


def test_setting_the_simulated_clock_first_stamps_submissions_on_it(bt: Bt4) -> None:
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:00Z")  # sets the store's clock, runs nothing
    wf = bt.submit_job(_props(bt), start=True)
    e = bt.sim("2026-01-01T00:00Z", "2026-01-01T01:00Z")
    assert WARNING not in e.log()
    created, started, ended = bt.sql(
        "SELECT created_time, start_time, end_time FROM wf_jobs WHERE id = ?", wf
    )[0]
    assert created == started == ms("2026-01-01T00:00Z") <= ended

"""The console's faults-only view keeps the statuses the status model says need an operator
(bundletui.model.status.NEEDS_OPERATOR, ACTION_ENDED_BADLY): the same ones it listed as
literals before the review.
"""

from __future__ import annotations

from bundletui.model import status
from bundletui.store.changes import COORD, TreeRow
from bundletui.tui import model as console
from tests.model.test_review_status_sets import ACTION_FAULTS, FAULTS


def test_the_console_faults_are_the_models() -> None:
    assert console.FAULTS is status.NEEDS_OPERATOR
    assert console.ACTION_FAULTS is status.ACTION_ENDED_BADLY
    assert set(console.FAULTS) == FAULTS
    assert set(console.ACTION_FAULTS) == ACTION_FAULTS
    # looked up by the plain strings the store's rows and counts carry
    assert all(s in console.FAULTS for s in FAULTS)
    assert "PREPPAUSED" not in console.FAULTS and "RUNNING" not in console.FAULTS


def test_faults_only_keeps_each_status_and_a_coordinator_with_failed_actions() -> None:
    m = console.ConsoleModel()
    rows = [
        TreeRow(COORD, f"C-{s}", None, s.lower(), s, i, 1) for i, s in enumerate(sorted(FAULTS))
    ]
    rows.append(TreeRow(COORD, "C-ok", None, "ok", "RUNNING", 99, 1))
    counts = {"C-ok": {"SUCCEEDED": 3}}
    m.load_top([], rows, counts)
    for s in sorted(FAULTS):
        assert m.is_fault(m.items[f"C-{s}"]), s
    assert not m.is_fault(m.items["C-ok"])
    for s in sorted(ACTION_FAULTS):
        m.load_top([], rows, {"C-ok": {s: 1, "SUCCEEDED": 3}})
        assert m.is_fault(m.items["C-ok"]), s

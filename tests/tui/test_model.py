"""The console model without Textual: tree diffs by id, filter / faults-only projections, key
availability with reasons, and what operators type (pause times, ':' commands, scopes)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bundletui.store.changes import ACTION, BUNDLE, COORD, NODE, WORKFLOW, Changes, TreeRow
from bundletui.tui.inputs import (
    check_action_scope,
    check_date_scope,
    number_ranges,
    parse_command,
    parse_pause_time,
)
from bundletui.tui.model import Add, ConsoleModel, Relabel, Remove, Target, availability, more_id


def bundle(i: str, status: str = "RUNNING", created: int = 1) -> TreeRow:
    return TreeRow(BUNDLE, i, None, f"name-{i}", status, -created, 1)


def coord(i: str, parent: str | None, status: str = "RUNNING", created: int = 1) -> TreeRow:
    return TreeRow(COORD, i, parent, f"c-{i}", status, created, 1)


def action(coord_id: str, n: int, status: str = "WAITING", link: str | None = None) -> TreeRow:
    return TreeRow(ACTION, f"{coord_id}@{n}", coord_id, f"@{n}", status, n, 1, nominal=0, link=link)


def node(wf: str, name: str, status: str = "RUNNING", order: int = 1) -> TreeRow:
    return TreeRow(NODE, f"{wf}@{name}", wf, name, status, order, 1)


def loaded() -> ConsoleModel:
    m = ConsoleModel(action_limit=3)
    m.load_top(
        [bundle("B1", created=2), bundle("B2", created=1)],
        [coord("C1", "B1"), coord("C2", "B1", created=2), coord("C3", "B2")],
        {"C1": {"WAITING": 2}, "C3": {"FAILED": 1, "SUCCEEDED": 4}},
    )
    return m


def test_first_load_orders_and_adds_parents_before_children() -> None:
    m = ConsoleModel()
    ops = m.load_top(
        [bundle("B1", created=1), bundle("B2", created=5), TreeRow(WORKFLOW, "W", None, "w", "OK", -9, 1)],
        [coord("C1", "B1"), coord("C0", None)],
        {},
    )  # fmt: skip
    adds = [op for op in ops if isinstance(op, Add)]
    assert [a.id for a in adds if a.parent is None] == ["B2", "B1", "C0", "W"]  # newest first
    assert adds.index(Add("C1", "B1", None)) > adds.index(Add("B1", None, None))
    assert m.in_tree == {"B1", "B2", "C0", "C1", "W"}


def test_poll_relabels_changed_rows_and_inserts_new_ones_in_order() -> None:
    m = loaded()
    m.set_children("C1", [action("C1", 1), action("C1", 3)], total=2)
    ops, reload = m.apply(
        Changes(0, 9, [action("C1", 2, "READY"), action("C1", 3, "RUNNING"), coord("C9", "B2")]),
        {"C1": {"WAITING": 1, "READY": 1, "RUNNING": 1}},
    )
    assert reload == []
    assert Add("C1@2", "C1", "C1@3") in ops  # between @1 and @3, by id
    assert Add("C9", "B2", None) in ops
    assert Relabel("C1@3") in ops and Relabel("C1") in ops and Relabel("B1") in ops
    assert m.items["C1"].children == ["C1@1", "C1@2", "C1@3"]
    assert not any(isinstance(op, Remove) for op in ops)


def test_rows_of_unloaded_parents_are_ignored_but_counts_are_kept() -> None:
    m = loaded()
    ops, _ = m.apply(Changes(0, 2, [action("C3", 7, "KILLED")]), {"C3": {"KILLED": 1}})
    assert "C3@7" not in m.items
    assert ops == [Relabel("B2"), Relabel("C3")]
    assert m.items["C3"].counts == {"KILLED": 1}


def test_more_placeholder_counts_actions_not_loaded() -> None:
    m = loaded()
    ops = m.set_children("C1", [action("C1", 8), action("C1", 9), action("C1", 10)], total=10)
    assert m.items["C1"].children == [more_id("C1"), "C1@8", "C1@9", "C1@10"]
    assert m.items[more_id("C1")].total == 7
    assert ops[0] == Add(more_id("C1"), "C1", None)  # all new: each goes in at the end


def test_cleared_filter_puts_the_hidden_actions_back_in_order() -> None:
    m = loaded()
    m.set_children("C1", [action("C1", 1), action("C1", 2), action("C1", 3, "READY")], total=3)
    m.set_filter("ready")  # @3 and its ancestors only
    assert m.shown["C1"] == ["C1@3"]
    ops, _expand = m.set_filter("")
    adds = [op for op in ops if isinstance(op, Add) and op.parent == "C1"]
    # each before one already in the tree, in order: a run of new ones never lands at the end
    assert adds == [Add("C1@1", "C1", "C1@3"), Add("C1@2", "C1", "C1@3")]


def test_reloaded_children_remove_deleted_actions() -> None:
    m = loaded()
    m.set_children("C1", [action("C1", 1), action("C1", 2), action("C1", 3)], total=3)
    ops, _ = m.apply(
        Changes(0, 5, [coord("C1", "B1")]),
        {"C1": {"WAITING": 1}},
        {"C1": ([action("C1", 1)], 1)},  # pause time moved back: @2 and @3 deleted
    )
    assert Remove("C1@2") in ops and Remove("C1@3") in ops
    assert m.items["C1"].children == ["C1@1"] and "C1@3" not in m.items


def test_an_action_that_launches_a_new_workflow_reloads_its_nodes() -> None:
    m = loaded()
    m.set_children("C1", [action("C1", 1, "RUNNING", link="W1")], total=1)
    m.set_children("C1@1", [node("W1", "a"), node("W1", "b", order=2)])
    assert m.owner["W1"] == "C1@1" and "W1@a" in m.in_tree
    ops, _ = m.apply(Changes(0, 3, [node("W1", "a", "SUCCEEDED")]))
    assert ops == [Relabel("W1@a")]
    ops, reload = m.apply(Changes(3, 4, [action("C1", 1, "WAITING", link="W2")]))
    assert reload == ["C1@1"]
    assert Remove("W1@a") in ops and Remove("W1@b") in ops
    assert m.owner == {"W2": "C1@1"} and m.needs_load("C1@1")


def test_filter_keeps_ancestors_of_matches_and_descendants_of_text_matches() -> None:
    m = loaded()
    m.set_children("C1", [action("C1", 1), action("C1", 2, "FAILED")], total=2)
    ops, expand = m.set_filter("@2")
    assert m.in_tree == {"B1", "C1", "C1@2"}
    assert Remove("B2") in ops and Remove("C2") in ops and Remove("C1@1") in ops
    assert expand == ["B1", "C1"]
    m.set_filter("c-C1")  # a coordinator matches: its actions stay visible under it
    assert m.in_tree == {"B1", "C1", "C1@1", "C1@2"}
    ops, _ = m.set_filter("")
    assert m.in_tree == {"B1", "B2", "C1", "C2", "C3", "C1@1", "C1@2"}
    assert Add("B2", None, None) in ops


def test_faults_only_keeps_failed_subtrees() -> None:
    m = loaded()
    m.set_children("C1", [action("C1", 1), action("C1", 2, "KILLED")], total=2)
    m.set_faults_only(True)
    # C3 has a failed action by its counts, C1 a killed loaded one
    assert m.in_tree == {"B1", "C1", "C1@2", "B2", "C3"}
    m.set_filter("@")  # both at once: faulty and matching
    assert m.in_tree == {"B1", "C1", "C1@2"}


def test_polls_under_a_filter_keep_the_projection() -> None:
    m = loaded()
    m.set_children("C1", [action("C1", 1)], total=1)
    m.set_filter("failed")
    # C1's action is loaded and WAITING; C3's are not: it matches by its counts (QA: a status
    # filter missed the actions of collapsed coordinators)
    assert m.in_tree == {"B2", "C3"}
    ops, _ = m.apply(Changes(0, 2, [action("C1", 1, "FAILED")]), {"C1": {"FAILED": 1}})
    assert m.in_tree == {"B1", "C1", "C1@1", "B2", "C3"}
    assert [op.id for op in ops if isinstance(op, Add)] == ["B1", "C1", "C1@1"]


def test_a_status_filter_finds_collapsed_coordinators_by_their_counts_not_their_loaded_rows() -> (
    None
):
    m = loaded()  # C1: WAITING 2 (not loaded), C3: FAILED 1, SUCCEEDED 4 (not loaded)
    m.set_filter("waiting")
    assert m.in_tree == {"B1", "C1"}
    m.set_children("C1", [action("C1", 1), action("C1", 2, "SUCCEEDED")], total=2)
    m.set_filter("waiting")  # loaded: its actions are matched one by one
    assert m.in_tree == {"B1", "C1", "C1@1"}
    m.set_filter("c-c3")  # a name still matches as before
    assert m.in_tree == {"B2", "C3"}


def test_marks_and_hidden_counts() -> None:
    m = loaded()
    assert m.toggle_mark("C1") and m.toggle_mark("C3")
    m.set_filter("c-C1")
    assert m.hidden_count(m.marks) == 1
    assert not m.toggle_mark("C1")


# ----------------------------------------------------------------------------- keys


def item(row: TreeRow, **counts: int):  # type: ignore[no-untyped-def]
    m = ConsoleModel()
    m.items[row.id] = m._put(row)
    m.items[row.id].counts = counts
    return m.items[row.id]


@pytest.mark.parametrize(
    ("row", "action", "state", "reason"),
    [
        (coord("C", None, "RUNNING"), "resume", "greyed", "resume: coordinator is RUNNING"),
        (coord("C", None, "SUSPENDED"), "resume", "enabled", ""),
        (coord("C", None, "SUCCEEDED"), "kill", "greyed", "kill: coordinator is SUCCEEDED"),
        (coord("C", None, "SUCCEEDED"), "pause", "enabled", ""),  # as `change` takes it
        (coord("C", None, "KILLED"), "pause", "greyed", "pause: coordinator is KILLED"),
        (coord("C", None, "PREP"), "rerun", "greyed", "no actions to rerun"),
        (coord("C", None, "RUNNING"), "rerun", "greyed", "no finished actions yet"),
        (bundle("B", "PREP"), "suspend", "enabled", ""),
        (bundle("B", "KILLED"), "suspend", "greyed", "suspend: bundle is KILLED"),
        (action("C", 1, "WAITING"), "suspend", "greyed", "only a RUNNING action's workflow"),
        (action("C", 1, "RUNNING", link="W"), "suspend", "enabled", ""),
        (action("C", 1, "SUCCEEDED"), "rerun", "enabled", ""),
        (action("C", 1, "RUNNING"), "rerun", "greyed", "only a finished action can be rerun"),
        (action("C", 1, "WAITING"), "logs", "greyed", "has launched no workflow yet"),
        (action("C", 1, "READY"), "kill", "enabled", ""),
        (action("C", 1, "READY"), "pause", "greyed", "pause time belongs to bundles"),
        (node("W", "n"), "kill", "greyed", "kill its workflow"),
        (node("W", "n"), "logs", "enabled", ""),
        (TreeRow(WORKFLOW, "W", None, "w", "FAILED", 0, 0), "rerun", "enabled", ""),
        (TreeRow(WORKFLOW, "W", None, "w", "RUNNING", 0, 0), "rerun", "greyed", "workflow is RUNNING"),
    ],
)  # fmt: skip
def test_key_availability_says_why(row: TreeRow, action: str, state: str, reason: str) -> None:
    got = availability(action, item(row))
    assert got.state == state
    assert reason in got.reason


def test_rerun_of_a_coordinator_needs_a_finished_action() -> None:
    assert availability("rerun", item(coord("C", None), FAILED=1)).enabled


def test_read_only_hides_and_bulk_uses_marks() -> None:
    it = item(coord("C", None, "RUNNING"))
    assert availability("kill", it, read_only=True).state == "hidden"
    assert availability("describe", it, read_only=True).enabled
    done = item(coord("D", None, "SUCCEEDED"))
    assert availability("kill", done, marked=[it, done]).enabled
    got = availability("kill", it, marked=[done])
    assert got.state == "greyed" and "none of the 1 marked jobs can be killed" in got.reason
    assert availability("suspend", None).reason == "suspend: nothing selected"
    assert Target.of(it).describe() == "coordinator c-C (RUNNING)"


# ----------------------------------------------------------------------------- inputs

NOW = datetime(2026, 3, 1, 10, 17, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-02T00:00Z", "2026-03-02T00:00Z"),
        ("+2h", "2026-03-01T12:18Z"),  # rounded up to the next minute
        ("+1d6h", "2026-03-02T16:18Z"),
        ("+30m", "2026-03-01T10:48Z"),
        ("eod", "2026-03-02T00:00Z"),
        ("", ""),
        ("clear", ""),
    ],
)
def test_pause_times(text: str, expected: str) -> None:
    assert parse_pause_time(text, NOW).text == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("2026-03-01T10:00Z", "must be in the future"),
        ("tomorrow", "use yyyy-MM-ddTHH:mmZ"),
        ("+2x", "relative times look like"),
        ("2026-13-01T00:00Z", "use yyyy-MM-ddTHH:mmZ"),
    ],
)
def test_bad_pause_times_say_why(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_pause_time(text, NOW)


def test_commands() -> None:
    assert parse_command(":coord ingest").args == ["ingest"]
    assert parse_command("q").verb == "quit"
    sub = parse_command(":submit 'my job.properties' start=2026-01-01T00:00Z -Dx=y")
    assert (sub.args, sub.defines) == (["my job.properties"], ["start=2026-01-01T00:00Z", "x=y"])
    assert parse_command(":filter a b").args == ["a b"]
    for bad, why in ((":", "type a command"), (":nope", "unknown command"), (":coord", "needs")):
        with pytest.raises(ValueError, match=why):
            parse_command(bad)


def test_scopes() -> None:
    assert check_action_scope("1,3-5") is None and check_action_scope("") is None
    assert (check_action_scope("1-") or "").startswith("E0302: Invalid parameter [action scope")
    assert check_date_scope("2026-01-01T00:00Z::2026-01-02T00:00Z") is None
    assert "date scope yesterday" in (check_date_scope("yesterday") or "")
    assert number_ranges([7, 1, 2, 3, 9, 10]) == "1-3,7,9-10"


def test_details_of_an_event_coordinator_name_its_constraint_not_inputs() -> None:
    from bundletui.tui.details import coordinator_page

    held = "held by time-window until Sat, 21 Nov 2026 22:00:00 GMT"
    info = {
        "coordJobName": "train-on-arrival", "coordJobId": "0000005-x-C", "status": "RUNNING",
        "schedule": "event", "frequency": 0, "timeUnit": "MINUTE", "timeZone": "UTC",
        "executionPolicy": "FIFO", "concurrency": 1, "mat_throttling": 12, "timeOut": -1,
        "counts": {"WAITING": 4},
        "materialization": {"next": "Fri, 20 Nov 2026 00:00:00 GMT", "done": False},
        "actions": [{"status": "WAITING", "waitingFor": {"reason": "constraint", "detail": held}}],
    }  # fmt: skip
    text = coordinator_page(info).plain
    assert "4 jobs WAITING, the first held by time-window until 2026-11-21 22:00Z" in text
    assert "for inputs" not in text
    assert "event-triggered" in text and "every 0" not in text and "throttle" not in text


def test_details_of_a_coordinator_failed_by_materialization_say_why() -> None:
    from bundletui.tui.details import coordinator_page

    info = {
        "coordJobName": "far", "coordJobId": "0000002-x-C", "status": "FAILED",
        "frequency": 60, "timeUnit": "MINUTE", "timeZone": "UTC", "executionPolicy": "FIFO",
        "concurrency": 1, "mat_throttling": 12, "timeOut": 120, "counts": {},
        "materialization": {"next": "Thu, 01 Jan 2026 00:00:00 GMT", "done": False,
                            "heldBy": "coordinator FAILED"},
        "errorCode": "E1010", "errorMessage": "Invalid data in coordinator xml. [data-in [in]]",
    }  # fmt: skip
    text = coordinator_page(info).plain
    assert "E1010: Invalid data in coordinator xml. [data-in [in]]" in text
    assert "not materializing" not in text  # the error is the why, not the hold it causes


def test_a_label_too_long_for_its_line_gives_way_name_first_failures_last() -> None:
    from bundletui.tui.labels import label

    m = ConsoleModel()
    long = TreeRow(COORD, "L", None, "quarterly-revenue-reconciliation-eu-west", "RUNNING", 1, 1)
    m.load_top([], [long, coord("S", None, "RUNNINGWITHERROR")], {
        "L": {"SUCCEEDED": 63}, "S": {"WAITING": 21, "SUCCEEDED": 10, "FAILED": 1}})  # fmt: skip
    assert label(m, m.items["L"]).plain == f"{long.name}  RUNNING  ✓63"
    assert label(m, m.items["L"], 30).plain == "quarterly-reven…  RUNNING  ✓63"
    assert label(m, m.items["L"], 20).plain == "quarter… RUNNING ✓63"
    # a short name stays; the gaps narrow, then the counts go, least telling first
    assert label(m, m.items["S"], 40).plain == "c-S  RUNNINGWITHERROR  ◷21 ✓10 ✗1"
    assert label(m, m.items["S"], 32).plain == "c-S RUNNINGWITHERROR ◷21 ✓10 ✗1"
    # ... and say so: +N, the actions they counted (its room counts too: ◷21 goes with ✓10)
    assert label(m, m.items["S"], 30).plain == "c-S RUNNINGWITHERROR ✗1 +31"
    # with no room even for that, the status and the failures win
    assert label(m, m.items["S"], 26).plain == "c-S RUNNINGWITHERROR ✗1"


def test_counts_that_give_way_are_never_dropped_silently() -> None:
    """QA: on a narrow tree a label lost its lower-priority counts with nothing to say so."""
    from bundletui.tui.labels import label

    m = ConsoleModel()
    counts = {"WAITING": 6, "SUCCEEDED": 2, "FAILED": 1}
    m.load_top([bundle("B")], [coord("C", "B")], {"C": counts})
    assert label(m, m.items["C"], 20).plain == "c-C RUNNING ◷6 ✓2 ✗1"
    assert label(m, m.items["C"], 19).plain == "c-C RUNNING ✗1 +8"  # was "c-C RUNNING ◷6 ✗1"
    assert label(m, m.items["B"], 22).plain == "name-B RUNNING ✗1 +8"  # a bundle's sum too
    m.load_top([], [coord("D", None)], {"D": {"WAITING": 6, "SUCCEEDED": 2}})
    assert label(m, m.items["D"], 16).plain == "c-D RUNNING +8"  # was "c-D RUNNING ◷6"


def test_the_action_table_columns_fit_their_pane() -> None:
    """QA: the action table was wider than its pane at 120×40 (56 cells) and 160×50 (76): the
    workflow id needed scrolling. Every width keeps the number, the status and the id."""
    from bundletui.tui.widgets import fit_columns, short_id

    for room in range(31, 200):
        widths = fit_columns(room)
        assert sum(w + 2 for w in widths.values()) <= room, room
        assert {"n", "status", "wf"} <= set(widths) and widths["wf"] >= 11, room
    assert list(fit_columns(36)) == ["n", "status", "wf"]  # 80×24
    assert list(fit_columns(56)) == ["n", "nominal", "status", "wf"]  # 120×40
    assert list(fit_columns(76)) == ["n", "nominal", "status", "wf", "why"]  # 160×50
    wf = "0000004-240101000000000-bundletui-alice-W"
    assert short_id(wf, 41) == wf
    assert short_id(wf, 40) == "0000004-…-bundletui-alice-W"
    assert short_id(wf, fit_columns(56)["wf"]) == "0000004-…-alice-W"
    assert short_id(wf, 11) == "0000004-…-W"
    assert short_id("-", 11) == "-"


def test_a_skipped_count_does_not_read_as_a_negative_number() -> None:
    """QA: one SKIPPED action showed as ``-1`` in the tree."""
    from bundletui.tui.labels import counts_text

    text = counts_text({"SUCCEEDED": 3, "SKIPPED": 1, "IGNORED": 1}).plain
    assert text == "✓3 ⊘2" and "-" not in text

"""Event schedules that fire each other in a loop through ``<program>`` triggers (QA: two
schedules each ``<or><cron/><program/></or>`` on the other ran for ever)."""

from __future__ import annotations

from bundletui.model.events import (
    AllOf,
    AnyOf,
    Cron,
    Partitions,
    Program,
    TriggerNode,
    Wait,
    WaitFrom,
)
from bundletui.spec.program_loops import firing_programs, program_index, program_loop

CRON = Cron("0 0 * * *")
FEED = Partitions("f", 1)


def on(name: str, status: str = "SUCCEEDED") -> Program:
    return Program(name, status)


def test_two_schedules_each_firing_on_the_other_through_an_or_are_a_loop() -> None:
    triggers: dict[str, TriggerNode] = {
        "a": AnyOf((CRON, on("b"))),
        "b": AnyOf((CRON, on("a"))),
    }
    assert program_loop(triggers) == ["a", "b", "a"]


def test_a_bare_program_trigger_and_any_status_count() -> None:
    triggers: dict[str, TriggerNode] = {"a": on("b", "FAILED"), "b": on("a", "KILLED")}
    assert program_loop(triggers) == ["a", "b", "a"]


def test_an_and_with_a_feed_or_a_cron_or_another_program_blocks_the_loop() -> None:
    for other in (FEED, CRON, on("c")):
        triggers: dict[str, TriggerNode] = {
            "a": AnyOf((CRON, AllOf((on("b"), other)))),
            "b": AnyOf((CRON, on("a"))),
            "c": CRON,
        }
        assert program_loop(triggers) is None, other


def test_nested_ors_and_an_and_of_waits_only_do_not_block() -> None:
    triggers: dict[str, TriggerNode] = {
        "a": AnyOf((CRON, AnyOf((FEED, AnyOf((on("b"),)))))),
        "b": AllOf(
            (
                on("a"),
                Wait(60_000, WaitFrom.LAST_EVENT),
                AnyOf((Wait(1000), FEED)),  # the wait alone makes this branch hold
            )
        ),
    }
    assert program_loop(triggers) == ["a", "b", "a"]


def test_an_and_whose_other_branch_needs_a_feed_as_well_as_a_wait_blocks() -> None:
    triggers: dict[str, TriggerNode] = {
        "a": AllOf((on("b"), AllOf((Wait(1000), FEED)))),
        "b": on("a"),
    }
    assert program_loop(triggers) is None


def test_three_schedules_in_a_loop_in_order() -> None:
    triggers: dict[str, TriggerNode] = {
        "x": CRON,
        "a": AnyOf((CRON, on("b"))),
        "b": on("c"),
        "c": AnyOf((FEED, on("a"), on("x"))),
    }
    assert program_loop(triggers) == ["a", "b", "c", "a"]


def test_chains_without_a_loop_and_unknown_names() -> None:
    triggers: dict[str, TriggerNode] = {
        "a": on("b"),
        "b": AnyOf((on("c"), on("elsewhere"))),
        "c": CRON,
        "d": AnyOf((on("a"), on("c"))),
    }
    assert program_loop(triggers) is None
    assert program_loop({}) is None


def test_through_finds_only_a_loop_through_the_named_schedule() -> None:
    triggers: dict[str, TriggerNode] = {
        "new": on("x"),
        "x": on("y"),
        "y": on("x"),  # a loop already there, not through "new"
    }
    assert program_loop(triggers) == ["x", "y", "x"]
    assert program_loop(triggers, through="new") is None
    triggers["y"] = AnyOf((on("x"), on("new")))
    assert program_loop(triggers, through="new") == ["new", "x", "y", "new"]


def test_the_firing_program_is_found_in_document_order() -> None:
    trigger = AnyOf((AllOf((on("b"), FEED)), on("c"), on("b")))
    assert [(i, p.coordinator) for i, p in firing_programs(trigger)] == [(1, "c"), (2, "b")]
    assert program_index(trigger, "b") == 2
    assert program_index(trigger, "z") is None

"""``<bytes at-least>`` sizes: binary units, and one clear error for anything else."""

from __future__ import annotations

import pytest

from bundletui.model.events import _approx_bytes, parse_bytes


@pytest.mark.parametrize(
    ("text", "size"),
    [("10", 10), ("10B", 10), ("1.5KB", 1536), ("500MB", 500 * 2**20), ("100 gb", 100 * 2**30)],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_bytes(text) == size


@pytest.mark.parametrize("text", ["100XB", "XB", "B", "", "1e3MB", "-5MB", "5MBB"])
def test_not_a_size_says_so(text: str) -> None:
    with pytest.raises(ValueError, match=r"not a size: .* \(use e\.g\. 500MB, 100GB\)"):
        parse_bytes(text)


@pytest.mark.parametrize(
    ("have", "shown"),
    [(300, "300B"), (2800, "2.7KB"), (2048, "2KB"), (2047, "1.9KB"), (3 * 2**20 + 1, "3.0MB")],
)
def test_bytes_seen_are_shown_in_the_unit_they_reach(have: int, shown: str) -> None:
    """A paused bytes trigger read ``2800B of 1KB``: the count seen keeps to one unit, rounded
    down (2047 bytes of 2KB read "2.0KB of 2KB" while the trigger was not met)."""
    assert _approx_bytes(have) == shown


def test_events_needed_is_a_lower_bound_or_none_when_time_can_fire() -> None:
    """The engine skips a look at the window while it holds fewer events than this (QA: a
    burst for a count of 1,000,000 was quadratic)."""
    from bundletui.model.events import (
        AllOf,
        AnyOf,
        Bytes,
        Cron,
        Partitions,
        Program,
        Wait,
        events_needed,
    )

    assert events_needed(Partitions("f", 1000)) == 1000
    assert events_needed(Bytes("f", 10)) == events_needed(Program("c")) == 1
    assert events_needed(AnyOf((Partitions("f", 5), Partitions("g", 3)))) == 3
    # two leaves may count the same partition (nested feeds): the larger, not the sum
    assert events_needed(AllOf((Partitions("f", 5), Partitions("g", 3)))) == 5
    assert events_needed(AnyOf((Partitions("f", 5), Cron("0 * * * *")))) is None
    assert events_needed(AllOf((Partitions("f", 5), Wait(60_000)))) is None

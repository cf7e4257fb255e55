"""One-line lists: the first few, then how many more."""

from __future__ import annotations

from bundletui.model.listing import first_few


def test_a_short_list_is_said_whole_and_a_long_one_says_how_many_more() -> None:
    assert first_few(["a", "b"]) == "a, b"
    assert first_few([f"c{i}" for i in range(10)]) == ", ".join(f"c{i}" for i in range(10))
    many = [f"c{i:03d}: E1022" for i in range(300)]  # QA: a 300-coordinator bundle's E1320
    said = first_few(many, "; ")
    assert said.startswith("c000: E1022; c001: E1022") and said.endswith("; … and 290 more")
    assert "c010" not in said and len(said) < 200

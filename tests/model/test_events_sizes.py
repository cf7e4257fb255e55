"""``<bytes at-least>`` sizes: binary units, and one clear error for anything else."""

from __future__ import annotations

import pytest

from bundletui.model.events import parse_bytes


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

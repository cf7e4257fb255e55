"""Lists said in one line: the first few, then how many more (a 300-coordinator bundle's
refusal named all 300, some 20 KB on one line)."""

from __future__ import annotations

from collections.abc import Sequence


def first_few(items: Sequence[str], sep: str = ", ", limit: int = 10) -> str:
    """``items`` joined by ``sep``; past ``limit``, the first ``limit`` and "… and N more"."""
    if len(items) <= limit:
        return sep.join(items)
    return f"{sep.join(items[:limit])}{sep}… and {len(items) - limit} more"

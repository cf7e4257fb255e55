"""Where a value came from, for errors about values that carry no line of their own."""

from __future__ import annotations

from pathlib import Path


def line_of(file: str, text: str) -> int | None:
    """The line where ``text`` first appears in ``file`` (None when it does not, as when the
    XML escapes it)."""
    try:
        source = Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    at = source.find(text)
    return None if at < 0 else source.count("\n", 0, at) + 1

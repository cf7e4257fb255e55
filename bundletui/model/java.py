"""Numbers read as Oozie's Java reads them: ``Integer.parseInt``'s syntax and range."""

from __future__ import annotations

import re

JAVA_INT_MIN = -(2**31)
JAVA_INT_MAX = 2**31 - 1
JAVA_INT = re.compile(r"[+-]?[0-9]+")


def parse_java_int(text: str) -> int | None:
    """``Integer.parseInt`` of ``text`` (surrounding blanks allowed), or None where Java would
    throw: not a plain whole number, or outside -2147483648..2147483647."""
    text = text.strip()
    if not JAVA_INT.fullmatch(text):
        return None
    number = int(text)
    return number if JAVA_INT_MIN <= number <= JAVA_INT_MAX else None

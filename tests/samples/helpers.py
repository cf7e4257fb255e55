"""Shared paths for the sample-application tests."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bundles"
NAIVE_BAYES = SAMPLES / "naive-bayes"
OOZIE_WF = SAMPLES / "oozie-wf"


def parse_properties(text: str) -> dict[str, str]:
    """Minimal Java-properties reader for `key=value` capture-output lines."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "!")):
            continue
        key, sep, value = line.partition("=")
        assert sep, f"not a properties line: {line!r}"
        out[key.strip()] = value.strip()
    return out

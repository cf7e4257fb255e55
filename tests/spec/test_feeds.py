"""Finding a feed's partitions on disk (the event engine's rescan)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bundletui.spec.feeds import partitions, scan_partitions


def test_a_rescan_does_not_enter_the_partitions_it_knows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (ak): every rescan listed and sized every partition of a feed, inside the tick's
    write transaction (3.6 s of lock for 20,000). Known ones are not entered: the directories
    listed are counted where the walk asks the OS for them."""
    feed = tmp_path / "feed"
    for i in range(50):
        (feed / f"p{i:02d}").mkdir(parents=True)
        (feed / f"p{i:02d}" / "_SUCCESS").touch()
    (feed / "_staging" / "x").mkdir(parents=True)  # hidden: never a partition
    assert sorted(p.name for p in partitions(feed, "_SUCCESS")) == [f"p{i:02d}" for i in range(50)]
    assert {size for _p, size in scan_partitions(feed, "_SUCCESS")} == {0}

    listed: list[str] = []
    real = os.scandir

    def counted(path: str) -> os.ScandirIterator[str]:  # type: ignore[type-arg]
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counted)
    known = {str(feed / f"p{i:02d}") for i in range(49)}
    assert [p.name for p in partitions(feed, "_SUCCESS", known=known)] == ["p49"]
    assert listed == [str(feed), str(feed / "p49")]

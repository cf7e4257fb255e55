"""What a feed's directory holds: its partitions (a directory below the feed that has the
done-flag, or — with an empty done-flag — each complete, non-hidden file below it)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger("bundletui.landing")
_SAID: set[str] = set()  # the names not valid UTF-8 a warning was given for (bounded below)


def is_utf8(text: str) -> bool:
    """Whether ``text`` is valid UTF-8 text: Python names a file whose name is not with
    surrogate escapes, which SQLite refuses to store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(path: str) -> str:
    """A path as it can be printed: the bytes not UTF-8 as ``\\xff``."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def storable(path: str) -> bool:
    """A landed path the store can keep. One whose name is not valid UTF-8 stopped the
    engine, at every start (QA): it is passed over, with a warning once."""
    if is_utf8(path):
        return True
    if path not in _SAID and len(_SAID) < 1_000:
        _SAID.add(path)
        log.warning(
            "passed over %s: its name is not valid UTF-8 (rename it to be seen)", shown(path)
        )
    return False


def hidden(p: Path, feed: Path) -> bool:
    """Staging names (``.x``, ``_x``) below the feed are not partitions."""
    rel = p.relative_to(feed) if p.is_relative_to(feed) else p
    return any(part.startswith((".", "_")) for part in rel.parts)


def size_of(p: Path) -> int:
    return p.stat().st_size if p.is_file() else _files_size(p, None)


def _files_size(top: Path, flag: str | None) -> int:
    """The files below ``top`` together; with ``flag``, not those of a directory below it
    that holds the flag itself (a partition of its own)."""
    total = 0
    for root, dirs, files in os.walk(top):
        if flag and root != str(top) and flag in files:
            dirs[:] = []
            continue
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


def scan_partitions(feed: Path, flag: str, under: Path | None = None) -> Iterator[tuple[Path, int]]:
    """Every complete partition of ``feed`` (below ``under``, default the whole feed), with
    its size."""
    for part in partitions(feed, flag, under):
        yield part, partition_size(part, flag)


def completed_ms(part: Path, flag: str) -> int:
    """When a partition became complete (real clock): its done-flag's mtime (the file's own
    without one); 0 when it is gone."""
    try:
        return (part / flag if flag else part).stat().st_mtime_ns // 1_000_000
    except OSError:
        return 0


def on_clock(completed: int, now_ms: int, real_now_ms: int) -> int:
    """A real completion time on the store's clock (simulated or not): as long before its now
    as it is before the real now, never after it."""
    return min(now_ms, now_ms - (real_now_ms - completed))


def partition_size(part: Path, flag: str) -> int:
    """A directory partition's files together, but those of partitions inside it (a
    directory with the done-flag of its own, counted as itself: QA, a day's partition over
    its hours' counted their bytes twice); a file partition's own size."""
    return _files_size(part, flag) if flag else part.stat().st_size


def partitions(feed: Path, flag: str, under: Path | None = None) -> Iterator[Path]:
    """Every complete partition of ``feed``, without reading sizes (a rescan sizes only the
    ones it has not recorded). A recorded partition's directory is entered too: a day's
    partition may hold its hours'."""
    top = under or feed
    if not top.is_dir() or hidden(top, feed):  # a staging tree, renamed into place later
        return
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_")) and storable(f"{root}/{d}")]
        here = Path(root)
        if flag:
            if flag in files and here != feed:
                yield here
        else:
            for name in files:
                f = here / name
                if not hidden(f, feed) and storable(str(f)):
                    yield f

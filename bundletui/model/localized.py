"""A shell action's ``<file>`` and ``<archive>`` entries, in Hadoop's distributed-cache
spelling ``path[#link]``: the name each takes in the job's working directory, and how an
archive is unpacked there. Pure; the engine does the linking (engine/localize.py)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

# what shutil.unpack_archive calls each suffix (a jar is a zip, as Hadoop's RunJar reads it)
ARCHIVE_FORMATS: tuple[tuple[str, str], ...] = (
    (".tar.gz", "gztar"),
    (".tgz", "gztar"),
    (".tar.bz2", "bztar"),
    (".tbz2", "bztar"),
    (".tar.xz", "xztar"),
    (".txz", "xztar"),
    (".tar", "tar"),
    (".zip", "zip"),
    (".jar", "zip"),
)


@dataclass(frozen=True, slots=True)
class CacheEntry:
    path: str  # as written, relative to the workflow's directory or absolute
    link: str  # its name in the working directory


def parse_entry(raw: str) -> CacheEntry:
    """``lib/tool.sh#tool`` -> (``lib/tool.sh``, ``tool``); without ``#``, the path's last part
    (an archive too: ``deps.zip`` is unpacked into ``deps.zip/``, as Hadoop does)."""
    path, sep, link = raw.strip().partition("#")
    path = path.strip()
    return CacheEntry(path, link.strip() if sep else posixpath.basename(path.rstrip("/")))


def link_problem(link: str) -> str | None:
    """Why ``link`` cannot be a name in the working directory, or None."""
    if not link:
        return "its link name is empty"
    if "/" in link or link in (".", ".."):
        return f"its link name [{link}] is not a plain file name"
    return None


def archive_format(path: str) -> str | None:
    """The unpacking format of an archive path, by its suffix (None: not one we unpack)."""
    lower = path.lower()
    return next((fmt for suffix, fmt in ARCHIVE_FORMATS if lower.endswith(suffix)), None)


def archive_suffixes() -> str:
    return ", ".join(suffix for suffix, _ in ARCHIVE_FORMATS)

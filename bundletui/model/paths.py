"""Local paths as fs operations read them: a plain absolute path or a ``file:`` URI.

Pure, so that the spec layer refuses at submit the very paths the engine would refuse at run
time (FS002, FS011), with the same words.
"""

from __future__ import annotations

import posixpath
import re
from typing import NamedTuple

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):(.*)\Z", re.DOTALL)


class PathProblem(NamedTuple):
    code: str  # Oozie's FS002 (another file system) or FS011 (relative)
    message: str
    hint: str


def parse_local_path(uri: str) -> str | PathProblem:
    """The absolute local path ``uri`` names (slashes collapsed, no trailing one), or why it
    names none."""
    text = uri.strip()
    path = text
    m = _SCHEME.match(text)
    if m:
        scheme, rest = m.group(1), m.group(2)
        if scheme.lower() != "file":
            return PathProblem(
                "FS002",
                f"Scheme [{scheme}] not supported in path [{text}]",
                "fs actions work on the local file system: use file:///absolute/path or "
                "/absolute/path",
            )
        path = rest
        if rest.startswith("//"):
            authority, slash, tail = rest[2:].partition("/")
            if authority not in ("", "localhost"):
                return PathProblem(
                    "FS002",
                    f"Host [{authority}] not supported in path [{text}]",
                    "a local file URI has three slashes: file:///absolute/path",
                )
            path = slash + tail
    if not path.startswith("/"):
        return PathProblem("FS011", f"Path [{text}] cannot be relative", "use an absolute path")
    # ``.`` and ``..`` go as Hadoop's Path drops them (``/tmp/..`` is ``/``): a guard that
    # compares the path with ``/`` must see the path it names
    return posixpath.normpath(re.sub("/+", "/", path))


_GLOB = re.compile(r"[*?\[{]")


def delete_refusal(path: str) -> str | None:
    """Why a recursive delete of ``path`` (as :func:`parse_local_path` gives it) is refused,
    or None: the root, or a whole top-level directory (``/home``, ``/*``), which a value
    left empty (``${scratch}/.``) makes of a path meant to be deeper. HDFS refuses the root;
    a scheduler running as a real user must not wipe a machine on a typo."""
    if path == "/":
        return "refusing to delete the root"
    if path.count("/") == 1:
        if _GLOB.search(path):
            return "refusing to delete what a pattern matches at the top of the file system"
        return "refusing to delete a top-level directory of the file system"
    return None


_DOT_SEGMENT = re.compile(r"(?:^|/)\.\.?(?:/|\Z)")


def tidy_uri(uri: str) -> str:
    """``uri`` with repeated slashes in its path collapsed, ``.`` and ``..`` segments removed
    (as Hadoop's ``Path`` normalizes a URI) and no trailing slash: the form the landing watcher
    reports a file in (``${landing}//x/`` or ``${landing}/a/../x`` named a path no event
    matched, as a dependency is looked up by its exact text)."""
    head, path = "", uri
    m = _SCHEME.match(uri)
    if m:
        rest = m.group(2)
        if rest.startswith("//"):
            authority, slash, tail = rest[2:].partition("/")
            head, path = f"{m.group(1)}://{authority}", slash + tail
        else:
            head, path = f"{m.group(1)}:", rest
    path = re.sub("/+", "/", path)
    if _DOT_SEGMENT.search(path):
        path = posixpath.normpath(path) if path.startswith("/") else _relative_norm(path)
    return head + (path.rstrip("/") if len(path) > 1 else path)


def _relative_norm(path: str) -> str:
    norm = posixpath.normpath(path)
    return "" if norm == "." else norm

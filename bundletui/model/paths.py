"""Local paths as fs operations read them: a plain absolute path or a ``file:`` URI.

Pure, so that the spec layer refuses at submit the very paths the engine would refuse at run
time (FS002, FS011), with the same words.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
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
    return _normal(path)


def _normal(path: str) -> str:
    """An absolute path with repeated slashes, ``.`` and ``..`` gone (``//x`` too, which
    ``normpath`` alone keeps)."""
    return posixpath.normpath(re.sub("/+", "/", path))


_GLOB = re.compile(r"[*?\[{]")


def _sweep(path: str, verb: str) -> str | None:
    if path == "/":
        return f"refusing to {verb} the root"
    if _GLOB.search(path.split("/")[1]):
        return f"refusing to {verb} what a pattern matches at the top of the file system"
    if path.count("/") == 1:
        return f"refusing to {verb} a top-level directory of the file system"
    return None


def sweep_refusal(path: str, verb: str, realpath: Callable[[str], str] | None = None) -> str | None:
    """Why an operation on a whole tree (a delete, a move's source, a recursive chmod) may not
    take ``path``, or None: the root, a top-level directory (``/home``), or a pattern at the
    top (``/*``, ``/*/*``): what a value left empty (``${scratch}/.``) makes of a path meant
    to be deeper. HDFS refuses the root; a scheduler running as a real user must not wipe a
    machine on a typo. ``realpath`` (the engine's ``os.path.realpath``): the path's directory
    is judged as the file system resolves it too, so a link to ``/`` is no way round; its
    last part is not (a link itself is only unlinked)."""
    lexical = _normal(path)
    why = _sweep(lexical, verb)
    if why is None and realpath is not None:
        head, tail = posixpath.split(lexical)
        resolved = posixpath.join(realpath(head), tail)
        why = _sweep(resolved, verb)
        if why is not None:
            why += f" ({path} is {resolved}, through a symbolic link)"
    return why


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

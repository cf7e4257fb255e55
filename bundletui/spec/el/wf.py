"""``wf:`` functions over an engine-provided state object, and ``fs:`` functions on local paths.

The workflow engine implements :class:`WorkflowELState` (plain attributes are fine for the
read-only members) and registers ``wf_functions(state)`` in the context of each evaluation.
Semantics follow oozie.md §5.8 and Oozie's ``DagELFunctions``: string results are ``""`` (never
null) when a node has not run or has no such value.
"""

from __future__ import annotations

import glob
import os
import re
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, cast
from urllib.parse import quote, urlsplit

from bundletui.errors import SpecError
from bundletui.spec.el.coerce import el_function

WF_CONSTANTS: Mapping[str, str] = {
    "RECORDS": "org.apache.hadoop.mapred.Task$Counter",
    "MAP_IN": "MAP_INPUT_RECORDS",
    "MAP_OUT": "MAP_OUTPUT_RECORDS",
    "REDUCE_IN": "REDUCE_INPUT_RECORDS",
    "REDUCE_OUT": "REDUCE_OUTPUT_RECORDS",
    "GROUPS": "REDUCE_INPUT_GROUPS",
}
"""Hadoop counter names Oozie defines for ``hadoop:counters``; harmless to merge into variables."""


class WorkflowELState(Protocol):
    """What ``wf:`` functions read from a running workflow job (implemented by the engine)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def app_path(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def group(self) -> str: ...
    @property
    def run(self) -> int:
        """0 for the first run, +1 per rerun."""
        ...

    @property
    def current_action_id(self) -> str | None:
        """``<wfId>@<node>`` of the action being started (for ``wf:callback``), if any."""
        ...

    def conf(self, name: str) -> str | None: ...
    def transition(self, node: str) -> str | None:
        """The transition the node took, None if it has not run."""
        ...

    def last_error_node(self) -> str | None: ...
    def error_code(self, node: str) -> str | None: ...
    def error_message(self, node: str) -> str | None: ...
    def action_data(self, node: str) -> Mapping[str, str] | None:
        """The node's captured output (``<capture-output/>`` properties)."""
        ...

    def action_external_id(self, node: str) -> str | None: ...
    def action_tracker_uri(self, node: str) -> str | None: ...
    def action_external_status(self, node: str) -> str | None: ...


def _text(value: str | None) -> str:
    return "" if value is None else value


def wf_functions(
    state: WorkflowELState, *, callback_base: str = "http://localhost:11000/oozie"
) -> dict[str, Callable[..., Any]]:
    """The ``wf:`` function table bound to ``state``.

    ``wf:callback(var)`` returns ``<callback_base>/callback?id=<actionId>&status=<var>`` — a
    placeholder in the shape of Oozie's, since local actions report back directly.
    """

    def callback(state_var: str) -> str:
        action = state.current_action_id or state.id
        return f"{callback_base}/callback?id={quote(action, safe='@-')}&status={state_var}"

    def action_data(node: str) -> dict[str, str]:
        data = state.action_data(node)
        return dict(data) if data else {}

    return {
        "wf:id": el_function()(lambda: state.id),
        "wf:name": el_function()(lambda: state.name),
        "wf:appPath": el_function()(lambda: state.app_path),
        "wf:conf": el_function(str)(lambda name: _text(state.conf(name))),
        "wf:user": el_function()(lambda: state.user),
        "wf:group": el_function()(lambda: state.group),
        "wf:run": el_function()(lambda: int(state.run)),
        "wf:callback": el_function(str)(callback),
        "wf:transition": el_function(str)(lambda node: _text(state.transition(node))),
        "wf:lastErrorNode": el_function()(lambda: _text(state.last_error_node())),
        "wf:errorCode": el_function(str)(lambda node: _text(state.error_code(node))),
        "wf:errorMessage": el_function(str)(lambda node: _text(state.error_message(node))),
        "wf:actionData": el_function(str)(action_data),
        "wf:actionExternalId": el_function(str)(lambda node: _text(state.action_external_id(node))),
        "wf:actionTrackerUri": el_function(str)(lambda node: _text(state.action_tracker_uri(node))),
        "wf:actionExternalStatus": el_function(str)(
            lambda node: _text(state.action_external_status(node))
        ),
    }


# -- fs: --------------------------------------------------------------------------------------

_GLOB_CHARS = re.compile(r"[*?\[{]")


def local_path(uri: str, base: Path | None = None) -> Path:
    """``file:///x``, ``file:/x`` or a plain path as a local Path (relative to ``base``).

    Without a base a relative path is refused (Oozie's FS011) rather than read against the
    engine's working directory, which no workflow author can know; an empty one is refused as
    Hadoop's ``new Path("")`` is."""
    if not uri.strip():
        raise SpecError(
            "E1004",
            "fs: functions need a path, got an empty string",
            hint="check the property the path is built from: it may be unset or empty",
        )
    if uri.startswith("file:"):
        parts = urlsplit(uri)
        if parts.netloc not in ("", "localhost"):
            raise SpecError(
                "E1004", f"fs: functions need a local path, got [{uri}] (host {parts.netloc})"
            )
        path = Path(parts.path)
    elif re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", uri):
        raise SpecError(
            "E1004",
            f"fs: functions need a local path (file:// or plain), got [{uri}]",
            hint="point the property (e.g. nameNode) at file:// or a local directory",
        )
    else:
        path = Path(uri)
    if not path.is_absolute():
        if base is None:
            raise SpecError(
                "E1004",
                f"FS011: Path [{uri}] cannot be relative",
                hint="use an absolute path or file:///absolute/path",
            )
        path = base / path
    return path


def _expand_braces(pattern: str) -> list[str]:
    """Hadoop glob ``{a,b}`` alternatives (nested allowed)."""
    depth = 0
    start = -1
    for i, ch in enumerate(pattern):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                options: list[str] = []
                level = 0
                last = start + 1
                for j in range(start + 1, i):
                    c = pattern[j]
                    if c == "{":
                        level += 1
                    elif c == "}":
                        level -= 1
                    elif c == "," and level == 0:
                        options.append(pattern[last:j])
                        last = j + 1
                options.append(pattern[last:i])
                head, tail = pattern[:start], pattern[i + 1 :]
                return [e for option in options for e in _expand_braces(head + option + tail)]
    return [pattern]


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def fs_functions(
    base: Path | None = None, resolve: Callable[[str], Path] | None = None
) -> dict[str, Callable[..., Any]]:
    """``fs:exists`` (glob), ``fs:isDir``, ``fs:dirSize``, ``fs:fileSize``, ``fs:blockSize``.

    ``resolve`` maps a URI to a local path (default :func:`local_path` relative to ``base``);
    the engine may pass one that maps ``hdfs://`` URIs onto a local root.
    """
    to_path = resolve or (lambda uri: local_path(uri, base))

    def exists(uri: str) -> bool:
        path = str(to_path(uri))
        if not _GLOB_CHARS.search(path):
            return os.path.exists(path)
        for pattern in _expand_braces(path):
            python_pattern = re.sub(r"\[\^", "[!", pattern)
            if glob.glob(python_pattern, include_hidden=True):
                return True
        return False

    def is_dir(uri: str) -> bool:
        st = _stat(to_path(uri))
        return st is not None and stat.S_ISDIR(st.st_mode)

    def dir_size(uri: str) -> int:
        path = to_path(uri)
        st = _stat(path)
        if st is None or not stat.S_ISDIR(st.st_mode):
            return -1
        total = 0
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_file():
                    total += entry.stat().st_size
        return total

    def file_size(uri: str) -> int:
        st = _stat(to_path(uri))
        if st is None or not stat.S_ISREG(st.st_mode):
            return -1
        return st.st_size

    def block_size(uri: str) -> int:
        st = _stat(to_path(uri))
        if st is None or not stat.S_ISREG(st.st_mode):
            return -1
        return int(getattr(st, "st_blksize", 4096))

    return {
        "fs:exists": el_function(str)(exists),
        "fs:isDir": el_function(str)(is_dir),
        "fs:dirSize": el_function(str)(dir_size),
        "fs:fileSize": el_function(str)(file_size),
        "fs:blockSize": el_function(str)(block_size),
    }


# The tables' names, for checks made before any workflow runs (a submit). Building a table only
# makes closures: ``state`` is read when a function is called, never here.
WF_FUNCTION_NAMES: frozenset[str] = frozenset(wf_functions(cast(WorkflowELState, None)))
"""The names :func:`wf_functions` binds (``wf:id``, ``wf:conf`` ...)."""
FS_FUNCTION_NAMES: frozenset[str] = frozenset(fs_functions())
"""The names :func:`fs_functions` binds (``fs:exists`` ...)."""

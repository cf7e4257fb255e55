"""The EL context a workflow's nodes are resolved in: its conf as variables, wf:/fs: functions.

``wf:appPath()`` is the application directory (the directory holding the definition), so
``${wf:appPath()}/script.py`` works whether the job named the directory or the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bundletui.commands.queries import external_status
from bundletui.model.apps import Node
from bundletui.model.clock import Clock
from bundletui.model.status import NodeStatus
from bundletui.spec.el import (
    BASIC_CONSTANTS,
    ELContext,
    basic_functions,
    property_variables,
)
from bundletui.spec.el.wf import WF_CONSTANTS, fs_functions, wf_functions
from bundletui.store.rows import NodeRow, WorkflowRow


class WorkflowState:
    """:class:`bundletui.spec.el.wf.WorkflowELState` over a workflow's rows, read lazily: most
    expressions never look at another node, and reading them all per launch made a workflow
    O(n²) in its number of nodes."""

    def __init__(
        self,
        wf: WorkflowRow,
        conf: Mapping[str, str],
        lookup: Callable[[str], NodeRow | None],
        failed: Callable[[], list[NodeRow]],
        current: str | None,
        spec_of: Callable[[str], Node | None],
    ) -> None:
        self._wf = wf
        self._conf = conf
        self._lookup = lookup
        self._failed = failed
        self._current = current
        self._spec_of = spec_of

    @property
    def id(self) -> str:
        return self._wf.id

    @property
    def name(self) -> str:
        return self._wf.app_name

    @property
    def app_path(self) -> str:
        return app_dir(self._wf.app_path)

    @property
    def user(self) -> str:
        return self._wf.user

    @property
    def group(self) -> str:
        return self._wf.grp or ""

    @property
    def run(self) -> int:
        return self._wf.run

    @property
    def current_action_id(self) -> str | None:
        return self._current

    def conf(self, name: str) -> str | None:
        return self._conf.get(name)

    def transition(self, node: str) -> str | None:
        n = self._lookup(node)
        return n.transition if n is not None else None

    def last_error_node(self) -> str | None:
        """The node that failed last. Times are milliseconds (and a simulated clock's stand
        still within a tick), so two failures in a row can end together: then the one whose
        error transition led to the other came first (QA: a kill message blamed ``s1`` when
        ``s1`` failed into ``s2``, which failed too)."""
        failed = [n for n in self._failed() if n.status == NodeStatus.FAILED and n.ended]
        if not failed:
            return None
        last = max((n.ended or 0, n.rev) for n in failed)
        tied = [n for n in failed if (n.ended or 0, n.rev) == last]
        names = {n.name for n in tied}
        after = [n for n in tied if n.transition not in names] or tied
        return max(after, key=lambda n: (n.started or 0, n.name)).name

    def error_code(self, node: str) -> str | None:
        n = self._lookup(node)
        return n.error_code if n is not None else None

    def error_message(self, node: str) -> str | None:
        n = self._lookup(node)
        return n.error_message if n is not None else None

    def action_data(self, node: str) -> Mapping[str, str] | None:
        n = self._lookup(node)
        return n.data_dict() if n is not None and n.data else None

    def action_external_id(self, node: str) -> str | None:
        n = self._lookup(node)
        if n is None:
            return None
        return n.external_id or (str(n.pid) if n.pid else None)

    def action_tracker_uri(self, node: str) -> str | None:
        return None

    def action_external_status(self, node: str) -> str | None:
        """What ``oozie job -info`` shows for it (``FAILED/KILLED`` for a failed program)."""
        n = self._lookup(node)
        if n is None or n.attempt == 0:  # not started: it has none yet (Oozie's is null)
            return None
        return external_status(n, self._spec_of(node))


def app_dir(app_path: str) -> str:
    """The directory of a workflow's definition: ``app_path`` names the file (of any name,
    README) or, as written in older stores, its directory."""
    p = Path(app_path[7:] if app_path.startswith("file://") else app_path)
    return str(p.parent if p.suffix == ".xml" or p.is_file() else p)


def workflow_context(
    clock: Clock,
    wf: WorkflowRow,
    conf: Mapping[str, str],
    lookup: Callable[[str], NodeRow | None],
    failed: Callable[[], list[NodeRow]],
    current: str | None = None,
    spec_of: Callable[[str], Node | None] = lambda _name: None,
) -> ELContext:
    state = WorkflowState(wf, conf, lookup, failed, current, spec_of)
    return ELContext(
        variables={**BASIC_CONSTANTS, **WF_CONSTANTS, **property_variables(conf)},
        functions=_FunctionsOnDemand(
            lambda: {**basic_functions(clock.now), **wf_functions(state), **fs_functions()}
        ),
    )


class _FunctionsOnDemand(Mapping[str, Callable[..., Any]]):
    """The function table, built at the first function an expression calls: most of a
    workflow's expressions name only its properties (``${out}``), and building the ``wf:``
    table per workflow was a measurable share of a launch."""

    __slots__ = ("_build", "_table")

    def __init__(self, build: Callable[[], dict[str, Callable[..., Any]]]) -> None:
        self._build: Callable[[], dict[str, Callable[..., Any]]] | None = build
        self._table: dict[str, Callable[..., Any]] = {}

    def _get(self) -> dict[str, Callable[..., Any]]:
        if self._build is not None:
            self._table, self._build = self._build(), None
        return self._table

    def __getitem__(self, name: str) -> Callable[..., Any]:
        return self._get()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

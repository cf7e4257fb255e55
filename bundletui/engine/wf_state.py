"""What the workflow runner's parts share: its state, its caches, and what one asks of another.

:class:`~bundletui.engine.workflows.WorkflowRunner` is put together from mixins, one a concern
(wf_advance, wf_launch, wf_exits, wf_signals, wf_recovery), each a subclass of
:class:`RunnerState`; what one asks of another is declared here, for the type checker only.
Mixins rather than functions taking the runner: a node's launch and advance stay plain method
calls, with no wrapper in the way.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bundletui.commands import workflows as wfcmd
from bundletui.commands.nodes import app_of
from bundletui.commands.workflows import attempt_paths
from bundletui.engine import processes
from bundletui.engine.wf_resolve import WorkflowElEnv
from bundletui.errors import BundletuiError
from bundletui.model.apps import Node, WorkflowApp
from bundletui.model.status import NodeStatus
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow

if TYPE_CHECKING:
    from bundletui.engine.service import Engine


@dataclass
class SpawnPlan:
    node_id: str
    argv: list[str]
    env: dict[str, str]
    cwd: str
    stdout: str
    stderr: str
    exit_path: str
    # the action's configuration file (OOZIE_ACTION_CONF_XML): written before the job starts,
    # and a job whose file cannot be written (a full disk) is not started without it
    conf_path: Path | None = None
    conf: dict[str, str] = field(default_factory=dict)
    # the action's <file>s and <archive>s and the directory relative ones are in: linked
    # and unpacked just before the start, after the launch's commit (a big archive held the
    # store's write lock while it unpacked: QA, 20 s for a submit beside it)
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()
    app_dir: str = ""


class ReadyQueue:
    """READY node ids by priority: highest first, first-in first-out within a priority, so a
    launch pass never sorts the whole queue."""

    def __init__(self) -> None:
        self._by_priority: dict[int, dict[str, None]] = {}
        self._priority: dict[str, int] = {}

    def add(self, node_id: str, priority: int) -> None:
        if node_id in self._priority:
            return
        self._priority[node_id] = priority
        self._by_priority.setdefault(priority, {})[node_id] = None

    def discard(self, node_id: str) -> None:
        priority = self._priority.pop(node_id, None)
        if priority is not None:
            bucket = self._by_priority[priority]
            bucket.pop(node_id, None)
            if not bucket:
                del self._by_priority[priority]

    def ordered(self) -> list[str]:
        return [n for p in sorted(self._by_priority, reverse=True) for n in self._by_priority[p]]

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._priority

    def __len__(self) -> int:
        return len(self._priority)


class RunnerState:
    """Keeps, per workflow id, its decoded definition (immutable per id) and conf (per run: a
    rerun may lay new properties over it), so a node's launch or completion costs what that
    node touches, not the size of its workflow."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dirty: dict[str, None] = {}  # workflows for a full pass, in order
        self.finished: dict[str, dict[str, NodeStatus]] = {}  # workflow -> nodes that just ended
        self.launchable = ReadyQueue()
        # (node id, exit, failure to start, pid of the process that ended: None if none ran)
        self.completions: list[
            tuple[str, processes.ExitStatus | None, BundletuiError | None, int | None]
        ] = []
        # SIGTERMed groups: pid -> (start ticks, their kill_watch rows)
        self._hard_kills: dict[int, tuple[int | None, list[jobs.KillWatch], float]] = {}
        self._seen_to: list[jobs.KillWatch] = []  # kill_watch rows to delete at the next tick
        # groups of jobs that ended by themselves: pgid -> (workflow id, node), looked at once
        # KILL_GRACE after the wrapper's SIGTERM to them, for children that ignored it
        self._leftovers: dict[int, set[tuple[str, str]]] = {}
        self.running: dict[str, processes.Launched] = {}  # node id -> process
        # workflows frozen by ``suspend --freeze``: their jobs cannot end before a resume, so
        # an engine asked to stop when idle (or at --until) does not wait for them
        self.frozen: set[str] = set()
        # jobs another host's engine started, found at recovery: node id -> (that host, how
        # long its beat had stayed unchanged when it was judged gone; None: no beat to judge)
        self.foreign: dict[str, tuple[str, float | None]] = {}
        # those of them still running there, watched by their beat: node id -> exit path;
        # to watch once the recovery commits: (node id, exit path, beat interval); and what
        # the watches reported: (node id, exit path, exit record, seconds without a beat)
        self.remote: dict[str, str] = {}
        self._to_watch: list[tuple[str, str, float]] = []
        self.remote_done: list[tuple[str, str, processes.ExitStatus | None, float]] = []
        self.spawns: list[SpawnPlan] = []
        self.watcher: processes.ProcessWatcher | None = None
        self.adopt: list[tuple[str, int, int, str]] = []
        self._apps: OrderedDict[tuple[str, int], WorkflowApp] = OrderedDict()
        self._confs: OrderedDict[tuple[str, int], dict[str, str]] = OrderedDict()
        # Workflows (with their parents) whose fs node ran in this tick's transaction: their
        # next fs or sub-workflow node waits for the commit, as a crash before it undoes the
        # rows but not the files, and a successor may consume what its predecessor made.
        self._fs_applied: set[str] = set()

    # ------------------------------------------------------------------ caches

    def app(self, tx: Tx, wf: WorkflowRow) -> WorkflowApp:
        """The decoded definition of a workflow's run (one object per definition text; a rerun
        may have read its file again)."""
        app = self._apps.get((wf.id, wf.run))
        if app is None:
            app = app_of(jobs.workflow_app_json(tx.conn, wf.id))
            self._apps[(wf.id, wf.run)] = app
            if len(self._apps) > 4096:
                self._apps.popitem(last=False)
        return app

    def conf(self, tx: Tx, wf: WorkflowRow) -> dict[str, str]:
        conf = self._confs.get((wf.id, wf.run))
        if conf is None:
            conf = dict(json.loads(jobs.workflow_conf_json(tx.conn, wf.id)))
            self._confs[(wf.id, wf.run)] = conf
            if len(self._confs) > 4096:
                self._confs.popitem(last=False)
        return conf

    def _env(self, tx: Tx, wf: WorkflowRow, current: str | None = None) -> WorkflowElEnv:
        return WorkflowElEnv(self, tx, wf, current)

    def _workers(self) -> int:
        """Shell jobs that take a ``--max-workers`` slot: running here, on another host (found
        at a takeover), or about to start."""
        return len(self.running) + len(self.remote) + len(self.spawns)

    def _attempt_exit_path(self, node: NodeRow) -> str:
        log_dir = wfcmd.log_dir(self.engine.db, node.wf_id)
        return attempt_paths(log_dir, node.name, node.run, node.attempt)[2]

    if TYPE_CHECKING:
        # what the mixins ask of one another, by the module that provides it

        # wf_advance
        def _fail_on_error(
            self,
            tx: Tx,
            wf: WorkflowRow,
            app: WorkflowApp,
            states: dict[str, tuple[str, str | None]],
            exc: BundletuiError,
            at: str | None = None,
        ) -> None: ...

        # wf_launch
        def _launch_some(self, tx: Tx, budget: int, deadline: float) -> int: ...
        def _spawn_all(self) -> None: ...
        def _queue_ready(self, tx: Tx, node: NodeRow, priority: int | None = None) -> None: ...
        def _mark_launchable(self, tx: Tx, node: NodeRow, priority: int | None = None) -> None: ...

        # wf_exits
        def _on_exit(self, node_id: str) -> processes.ExitCallback: ...
        def _complete(
            self,
            tx: Tx,
            nid: str,
            status: processes.ExitStatus | None,
            failure: BundletuiError | None,
            pid: int | None = None,
        ) -> None: ...
        def _failed_attempt(
            self,
            tx: Tx,
            wf: WorkflowRow,
            spec: Node,
            node: NodeRow,
            exit_code: int | None,
            code: str,
            message: str,
            also: dict[str, Any] | None = None,
        ) -> None: ...

        # wf_signals
        def _kill_node(self, tx: Tx, node: NodeRow) -> None: ...

        # wf_recovery
        def _remote_ended(
            self,
            tx: Tx,
            nid: str,
            exit_path: str,
            status: processes.ExitStatus | None,
            silent: float,
        ) -> None: ...

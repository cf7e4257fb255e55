"""The workflow runner: advance graphs, launch nodes, take completions, recover after a crash.

Both workflow forms run here on one persistence model (wf_jobs + wf_nodes). A shell node is
written RUNNING in the tick's transaction and its process is started after that commits; its pid
and start time are recorded right after. A restart reconciles every RUNNING node: alive ->
adopted; exited -> its exit file decides; never started -> READY again (same attempt, so the
exit-file guard makes a double start impossible); unknowable -> failed with EB0503. In-process
fs nodes run inside the tick's transaction: a crash rolls them back to READY and they are applied
again (their operations are idempotent, docs/decisions/0004-in-process-fs-nodes.md).
"""

from __future__ import annotations

import dataclasses
import functools
import glob
import json
import logging
import os
import re
import signal
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bundletui._host import host_label, same_host
from bundletui.commands import workflows as wfcmd
from bundletui.commands.nodes import app_of, node_finished, node_retry
from bundletui.commands.propagate import workflow_finished
from bundletui.engine import action_conf, processes
from bundletui.engine.failures import launch_error
from bundletui.engine.fs_ops import run_fs_action, run_fs_ops
from bundletui.engine.localize import localize
from bundletui.engine.wfel import app_dir
from bundletui.errors import BundletuiError, EngineError
from bundletui.model.apps import (
    Conf,
    FsAction,
    FsOp,
    Node,
    NodeType,
    RetryPolicy,
    ShellAction,
    SubWorkflowAction,
    WorkflowApp,
    WorkflowForm,
    overlay,
)
from bundletui.model.clock import LATEST_MS
from bundletui.model.ids import IdKind, kind_of, node_id
from bundletui.model.status import NodeStatus, WorkflowStatus
from bundletui.model.transitions import Event, Machine, decide
from bundletui.model.wfgraph import (
    NodeState,
    Step,
    advance,
    advance_dag_after,
    index_of,
    suspend_point,
)
from bundletui.spec.config import parse_properties
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow, replace_row

if TYPE_CHECKING:
    from bundletui.engine.service import Engine

log = logging.getLogger("bundletui.engine.workflows")

# what Java's String.trim() removes: every character up to the space
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))
N = NodeStatus
W = WorkflowStatus

CAPTURE_LIMIT = 2048  # oozie.action.max.output.data
UNKNOWN_EXIT = "EB0503"
MAX_LAUNCHES_PER_TICK = 2000
SHELL_MAIN = "org.apache.oozie.action.hadoop.ShellMain"
KILL_GRACE = 5.0  # seconds between SIGTERM and SIGKILL when a node is killed
MAX_SUBWORKFLOW_DEPTH = 50  # Oozie's oozie.action.subworkflow.max.depth


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


def attempt_paths(log_dir: Path, name: str, run: int, attempt: int) -> tuple[str, str, str]:
    base = log_dir / f"{name}.{run}.{attempt}"
    return f"{base}.out", f"{base}.err", f"{base}.exit"


class WorkflowRunner:
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

    # ------------------------------------------------------------------ wiring

    def install(self) -> None:
        e = self.engine
        e.pumps.append(self.pump)
        e.busy_checks.append(self.busy)
        e.pending_checks.append(self.pending)
        e.recoveries.append(self.recover)
        e.startup.append(self.start_watcher)
        e.shutdown_hooks.append(self.close)
        e.on_outbox("wf.advance", lambda tx, target, args: self.mark_dirty(target))
        e.on_outbox(
            "wf.signal", lambda tx, target, args: self.signal(tx, target, str(args.get("what")))
        )
        e.on_due("node.due", self.on_node_due)

    def pending(self) -> bool:
        """Work for the next tick (running processes alone need none until they end)."""
        room = self._workers() < self.engine.config.max_workers
        return bool(
            self.completions
            or self.remote_done
            or self._seen_to
            or self.dirty
            or self.finished
            or self.spawns
            or (len(self.launchable) and room)
        )

    def _workers(self) -> int:
        """Shell jobs that take a ``--max-workers`` slot: running here, on another host (found
        at a takeover), or about to start."""
        return len(self.running) + len(self.remote) + len(self.spawns)

    def busy(self) -> bool:
        return bool(
            self.running
            or self.remote
            or len(self.launchable)
            or self.dirty
            or self.finished
            or self.completions
            or self.spawns
        )

    def start_watcher(self) -> None:
        processes.raise_fd_limit()  # a pidfd per running job, and 1024 is a common default
        self.watcher = processes.ProcessWatcher()

    def close(self) -> None:
        # the engine stops within a kill's grace time: the groups that ignored SIGTERM get
        # SIGKILL now, rather than live on after their node was recorded KILLED
        for pid in list(self._hard_kills):
            self._kill_hard(pid)
        self._reap_leftovers()
        if self.watcher is not None:
            self.watcher.close()

    def mark_dirty(self, wf_id: str) -> None:
        self.dirty[wf_id] = None

    def node_done(self, wf_id: str, node: str, status: str) -> None:
        self.finished.setdefault(wf_id, {})[node] = NodeStatus(status)

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

    def _env(self, tx: Tx, wf: WorkflowRow, current: str | None = None) -> _ElEnv:
        return _ElEnv(self, tx, wf, current)

    # ------------------------------------------------------------------ tick

    def pump(self, tx: Tx) -> bool:
        did = False
        self._fs_applied.clear()  # the last tick's transaction is committed
        if self._seen_to:
            # forgotten once deleted for good: a tick that does not commit deletes them again
            done = len(self._seen_to)
            jobs.unwatch_kills(tx, self._seen_to[:done])
            self.engine.after_commit.append(functools.partial(self._seen_to_done, done))
        if self.remote_done:
            did = True
            done_remote, self.remote_done = self.remote_done, []
            for nid, exit_path, status, silent in done_remote:
                self._remote_ended(tx, nid, exit_path, status, silent)
        budget = MAX_LAUNCHES_PER_TICK
        deadline = self.engine.tick_deadline
        while budget > 0 and time.monotonic() < deadline:
            progressed = False
            # each batch stops at the deadline (after one item at least): the rest waits for
            # the next tick, so a herd of new workflows cannot crowd out the coordinators' slice
            if self.completions:
                progressed = True
                batch, self.completions = self.completions, []
                for i, (node_id, status, failure, pid) in enumerate(batch):
                    if i and time.monotonic() >= deadline:
                        self.completions[:0] = batch[i:]
                        break
                    self._guard(
                        tx,
                        f"completion of {node_id}",
                        self._complete,
                        tx,
                        node_id,
                        status,
                        failure,
                        pid,
                    )
            if self.dirty and time.monotonic() < deadline:
                progressed = True
                for i, wf_id in enumerate(list(self.dirty)):
                    if i and time.monotonic() >= deadline:
                        break
                    del self.dirty[wf_id]
                    self.finished.pop(wf_id, None)  # the full pass covers them
                    self._guard(tx, f"advance {wf_id}", self._advance, tx, wf_id)
            if self.finished and time.monotonic() < deadline:
                progressed = True
                for i, wf_id in enumerate(list(self.finished)):
                    if i and time.monotonic() >= deadline:
                        break
                    nodes = self.finished.pop(wf_id, None)
                    if nodes is not None:
                        self._guard(tx, f"advance {wf_id}", self._advance_after, tx, wf_id, nodes)
            if len(self.launchable) and self._workers() < self.engine.config.max_workers:
                launched = self._launch_some(tx, budget, deadline)
                budget -= max(launched, 1)
                progressed = progressed or launched > 0
            if not progressed:
                break
            did = True
        if self.spawns:
            self.engine.after_commit.append(self._spawn_all)
        return did

    def _guard(self, tx: Tx, what: str, fn: Any, *args: Any) -> None:
        self.engine._guarded(tx, what, fn, *args)

    # ------------------------------------------------------------------ advance

    def _advance_after(self, tx: Tx, wf_id: str, nodes: dict[str, NodeStatus]) -> None:
        """After some nodes ended: a DAG looks only at what they affect; Oozie graphs (small,
        with decisions and joins) take the full pass."""
        wf = jobs.workflow_head(tx.conn, wf_id)
        if wf is None or wf.status != W.RUNNING:
            return
        app = self.app(tx, wf)
        if app.form is not WorkflowForm.DAG:
            self._advance(tx, wf_id)
            return

        seen: dict[str, tuple[str, str | None]] = {}  # the statuses the step was decided on

        def lookup(names: set[str]) -> dict[str, NodeStatus]:
            seen.update(jobs.node_states(tx.conn, wf_id, names))
            return {k: NodeStatus(seen[k][0]) for k in names if k in seen}

        step = advance_dag_after(app, nodes, lookup)
        self._apply(tx, wf, app, step, seen)
        counts = jobs.node_counts(tx.conn, wf_id)
        if not any(counts.get(s) for s in (N.WAITING, N.READY, N.RUNNING)):
            bad = any(counts.get(s) for s in (N.FAILED, N.DEPENDENT_FAILED, N.KILLED))
            self._finish(tx, wf, app, W.FAILED if bad else W.SUCCEEDED, None)

    def _advance(self, tx: Tx, wf_id: str) -> None:
        """The full pass: every node's status, the graph semantics of model/wfgraph."""
        wf = jobs.workflow_head(tx.conn, wf_id)
        if wf is None or wf.status != W.RUNNING:
            return
        app = self.app(tx, wf)
        states = jobs.node_states(tx.conn, wf_id)
        for name, (status, _t) in states.items():
            nid = node_id(wf_id, name)
            # READY nodes dropped from the queue while the workflow was suspended (or
            # waiting out a retry then) are queued again: advance() only readies WAITING ones.
            if status == N.READY and nid not in self.launchable:
                node = jobs.get(tx.conn, NodeRow, nid)
                if node is not None:
                    self._queue_ready(tx, node, wf.priority)
        graph = {name: NodeState(NodeStatus(st), tr) for name, (st, tr) in states.items()}
        env = self._env(tx, wf)
        asked: list[str] = []  # the decision cases evaluated, to name the one that failed

        def predicate(text: str) -> bool:
            asked.append(text)
            return env.predicate(text)

        # an EL error in a decision's predicate or a kill node's message: the job FAILS
        # (oozie.md §5.4), rather than waiting at that node for ever
        try:
            step = advance(app, graph, predicate)
        except BundletuiError as exc:
            at = _decision_of(app, states, asked[-1]) if asked else None
            self._fail_on_error(tx, wf, app, states, exc, at)
            return
        try:
            message = env.render(step.kill_message) if step.kill_message is not None else None
        except BundletuiError as exc:
            self._fail_on_error(tx, wf, app, states, exc)
            return
        self._apply(tx, wf, app, step, states)
        if step.outcome is None:
            return
        for name in step.kill_running:
            node = jobs.get(tx.conn, NodeRow, node_id(wf_id, name))
            if node is not None:
                self._kill_node(tx, node)
        stalled = ("EB0508", step.stall_reason) if step.stall_reason else None
        self._finish(tx, wf, app, step.outcome, message, stalled=stalled)

    def _fail_on_error(
        self,
        tx: Tx,
        wf: WorkflowRow,
        app: WorkflowApp,
        states: dict[str, tuple[str, str | None]],
        exc: BundletuiError,
        at: str | None = None,
    ) -> None:
        """The workflow cannot go on: its running nodes are killed, the node whose expression
        failed (``at``: a decision's case, an action's body) is FAILED with the error, the
        nodes not reached are SKIPPED, as in any ended workflow, and it ends FAILED with the
        error as its own."""
        for name, (status, _t) in states.items():
            nid = node_id(wf.id, name)
            if status in (N.RUNNING, N.READY) and name != at:
                node = jobs.get(tx.conn, NodeRow, nid)
                # a READY node waiting out its retry interval has run: killed and ended, as
                # the kill command does; one that never ran is skipped below
                if node is not None and (status == N.RUNNING or node.attempt > 0):
                    self._kill_node(tx, node)
                    continue
            if name == at:
                jobs.update(
                    tx,
                    NodeRow,
                    nid,
                    status=decide(Machine.NODE, status, Event.FAIL, nid).to,
                    started=tx.now_ms,
                    ended=tx.now_ms,
                    error_code=exc.code,
                    error_message=exc.located,
                )
            elif status in (N.WAITING, N.READY):
                t = decide(Machine.NODE, status, Event.SKIP, nid)
                jobs.update(tx, NodeRow, nid, status=t.to)
                self.launchable.discard(nid)
        self._finish(tx, wf, app, W.FAILED, None, error=(exc.code, exc.located))

    def _apply(
        self,
        tx: Tx,
        wf: WorkflowRow,
        app: WorkflowApp,
        step: Step,
        states: dict[str, tuple[str, str | None]] | None = None,
    ) -> None:
        def move(name: str, event: Event) -> str:
            """The node's new status, from the table (a node not in ``states`` is WAITING)."""
            current = states[name][0] if states is not None and name in states else N.WAITING
            return decide(Machine.NODE, current, event, node_id(wf.id, name)).to

        for name in step.ready:
            nid = node_id(wf.id, name)
            jobs.update(tx, NodeRow, nid, status=move(name, Event.DEPS_MET))
            self.launchable.add(nid, wf.priority)
        for name in step.dependent_failed:
            nid = node_id(wf.id, name)
            bad = step.failed_dependency.get(name)
            jobs.update(
                tx,
                NodeRow,
                nid,
                status=move(name, Event.DEP_FAILED),
                ended=tx.now_ms,
                # which one, as JobControl's "depending job … failed" (QA (p): unsaid)
                error_message=f"dependency [{bad}] did not succeed" if bad else None,
            )
            self.launchable.discard(nid)
        for name, to in step.passed:
            jobs.update(
                tx,
                NodeRow,
                node_id(wf.id, name),
                status=move(name, Event.PASS),
                transition=to,
                started=tx.now_ms,
                ended=tx.now_ms,
            )
        for name in step.skipped:
            nid = node_id(wf.id, name)
            jobs.update(tx, NodeRow, nid, status=move(name, Event.SKIP))
            self.launchable.discard(nid)
        if step.ready:
            self._suspend_at(tx, wf, step.ready)

    def _suspend_at(self, tx: Tx, wf: WorkflowRow, reached: Iterable[str]) -> None:
        """``oozie.suspend.on.nodes``: the job is suspended before a node it names starts (the
        node stays READY; a resume launches it without asking again, as Oozie's does)."""
        point = suspend_point(self.conf(tx, wf), reached)
        if point is not None:
            log.info("%s suspended before node [%s] (oozie.suspend.on.nodes)", wf.id, point)
            wfcmd.suspend_tx(tx, self.engine.effects, wf)

    def _finish(
        self,
        tx: Tx,
        wf: WorkflowRow,
        app: WorkflowApp,
        outcome: WorkflowStatus,
        kill_message: str | None,
        error: tuple[str, str] | None = None,
        *,
        stalled: tuple[str, str] | None = None,
    ) -> None:
        """``error``: why a FAILED workflow failed, when no node of it did; ``stalled``: why
        its walk stopped, said when no node failed either."""
        event = {W.SUCCEEDED: Event.SUCCEED, W.FAILED: Event.FAIL, W.KILLED: Event.KILL}[outcome]
        t = decide(Machine.WORKFLOW, wf.status, event, wf.id)
        fields: dict[str, Any] = {"status": t.to, "end_time": tx.now_ms}
        if outcome is W.KILLED and kill_message is not None:
            fields["error_message"] = kill_message
            fields["error_code"] = "E0729"  # Oozie: kill node message
        if outcome is W.FAILED and error is not None:
            fields["error_code"], fields["error_message"] = error
        elif outcome is W.FAILED:
            first = jobs.first_failed_node(tx.conn, wf.id)
            if first is not None:
                fields["error_code"] = first.error_code
                fields["error_message"] = f"node {first.name}: {first.error_message}"
            elif stalled is not None:
                fields["error_code"], fields["error_message"] = stalled
        jobs.update(tx, WorkflowRow, wf.id, **fields)
        # the row as written (no read-back; a head row: propagation needs no definition)
        workflow_finished(tx, self.engine.effects, jobs.updated(tx, wf, **fields))

    # ------------------------------------------------------------------ launch

    def _launch_some(self, tx: Tx, budget: int, deadline: float) -> int:
        count = 0
        per_wf: dict[str, int] = {}
        for nid in self.launchable.ordered():
            if count >= budget or time.monotonic() >= deadline:
                break
            if self._workers() >= self.engine.config.max_workers:
                break
            node = jobs.get(tx.conn, NodeRow, nid)
            if node is None or node.status != N.READY:
                self.launchable.discard(nid)
                continue
            if node.due_time is not None and node.due_time > tx.now_ms:
                self.launchable.discard(nid)
                self.engine.heap.push(node.due_time, "node.due", nid)
                continue
            wf = jobs.workflow_head(tx.conn, node.wf_id)
            if wf is None or wf.status != W.RUNNING:
                self.launchable.discard(nid)  # resume re-adds it through advance
                continue
            app = self.app(tx, wf)
            if wf.id in self._fs_applied and isinstance(
                index_of(app).by_name[node.name].action, FsAction | SubWorkflowAction
            ):
                continue  # after this tick's commit (kept launchable)
            if app.max_parallel > 0:
                if wf.id not in per_wf:
                    per_wf[wf.id] = jobs.node_counts(tx.conn, wf.id).get(N.RUNNING, 0)
                if per_wf[wf.id] >= app.max_parallel:
                    continue
                per_wf[wf.id] += 1
            self.launchable.discard(nid)
            self.engine._guarded(tx, f"launch {nid}", self._launch_or_fail, tx, wf, app, node)
            count += 1
        return count

    def _launch_or_fail(self, tx: Tx, wf: WorkflowRow, app: WorkflowApp, node: NodeRow) -> None:
        """A launch that throws is undone and becomes the attempt's failure (retried if
        ``retry-max`` allows, else the node's error transition): the node has left the
        launchable queue, so READY it would wait for the next engine start."""
        try:
            with self.engine.savepoint(tx, "launch"):
                self._launch(tx, wf, app, node)
        except sqlite3.Error:
            raise
        except Exception as exc:
            code, message = launch_error(exc, None, log, f"launch of node {node.id}")
            t = decide(Machine.NODE, node.status, Event.LAUNCH, node.id)
            started = {"attempt": node.attempt + 1, "started": tx.now_ms, "due_time": None}
            jobs.update(tx, NodeRow, node.id, status=t.to, **started)
            running = replace_row(node, status=t.to, **started)
            spec = index_of(app).by_name[node.name]
            self._failed_attempt(tx, wf, spec, running, None, code, message)

    def _launch(self, tx: Tx, wf: WorkflowRow, app: WorkflowApp, node: NodeRow) -> None:
        spec = index_of(app).by_name[node.name]
        t = decide(Machine.NODE, node.status, Event.LAUNCH, node.id)
        attempt = node.attempt + 1
        env = self._env(tx, wf, current=node.id)
        try:
            action = env.resolve_action(spec, app.global_conf, app.global_job_xml)
        except BundletuiError as exc:
            jobs.update(tx, NodeRow, node.id, status=t.to, attempt=attempt, started=tx.now_ms)
            running = replace_row(node, status=t.to, attempt=attempt)
            if exc.code == "E1004" and app.form is WorkflowForm.OOZIE:
                # Oozie's ActionStartXCommand: an ELException fails the job (failJob), it
                # is no failure of the action's for its <error> path to handle
                self._fail_on_error(tx, wf, app, jobs.node_states(tx.conn, wf.id), exc, node.name)
                return
            if exc.code in action_conf.RETRIED_AT_START:
                self._failed_attempt(tx, wf, spec, running, None, exc.code, exc.located)
                return
            node_finished(
                tx,
                self.engine.effects,
                wf,
                running,
                ok=False,
                spec=spec,
                error_code=exc.code,
                error_message=exc.located,
            )
            return
        started = {"attempt": attempt, "started": tx.now_ms, "due_time": None}
        running = replace_row(node, status=t.to, **started)
        if isinstance(action, FsAction):
            # In-process and inside this transaction: RUNNING and its end are committed
            # together, so a success writes the node once, in its final state.
            self._fs_applied_in(tx, wf)
            try:
                if len(action.ops) > 1:
                    # A journal left by an interrupted attempt means it is being re-applied:
                    # it resumes at the interrupted operation (a single op is idempotent).
                    journal = Path(self._fs_journal(wf, running))
                    journal.parent.mkdir(parents=True, exist_ok=True)
                    run_fs_action(action, recovery=journal.exists(), journal=journal)
                else:
                    run_fs_action(action, recovery=True)
            except BundletuiError as exc:
                jobs.update(tx, NodeRow, node.id, status=t.to, **started)
                self._failed_attempt(tx, wf, spec, running, None, exc.code, exc.message)
                return
            node_finished(tx, self.engine.effects, wf, running, ok=True, spec=spec, also=started)
            return
        if node.error_code or node.error_message or node.exit_code is not None:
            # a retry: the earlier attempt's error is not this one's (Oozie's ActionStart
            # clears it too); info showed it beside the RUNNING attempt
            cleared = {"error_code": None, "error_message": None, "exit_code": None}
            started |= cleared
            running = replace_row(running, **cleared)
        jobs.update(tx, NodeRow, node.id, status=t.to, **started)
        if isinstance(action, ShellAction):
            try:
                # Oozie's launcher runs <prepare> (delete, then mkdir, as written) before the
                # program, at every attempt; each operation is idempotent, so a crash re-runs it
                run_fs_ops(action.prepare, recovery=True)
                program = None
                if action.files or action.archives:
                    program = localize(
                        action.files,
                        action.archives,
                        app_dir(wf.app_path),
                        self._cwd(wf),
                        action.exec,
                    )
            except BundletuiError as exc:
                self._failed_attempt(tx, wf, spec, running, None, exc.code, exc.message)
                return
            if program is not None:
                action = dataclasses.replace(action, exec=program)
            self._plan_shell(tx, wf, running, action)
        elif isinstance(action, SubWorkflowAction):
            self._start_sub_workflow(tx, wf, running, action, spec)

    def _fs_applied_in(self, tx: Tx, wf: WorkflowRow | None) -> None:
        """Marks ``wf`` and its ancestors: a parent goes on in this tick when its child ends."""
        while wf is not None and wf.id not in self._fs_applied:
            self._fs_applied.add(wf.id)
            wf = jobs.workflow_head(tx.conn, wf.parent_id) if wf.parent_id else None

    def _fs_journal(self, wf: WorkflowRow, node: NodeRow) -> str:
        exit_path = self._attempt_exit_path(node)
        return exit_path.replace(".exit", ".fsjournal")

    def _cwd(self, wf: WorkflowRow) -> Path:
        return Path(wf.work_dir or wfcmd.work_dir(self.engine.db, wf.id))

    def _plan_shell(self, tx: Tx, wf: WorkflowRow, node: NodeRow, action: ShellAction) -> None:
        logs = wfcmd.log_dir(self.engine.db, wf.id)
        cwd = self._cwd(wf)
        out, err, exit_path = attempt_paths(logs, node.name, node.run, node.attempt)
        environ = dict(os.environ)
        environ.pop("BUNDLETUI_API_TOKEN", None)  # the engine's secret, not the jobs'
        for pair in action.env_vars:
            name, _, value = pair.partition("=")
            environ[name] = _expand_env(value, environ)
        environ.update(
            {
                "BUNDLETUI_WORKFLOW_ID": wf.id,
                "BUNDLETUI_NODE": node.name,
                "BUNDLETUI_ATTEMPT": str(node.attempt),
                "BUNDLETUI_STORE": str(self.engine.db.home),  # whose job, for a later kill
            }
        )
        # always set, as Oozie's launcher does: a script may read it whether or not the
        # action has properties
        conf_path = cwd / f".{node.name}.{node.run}.{node.attempt}.conf.xml"
        environ["OOZIE_ACTION_CONF_XML"] = str(conf_path)
        argv = [action.exec, *action.arguments]
        self.spawns.append(
            SpawnPlan(
                node.id,
                argv,
                environ,
                str(cwd),
                out,
                err,
                exit_path,
                conf_path,
                dict(action.configuration),
            )
        )

    def _start_sub_workflow(
        self, tx: Tx, wf: WorkflowRow, node: NodeRow, action: SubWorkflowAction, spec: Node
    ) -> None:
        external = f"{node.id}@{node.run}"
        existing = jobs.workflow_by_external_id(tx.conn, external)

        def fail(code: str, message: str) -> None:
            effects = self.engine.effects
            node_finished(
                tx, effects, wf, node, ok=False, spec=spec, error_code=code, error_message=message
            )

        if existing is None and _depth(tx, wf) >= MAX_SUBWORKFLOW_DEPTH:
            fail(
                "EB0506",
                f"sub-workflow depth cannot exceed {MAX_SUBWORKFLOW_DEPTH}"
                f" (oozie.action.subworkflow.max.depth): does [{action.app_path}] start itself?",
            )
            return
        if existing is None:
            conf = dict(self.conf(tx, wf)) if action.propagate_configuration else {}
            conf.update(dict(action.configuration))
            conf.setdefault("user.name", wf.user)
            try:
                # a relative app-path is the parent's neighbour, wherever the engine runs
                sub = wfcmd.load_subworkflow(
                    action.app_path,
                    conf,
                    user=wf.user,
                    external_id=external,
                    base_dir=app_dir(wf.app_path),
                    clock=self.engine.clock,
                )
            except BundletuiError as exc:
                fail(exc.code, exc.located)  # the child's file and line: its own definition
                return
            sub = dataclasses.replace(sub, priority=wf.priority)  # a child runs at its parent's
            parent_global = (
                self.app(tx, wf).global_conf
                if action.propagate_configuration and sub.app.form is WorkflowForm.OOZIE
                else ()
            )
            if parent_global:
                # as Oozie (OOZIE-2030): with <propagate-configuration/> the child inherits
                # the parent's <global> configuration under its own <global>
                child = sub.app
                merged = overlay(parent_global, child.global_conf)
                sub = dataclasses.replace(
                    sub, app=dataclasses.replace(child, global_conf=merged), app_json=None
                )
            child_id = wfcmd.create_workflow_tx(
                tx, self.engine.db, self.engine.effects, sub, start=True, parent_id=wf.id
            )
        else:
            child_id = existing.id
        jobs.update(tx, NodeRow, node.id, external_id=child_id)

    def _spawn_all(self) -> None:
        plans, self.spawns = self.spawns, []
        if not plans:
            return
        store = self.engine.store
        assert store is not None and self.watcher is not None
        started: list[tuple[SpawnPlan, processes.Launched | None, BundletuiError | None]] = []
        launched: processes.Launched | None
        for plan in plans:
            try:
                Path(plan.cwd).mkdir(parents=True, exist_ok=True)
                Path(plan.exit_path).parent.mkdir(parents=True, exist_ok=True)
                if plan.conf_path is not None:
                    _write_conf_xml(plan.conf_path, plan.conf)
                launched = processes.spawn(
                    plan.argv,
                    cwd=plan.cwd,
                    env=plan.env,
                    stdout_path=plan.stdout,
                    stderr_path=plan.stderr,
                    exit_path=plan.exit_path,
                    # a beat for an engine on another host that may take over (the lease's
                    # time: the pace at which a dead engine is noticed too)
                    beat=self.engine.config.lease_ttl,
                )
                started.append((plan, launched, None))
            except BundletuiError as exc:
                started.append((plan, None, exc))
            except (OSError, ValueError) as exc:  # one bad plan fails its node, not the batch
                program = plan.argv[0] if plan.argv else ""
                failure = EngineError(processes.SPAWN_FAILED, f"Cannot start [{program}]: {exc}")
                started.append((plan, None, failure))
        with store.write() as tx:
            for plan, launched, error in started:
                if launched is not None:
                    jobs.update(
                        tx,
                        NodeRow,
                        plan.node_id,
                        pid=launched.pid,
                        start_ticks=launched.start_ticks,
                    )
                else:
                    assert error is not None
                    self.completions.append((plan.node_id, None, error, None))
        for plan, launched, _ in started:
            if launched is not None:
                self.running[plan.node_id] = launched
                self.watcher.watch_child(launched, self._on_exit(plan.node_id))
        self.engine.wake()

    def _on_exit(self, node_id: str) -> processes.ExitCallback:
        def callback(pid: int, status: processes.ExitStatus | None) -> None:
            self._exited(node_id, status, pid)

        return callback

    def _exited(self, node_id: str, status: processes.ExitStatus | None, pid: int) -> None:
        launched = self.running.get(node_id)
        if launched is not None and launched.pid == pid:  # not a newer run's process
            del self.running[node_id]
            if launched.pgid in self._hard_kills:
                pass  # killed by the engine: its SIGKILL follows, if it is needed
            elif status is not None:
                self._leftover(launched.pgid, node_id)
            else:
                # its wrapper died leaving no exit record (SIGKILLed by hand, the OOM
                # killer): the job may live on in its group, and a retry would start beside
                # it, or outlive the node's end out of reach of a kill
                wf_id, _, name = node_id.rpartition("@")
                _kill_survivors(
                    str(self.engine.db.home),
                    {launched.pgid: {(wf_id, name)}},
                    "node",
                    "its wrapper, which left no exit record",
                )
        self.completions.append((node_id, status, None, pid))
        self.engine.wake()

    def _leftover(self, pgid: int, node_id: str) -> None:
        """The wrapper SIGTERMs its group when the job ends (decision 0003); a child that
        ignores it gets SIGKILL ``KILL_GRACE`` later, as a kill's survivors do. One look at
        /proc serves every job that ended in the meantime."""
        loop = self.engine._loop
        if loop is None:
            return
        if not self._leftovers:
            loop.call_later(KILL_GRACE, self._reap_leftovers)
        wf_id, _, name = node_id.rpartition("@")
        self._leftovers.setdefault(pgid, set()).add((wf_id, name))

    def _seen_to_done(self, count: int) -> None:
        del self._seen_to[:count]

    def _reap_leftovers(self) -> None:
        groups, self._leftovers = self._leftovers, {}
        _kill_survivors(
            str(self.engine.db.home), groups, "node", "its job's end (it ignored SIGTERM)"
        )
        # seen to: their kill_watch rows go at the next tick (or a restart's look, if none)
        self._seen_to.extend((g, wf, name) for g, members in groups.items() for wf, name in members)

    # ------------------------------------------------------------------ completion

    def _complete(
        self,
        tx: Tx,
        nid: str,
        status: processes.ExitStatus | None,
        failure: BundletuiError | None,
        pid: int | None = None,
    ) -> None:
        foreign = self.foreign.pop(nid, None)
        node = jobs.get(tx.conn, NodeRow, nid)
        if node is None or node.status != N.RUNNING:
            return  # killed meanwhile: the kill already recorded its end
        if pid is not None and node.pid != pid:
            # a process the node no longer stands for: killed, and a rerun (or a retry)
            # started another since. Its end is not the new one's, which runs on.
            log.info("%s: pid %d ended after its run was replaced; ignored", nid, pid)
            return
        wf = jobs.workflow_head(tx.conn, node.wf_id)
        assert wf is not None
        if pid is not None and status is not None and pid in self._leftovers:
            # its group's leftovers get SIGKILL after the grace time (``_leftover``), a timer
            # an engine killed meanwhile would take with it: kept where a restart finds it
            # (only while that look is still to come: once it has been, nothing is left to do)
            jobs.watch_kill(tx, pid, wf.id, node.name)
        app = self.app(tx, wf)
        spec = index_of(app).by_name[node.name]
        store = self.engine.db
        out, _err, exit_path = attempt_paths(
            wfcmd.log_dir(store, wf.id), node.name, node.run, node.attempt
        )
        ended = self._exit_time(tx, node, exit_path) if status is not None else None
        also = {"ended": ended} if ended is not None else None
        if status is not None and status.ok:
            data = None
            action = spec.action
            if isinstance(action, ShellAction) and action.capture_output:
                data, problem = _captured(out)
                if problem:
                    self._failed_attempt(tx, wf, spec, node, 0, "EB0504", problem, also)
                    return
            node_finished(
                tx,
                self.engine.effects,
                wf,
                node,
                ok=True,
                spec=spec,
                exit_code=0,
                data=data,
                also=also,
            )
            return
        if failure is not None:  # it never started: its own code, not "unknown exit"
            code, message, exit_code = failure.code, failure.message, None
        elif status is None:
            code = UNKNOWN_EXIT
            message = "the process ended without an exit record (killed with SIGKILL?)"
            if foreign is not None:
                owner, silent = foreign
                message = (
                    f"no exit record, and the process was started on host {owner}, whose"
                    " processes this engine cannot see: it may still run there"
                    if silent is None
                    else f"no exit record, and its wrapper on host {owner} stopped beating"
                    f" ({silent:.0f} s without a beat): that host or the job is gone"
                )
            exit_code = None
        elif app.form is WorkflowForm.OOZIE:  # Oozie's words (oozie.md §5.5), and a signal's
            code, exit_code = str(status.code), status.code
            message = f"Main Class [{SHELL_MAIN}], exit code [{status.code}]"
            message += f" ({status.killed_by})" if status.killed_by else ""
        else:
            code, message = str(status.code), f"shell action {spec.name}: {status}"
            exit_code = status.code
        self._failed_attempt(tx, wf, spec, node, exit_code, code, message, also)

    def _exit_time(self, tx: Tx, node: NodeRow, exit_path: str) -> int | None:
        """When the job ended, from its exit record (on the real clock only): a job that ended
        while no engine ran is not stamped with the restart's time, nor a live one with the
        tick's. None on a simulated clock, whose times the file system does not keep."""
        if self.engine.clock is not self.engine.real_clock:
            return None
        for path in (exit_path, exit_path + ".tmp"):
            try:
                written = os.stat(path).st_mtime_ns // 1_000_000
            except OSError:
                continue
            return max(min(written, tx.now_ms), node.started or 0)
        return None

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
    ) -> None:
        """Retry if ``retry-max`` allows (any failure counts here, up to Oozie's cap of 3), else
        the node fails; ``also``: more columns for its end (when its job ended)."""
        retries_done = node.attempt - 1
        # A suspended workflow keeps its retries (Oozie ends the action after the resume,
        # user retry included): suspending must not change how a node ends.
        if retries_done < spec.user_retry_max and wf.status in (W.RUNNING, W.SUSPENDED):
            interval = spec.retry_interval * 60_000
            if spec.retry_policy is RetryPolicy.EXPONENTIAL:
                interval *= 2 ** min(retries_done, 64)  # 2**64 ms are past LATEST_MS anyway
            due = min(tx.now_ms + interval, max(tx.now_ms, LATEST_MS))
            node_retry(tx, node, due, exit_code=exit_code, error_code=code, error_message=message)
            self.engine.heap.push(due, "node.due", node.id)
            return
        node_finished(
            tx,
            self.engine.effects,
            wf,
            node,
            ok=False,
            spec=spec,
            exit_code=exit_code,
            error_code=code,
            error_message=message,
            also=also,
        )

    def _queue_ready(self, tx: Tx, node: NodeRow, priority: int | None = None) -> None:
        """A READY node: launchable now, or when its retry is due."""
        if node.due_time is not None and node.due_time > tx.now_ms:
            self.engine.heap.push(node.due_time, "node.due", node.id)
        else:
            self._mark_launchable(tx, node, priority)

    def _mark_launchable(self, tx: Tx, node: NodeRow, priority: int | None = None) -> None:
        if priority is None:
            priority = jobs.workflow_priority(tx.conn, node.wf_id)
        self.launchable.add(node.id, priority)

    def on_node_due(self, tx: Tx, nid: str) -> None:
        node = jobs.get(tx.conn, NodeRow, nid)
        if node is not None and node.status == N.READY:
            self._mark_launchable(tx, node)

    # ------------------------------------------------------------------ signals

    def signal(self, tx: Tx, wf_id: str, what: str) -> None:
        if what == "kill":
            self._kill_watched(tx, wf_id)
        for node in jobs.running_nodes(tx.conn, wf_id):
            if what == "kill":
                self._kill_node(tx, node)
            elif node.id in self.remote:
                log.warning(
                    "%s runs on host %s, whose processes this engine cannot reach: %s"
                    " not passed on to it",
                    node.id,
                    self.foreign.get(node.id, ("another host", None))[0],
                    "suspend --freeze" if what == "stop" else "resume (SIGCONT)",
                )
            elif node.pid is not None:  # ours to signal
                pid, ticks = node.pid, node.start_ticks
                fn = processes.stop_group if what == "stop" else processes.continue_group
                self.engine.after_commit.append(functools.partial(fn, pid, start_ticks=ticks))

    def _kill_node(self, tx: Tx, node: NodeRow) -> None:
        """Record the kill, then signal the process group after the commit."""
        t = decide(Machine.NODE, node.status, Event.KILL, node.id)
        jobs.update(
            tx,
            NodeRow,
            node.id,
            status=t.to,
            ended=tx.now_ms,
            error_code="E0726",
            error_message="killed",
        )
        self.launchable.discard(node.id)
        # launched in this tick, its process not started yet (it starts after the commit): it
        # never starts. A fork sibling's EL error killed it, and it ran on untracked (QA (an))
        self.spawns = [plan for plan in self.spawns if plan.node_id != node.id]
        self.foreign.pop(node.id, None)
        if (exit_path := self.remote.pop(node.id, None)) is not None:
            # it runs on another host: its wrapper's beat loop passes the request on as
            # SIGTERM within a beat, and SIGKILL two beats later. Kept in kill_watch until the
            # request is written, so a restart asks again should this engine die first
            watch = (node.pid or 0, node.wf_id, node.name)
            jobs.watch_kill(tx, *watch)
            self.engine.after_commit.append(functools.partial(_ask_kill, node.id, exit_path))
            self._seen_to.append(watch)
        elif node.pid is not None:
            pid, ticks = node.pid, node.start_ticks
            watch = (pid, node.wf_id, node.name)
            jobs.watch_kill(tx, *watch)
            self.engine.after_commit.append(lambda: self._terminate(pid, ticks, watch))
        if node.external_id:  # a running sub-workflow
            child = jobs.get(tx.conn, WorkflowRow, node.external_id)
            if child is not None and child.status in (W.RUNNING, W.SUSPENDED, W.PREP):
                wfcmd.kill_tx(tx, self.engine.effects, child)

    def _kill_watched(self, tx: Tx, wf_id: str) -> None:
        """Jobs a rerun took off their nodes before this kill reached them (``kill W`` then
        ``rerun W`` at once, or with no engine): the rerun put them in ``kill_watch``, and
        they are killed here, if /proc still shows them as this workflow's."""
        watched = [w for w in jobs.watched_kills(tx.conn) if w[1] == wf_id]
        groups: dict[int, set[tuple[str, str]]] = {}
        for pgid, wf, name in watched:
            if pgid not in self._hard_kills:
                groups.setdefault(pgid, set()).add((wf, name))
        if not groups:
            return
        home = str(self.engine.db.home)

        def terminate() -> None:
            for pgid, (wf, name) in processes.job_survivors(home, groups):
                self._terminate(pgid, None, (pgid, wf, name))

        self.engine.after_commit.append(terminate)

    def _terminate(self, pid: int, ticks: int | None, watch: jobs.KillWatch) -> None:
        """SIGTERM the job's group, then SIGCONT it (a job frozen by ``suspend --freeze`` only
        acts on the pending SIGTERM once continued, as with a shell's ``kill``); whatever of
        the group still lives ``KILL_GRACE`` seconds later gets SIGKILL."""
        if not processes.kill_group(pid, signal.SIGTERM, start_ticks=ticks):
            self._seen_to.append(watch)
            return
        processes.continue_group(pid, start_ticks=ticks)
        loop = self.engine._loop
        if loop is not None:
            if pid in self._hard_kills:  # one group, several killed nodes
                self._hard_kills[pid][1].append(watch)
                return
            self._hard_kills[pid] = (ticks, [watch], time.monotonic())
            loop.call_later(KILL_GRACE, self._kill_hard, pid)

    def _kill_hard(self, pid: int) -> None:
        if pid not in self._hard_kills:
            return  # sent already (an engine stopping within the grace time)
        ticks, watches, termed = self._hard_kills.pop(pid)
        if processes.kill_group(pid, signal.SIGKILL, start_ticks=ticks):
            waited = time.monotonic() - termed
            log.warning(
                "process group %d outlived SIGTERM by %.1f s: sent SIGKILL%s",
                pid,
                waited,
                "" if waited >= KILL_GRACE else " (the engine is stopping)",
            )
        self._seen_to.extend(watches)

    # ------------------------------------------------------------------ recovery

    def recover(self, tx: Tx) -> None:
        for node in jobs.running_nodes(tx.conn):
            wf = jobs.workflow_head(tx.conn, node.wf_id)
            if wf is None:
                continue
            spec = index_of(self.app(tx, wf)).by_name[node.name]
            if not isinstance(spec.action, ShellAction):
                continue  # sub-workflows finish on their own; fs nodes never stay RUNNING
            exit_path = self._attempt_exit_path(node)
            owner = processes.launch_host(exit_path)
            if owner is not None and not same_host(owner):
                owner = host_label(owner)
                # started by an engine on another host: its process is out of our sight (a
                # pid here is not its pid). Its wrapper's beat says whether it still runs
                # there: it is watched until its exit record comes, or its beat stops
                self.foreign[node.id] = (owner, None)
                beat = processes.read_beat(exit_path)
                if beat is not None and processes.read_exit(exit_path) is None:
                    interval = beat[0] or self.engine.config.lease_ttl
                    self.remote[node.id] = exit_path
                    self._to_watch.append((node.id, exit_path, interval))
                    log.warning(
                        "job %s runs on host %s, whose processes this engine cannot see:"
                        " waiting for its exit record while its wrapper beats (every %g s)",
                        node.id,
                        owner,
                        interval,
                    )
                    continue
                if beat is None:  # no beat (an older wrapper, or none could be written)
                    log.warning(
                        "job %s was started on host %s, whose processes this engine cannot"
                        " see, and it has no beat: it is judged by its exit record alone (if"
                        " %s still runs it, it may run twice)",
                        node.id,
                        owner,
                        owner,
                    )
            pid, ticks = node.pid, node.start_ticks
            if pid is None:
                found = processes.find_wrappers([exit_path]).get(exit_path)
                if found is not None:
                    pid, ticks = found
                    jobs.update(tx, NodeRow, node.id, pid=pid, start_ticks=ticks)
            if pid is not None and ticks is not None:
                self.adopt.append((node.id, pid, ticks, exit_path))
                continue
            status = processes.read_exit(exit_path)
            if status is not None:
                self.completions.append((node.id, status, None, None))
            elif wf.status not in (W.RUNNING, W.SUSPENDED):
                # never started, and its workflow was killed (or ended) meanwhile: a kill
                # command reaches WAITING and READY nodes, and the engine's signal RUNNING
                # ones that it finds alive; this one is neither, so it is killed here
                self._kill_node(tx, node)
            else:
                # Marked RUNNING but the engine died before starting it: start it now (same attempt).
                t = decide(Machine.NODE, node.status, Event.RECOVER, node.id)
                jobs.update(
                    tx, NodeRow, node.id, status=t.to, attempt=node.attempt - 1, started=None
                )
                self._mark_launchable(tx, node)
        for node in jobs.ready_nodes(tx.conn):
            self._queue_ready(tx, node)
        watched = jobs.watched_kills(tx.conn)
        self._ask_kills_again(tx, watched)
        if watched:
            killed: dict[int, set[tuple[str, str]]] = {}
            for pid, wf_id, name in watched:
                killed.setdefault(pid, set()).add((wf_id, name))
            home = str(self.engine.db.home)
            self.engine.after_commit.append(
                functools.partial(
                    _kill_survivors, home, killed, "node", "its kill or its job's end"
                )
            )
            self._seen_to.extend(watched)  # deleted by the first tick, after the SIGKILLs
        for wf in jobs.running_workflows(tx.conn):
            self.dirty[wf.id] = None
        if self.adopt:
            self.engine.after_commit.append(self._adopt_all)
        if self._to_watch:
            self.engine.after_commit.append(self._watch_remote_all)

    def _adopt_all(self) -> None:
        assert self.watcher is not None
        items, self.adopt = self.adopt, []
        for nid, pid, ticks, exit_path in items:
            launched = processes.Launched(
                pid=pid, pgid=pid, start_ticks=ticks, argv=(), exit_path=exit_path
            )
            self.running[nid] = launched
            alive = processes.is_alive(pid, ticks)  # asked before the watcher reaps it
            self.watcher.adopt(pid, ticks, exit_path, self._on_exit(nid))
            if alive:
                log.info("adopted running job %s (pid %d)", nid, pid)
            else:  # it ended while no engine ran: its exit record (or its absence) decides
                log.info("job %s (pid %d) ended while no engine ran; reading its exit", nid, pid)

    def _watch_remote_all(self) -> None:
        assert self.watcher is not None
        items, self._to_watch = self._to_watch, []
        for nid, exit_path, interval in items:
            self.watcher.watch_beats(exit_path, interval, self._on_remote_exit(nid, exit_path))

    def _on_remote_exit(self, node_id: str, exit_path: str) -> processes.RemoteCallback:
        def callback(status: processes.ExitStatus | None, silent: float) -> None:
            self.remote_done.append((node_id, exit_path, status, silent))
            self.engine.wake()

        return callback

    def _attempt_exit_path(self, node: NodeRow) -> str:
        log_dir = wfcmd.log_dir(self.engine.db, node.wf_id)
        return attempt_paths(log_dir, node.name, node.run, node.attempt)[2]

    def _remote_ended(
        self,
        tx: Tx,
        nid: str,
        exit_path: str,
        status: processes.ExitStatus | None,
        silent: float,
    ) -> None:
        """A job on another host ended, or its beat stopped: the node's end, if the node still
        stands for that attempt (not killed, rerun or retried since)."""
        if self.remote.get(nid) == exit_path:
            del self.remote[nid]
        node = jobs.get(tx.conn, NodeRow, nid)
        if node is None or node.status != N.RUNNING or self._attempt_exit_path(node) != exit_path:
            log.info(
                "%s: attempt %s ended on another host after its node was killed, rerun or"
                " retried; ignored",
                nid,
                exit_path,
            )
            return
        if status is None:
            if nid in self.foreign:
                self.foreign[nid] = (self.foreign[nid][0], silent)
            # judged gone: should its host only have paused (a VM, a frozen cgroup), the job
            # is stopped within a beat of its coming back, not run on beside the retry
            self.engine.after_commit.append(functools.partial(_ask_kill, nid, exit_path))
        self.completions.append((nid, status, None, None))

    def _ask_kills_again(self, tx: Tx, watched: list[jobs.KillWatch]) -> None:
        """Kills recorded for jobs on another host: the engine died before it wrote their
        request, or a rerun took the job off its node first (``kill W`` then ``rerun W`` with
        no engine running). Every attempt of the node that another host started and that has
        no exit record is asked again (their rows go with the other watched kills, as seen
        to); the node's current attempt only while the node is not RUNNING."""
        for _pid, wf_id, name in watched:
            node = jobs.get(tx.conn, NodeRow, f"{wf_id}@{name}")
            if node is None:
                continue
            current = self._attempt_exit_path(node)
            for host in Path(current).parent.glob(f"{glob.escape(name)}.*.*.host"):
                exit_path = str(host)[: -len(".host")] + ".exit"
                if exit_path == current and node.status == N.RUNNING:
                    continue  # the rerun's own attempt
                owner = processes.launch_host(exit_path)
                if owner is None or same_host(owner) or processes.read_exit(exit_path) is not None:
                    continue
                if processes.read_beat(exit_path) is not None:
                    self.engine.after_commit.append(
                        functools.partial(_ask_kill, node.id, exit_path)
                    )


# ----------------------------------------------------------------------------- helpers


def _depth(tx: Tx, wf: WorkflowRow) -> int:
    """How many workflows ``wf`` runs under (0 for a top-level one or a coordinator's)."""
    depth, parent = 0, wf.parent_id
    while parent and kind_of(parent) is IdKind.WORKFLOW:
        depth += 1
        row = jobs.workflow_head(tx.conn, parent)
        parent = row.parent_id if row is not None else None
    return depth


def _decision_of(
    app: WorkflowApp, states: dict[str, tuple[str, str | None]], case: str
) -> str | None:
    """The waiting decision node with this case text (the one whose evaluation failed)."""
    return next(
        (
            n.name
            for n in app.nodes
            if n.type is NodeType.DECISION
            and states.get(n.name, ("", None))[0] == N.WAITING
            and any(text == case for text, _to in n.cases)
        ),
        None,
    )


def _kill_survivors(
    home: str,
    groups: dict[int, set[tuple[str, str]]],
    what: str = "killed node",
    outlived: str = "its kill",
) -> None:
    """SIGKILL to the members of ``groups`` that /proc shows as still this store's jobs: those
    killed while an earlier engine ran, that outlived its SIGTERM and that it did not live to
    SIGKILL (it was stopped or died within the grace time), and those a finished job left
    behind that ignored the wrapper's SIGTERM."""
    for pgid, (wf_id, node) in processes.job_survivors(home, groups):
        if processes.kill_group(pgid, signal.SIGKILL):
            log.warning(
                "process group %d of %s %s@%s outlived %s: sent SIGKILL",
                pgid,
                what,
                wf_id,
                node,
                outlived,
            )


def _ask_kill(node_id: str, exit_path: str) -> None:
    if processes.request_kill(exit_path):
        log.info("%s runs on another host: asked its wrapper to stop it", node_id)
    else:
        log.warning("%s runs on another host and its kill request could not be written", node_id)


def _captured(stdout_path: str) -> tuple[dict[str, str] | None, str | None]:
    try:
        with open(stdout_path, "rb") as f:
            # no more than the limit and a byte read: a job's 300 MB stdout is not loaded
            # into the engine to learn that it is too big
            data = f.read(CAPTURE_LIMIT + 1)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return {}, None
    if len(data) > CAPTURE_LIMIT:
        return None, f"capture-output is {size} bytes, more than the {CAPTURE_LIMIT} allowed"
    try:
        return parse_properties(data.decode("utf-8", "replace"), stdout_path), None
    except BundletuiError as exc:
        return None, f"capture-output is not in Java properties format: {exc.message}"


_ENV_REF = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def _expand_env(value: str, environ: Mapping[str, str]) -> str:
    """``PATH=/opt/bin:$PATH``: an ``<env-var>``'s ``$NAME`` is the job's environment's value
    so far (the engine's, then the earlier env-vars), as Oozie's ShellMain expands it (``${…}``
    is EL there, resolved before). A name not set stays as written. Text substitution only:
    no shell ever sees the value."""
    return _ENV_REF.sub(lambda m: environ.get(m.group(1), m.group(0)), value)


def _write_conf_xml(path: Path, conf: Mapping[str, str]) -> None:
    from bundletui.spec.config import configuration_xml

    path.parent.mkdir(parents=True, exist_ok=True)
    # UTF-8, said in the file, whatever the engine's locale (a latin-1 one failed the job)
    text = f'<?xml version="1.0" encoding="UTF-8"?>\n{configuration_xml(conf)}\n'
    path.write_text(text, encoding="utf-8")


def _pair(env_var: str) -> str:
    """An ``<env-var>`` once its EL is resolved: still ``NAME=VALUE`` (submit checks those
    written so; one whose ``${…}`` gave no name or no ``=`` fails its node, rather than setting
    a variable with no value or an empty name)."""
    if "=" not in env_var or env_var.startswith("="):
        raise EngineError(
            "EB0720",
            f"env-var [{env_var}] is not NAME=VALUE once its expressions are resolved",
        )
    return env_var


class _ElEnv:
    """The EL context of one workflow at one moment: its conf as variables, wf:/fs: functions.
    Built on first use only: most actions hold no ``${`` at all."""

    def __init__(
        self, runner: WorkflowRunner, tx: Tx, wf: WorkflowRow, current: str | None = None
    ) -> None:
        self._runner = runner
        self._tx = tx
        self._wf = wf
        self._current = current
        self._ctx: Any = None

    @property
    def ctx(self) -> Any:
        if self._ctx is None:
            from bundletui.engine.wfel import workflow_context

            tx, wf = self._tx, self._wf
            self._ctx = workflow_context(
                self._runner.engine.clock,
                wf,
                self._runner.conf(tx, wf),
                lambda name: jobs.get(tx.conn, NodeRow, node_id(wf.id, name)),
                lambda: jobs.failed_nodes(tx.conn, wf.id),
                self._current,
                lambda name: index_of(self._runner.app(tx, wf)).by_name.get(name),
            )
        return self._ctx

    def render(self, text: str) -> str:
        if "${" not in text:
            return text
        from bundletui.spec.el import render

        return render(text, self.ctx)

    def predicate(self, text: str) -> bool:
        """Oozie's DecisionActionExecutor: a case is taken when its text, EL rendered and
        trimmed, is exactly ``true``; anything else (``True``, ``1``) falls through."""
        return self.render(text).strip(_JAVA_TRIMMED) == "true"

    def resolve_action(
        self, spec: Node, global_conf: Conf = (), global_job_xml: tuple[str, ...] = ()
    ) -> Any:
        """The node's action with its expressions resolved. The configuration of a shell or
        sub-workflow action is the workflow's ``<global>`` one overridden by its own, as
        Oozie merges them (a sub-workflow's since Oozie 4.3, OOZIE-2030); a shell action's
        takes the ``<job-xml>`` files too, read now (:mod:`bundletui.engine.action_conf`). An
        fs action runs on the local file system, where a Hadoop configuration has no use, but
        its job-xml files are read all the same, as Oozie's: one it cannot read fails it."""
        action = spec.action
        r = self.render
        if isinstance(action, ShellAction):
            program = r(action.exec)
            if not program.strip():
                raise EngineError(
                    processes.SPAWN_FAILED,
                    f"Cannot start shell action [{spec.name}]: its <exec> [{action.exec}] is"
                    " empty once its expressions are resolved",
                    hint="give its variables a value (job.properties, --config or -D)",
                )
            return ShellAction(
                exec=program,
                arguments=tuple(r(a) for a in action.arguments),
                env_vars=tuple(_pair(r(v)) for v in action.env_vars),
                capture_output=action.capture_output,
                configuration=self._merged(
                    global_conf, action.configuration, global_job_xml, action.job_xml
                ),
                prepare=tuple(dataclasses.replace(op, path=r(op.path)) for op in action.prepare),
                files=tuple(r(f) for f in action.files),
                archives=tuple(r(a) for a in action.archives),
            )
        if isinstance(action, FsAction):
            self._job_xml((*global_job_xml, *action.job_xml))
            return FsAction(
                ops=tuple(
                    FsOp(
                        op.op,
                        r(op.path),
                        target=r(op.target) if op.target else None,
                        permissions=r(op.permissions) if op.permissions else None,
                        recursive=op.recursive,
                        dir_files=op.dir_files,
                    )
                    for op in action.ops
                )
            )
        if isinstance(action, SubWorkflowAction):
            return SubWorkflowAction(
                app_path=r(action.app_path),
                propagate_configuration=action.propagate_configuration,
                configuration=self._merged(global_conf, action.configuration),
            )
        if spec.type is not NodeType.ACTION:
            return None
        raise BundletuiError("EB0505", f"node {spec.name} has no action to run")

    def _merged(
        self,
        global_conf: Conf,
        own: Conf,
        global_job_xml: tuple[str, ...] = (),
        job_xml: tuple[str, ...] = (),
    ) -> Conf:
        """``<global>`` configuration under the action's own, rendered; a global value the
        action overrides is never rendered (its EL may not work in this action). With
        ``<job-xml>`` files, each set of them lies under its configuration (global files,
        ``<global>``, the action's files, its own)."""
        layers = (
            (self._job_xml(global_job_xml), False),
            (global_conf, True),
            (self._job_xml(job_xml), False),
            (own, True),
        )
        return action_conf.layered(layers, self.render)

    def _job_xml(self, paths: tuple[str, ...]) -> Conf:
        """The properties of the ``<job-xml>`` files ``paths`` name (their EL rendered),
        relative to the workflow's application directory."""
        if not paths:
            return ()
        where = app_dir(self._wf.app_path)
        return action_conf.read_job_xmls((self.render(p) for p in paths), where)

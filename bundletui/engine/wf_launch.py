"""Launching READY nodes: an fs node inside the tick, a shell job planned now and started after
the commit, a sub-workflow created; and the queue of what may launch."""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from bundletui.commands import workflows as wfcmd
from bundletui.commands.nodes import node_finished
from bundletui.commands.workflows import attempt_paths
from bundletui.engine import action_conf, processes
from bundletui.engine.failures import launch_error
from bundletui.engine.fs_ops import run_fs_action, run_fs_ops
from bundletui.engine.localize import localize
from bundletui.engine.wf_state import RunnerState, SpawnPlan
from bundletui.engine.wfel import app_dir
from bundletui.errors import BundletuiError, EngineError
from bundletui.model.apps import (
    FsAction,
    Node,
    ShellAction,
    SubWorkflowAction,
    WorkflowApp,
    WorkflowForm,
    overlay,
)
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.status import NodeStatus, WorkflowStatus
from bundletui.model.transitions import Event, Machine, decide
from bundletui.model.wfgraph import index_of
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow, replace_row

log = logging.getLogger("bundletui.engine.workflows")
N = NodeStatus
W = WorkflowStatus

MAX_SUBWORKFLOW_DEPTH = 50  # Oozie's oozie.action.subworkflow.max.depth


class LaunchMixin(RunnerState):
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
            except BundletuiError as exc:
                self._failed_attempt(tx, wf, spec, running, None, exc.code, exc.message)
                return
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
                action.files,
                action.archives,
                app_dir(wf.app_path),
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
        # every plan is made ready before any starts: two nodes of a fork that share an
        # <archive> unpack it afresh each, and the second must not remove what the first
        # already runs in (review)
        ready: list[tuple[SpawnPlan, list[str]]] = []
        # runs with another job started, or about to be: an archive unpacked before may be
        # in use (worked out only when a plan has entries to localize)
        running: set[str] | None = None
        starting = Counter(p.node_id.rpartition("@")[0] for p in plans)
        for plan in plans:
            try:
                Path(plan.cwd).mkdir(parents=True, exist_ok=True)
                Path(plan.exit_path).parent.mkdir(parents=True, exist_ok=True)
                if plan.conf_path is not None:
                    _write_conf_xml(plan.conf_path, plan.conf)
                argv = plan.argv
                if plan.files or plan.archives:
                    # JA008 / EB0720 / EB0507 fail the attempt as a start that failed does
                    wf_id = plan.node_id.rpartition("@")[0]
                    if running is None:
                        running = {nid.rpartition("@")[0] for nid in self.running}
                    program = localize(
                        plan.files,
                        plan.archives,
                        plan.app_dir,
                        Path(plan.cwd),
                        argv[0],
                        in_use=wf_id in running or starting[wf_id] > 1,
                    )
                    argv = [program, *argv[1:]] if program is not None else argv
                ready.append((plan, argv))
            except BundletuiError as exc:
                started.append((plan, None, exc))
            except OSError as exc:
                started.append((plan, None, _cannot_start(plan, exc)))
        launched: processes.Launched | None
        for plan, argv in ready:
            try:
                launched = processes.spawn(
                    argv,
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
                started.append((plan, None, _cannot_start(plan, exc)))
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

    # ------------------------------------------------------------------ the launchable queue

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


def _cannot_start(plan: SpawnPlan, exc: Exception) -> EngineError:
    program = plan.argv[0] if plan.argv else ""
    return EngineError(processes.SPAWN_FAILED, f"Cannot start [{program}]: {exc}")


def _depth(tx: Tx, wf: WorkflowRow) -> int:
    """How many workflows ``wf`` runs under (0 for a top-level one or a coordinator's)."""
    depth, parent = 0, wf.parent_id
    while parent and kind_of(parent) is IdKind.WORKFLOW:
        depth += 1
        row = jobs.workflow_head(tx.conn, parent)
        parent = row.parent_id if row is not None else None
    return depth


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

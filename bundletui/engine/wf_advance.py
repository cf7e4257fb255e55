"""The runner's tick and the walk of a workflow's graph: which nodes are ready, passed, skipped,
and when the workflow ends."""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Iterable
from typing import Any

from bundletui.commands import workflows as wfcmd
from bundletui.commands.propagate import workflow_finished
from bundletui.engine.wf_state import RunnerState
from bundletui.errors import BundletuiError
from bundletui.model.apps import NodeType, WorkflowApp, WorkflowForm
from bundletui.model.ids import IdKind, kind_of, node_id
from bundletui.model.status import NodeStatus, WorkflowStatus
from bundletui.model.transitions import Event, Machine, decide
from bundletui.model.wfgraph import NodeState, Step, advance, advance_dag_after, suspend_point
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow

log = logging.getLogger("bundletui.engine.workflows")
N = NodeStatus
W = WorkflowStatus

MAX_LAUNCHES_PER_TICK = 2000


class AdvanceMixin(RunnerState):
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

    def _seen_to_done(self, count: int) -> None:
        del self._seen_to[:count]

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
        # named as a failed action names its node (QA: the decision was not named)
        text = f"node {at}: {exc.located}" if at else exc.located
        self._finish(tx, wf, app, W.FAILED, None, error=(exc.code, text))

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

    def _end_time(self, tx: Tx, wf: WorkflowRow) -> int:
        """Now; but a workflow whose last job ended while no engine ran ended then, as that
        job's node did (QA: it showed the whole downtime as its run). Real clock only: a
        simulated one keeps no file times."""
        engine = self.engine
        if engine.clock is not engine.real_clock:
            return tx.now_ms
        last = jobs.last_action_end(tx.conn, wf.id)
        if last is None or last >= engine.up_since_ms:
            return tx.now_ms
        return max(last, wf.start_time or last)

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
        fields: dict[str, Any] = {"status": t.to, "end_time": self._end_time(tx, wf)}
        if outcome is W.KILLED and kill_message is not None:
            fields["error_message"] = kill_message
            fields["error_code"] = "E0729"  # Oozie: kill node message
        if outcome is W.FAILED and error is not None:
            fields["error_code"], fields["error_message"] = error
        elif outcome is W.FAILED:
            first = jobs.first_failed_node(tx.conn, wf.id)
            if first is not None:
                fields["error_code"] = first.error_code
                fields["error_message"] = _failed_node_text(tx, first)
            elif stalled is not None:
                fields["error_code"], fields["error_message"] = stalled
        jobs.update(tx, WorkflowRow, wf.id, **fields)
        # the row as written (no read-back; a head row: propagation needs no definition)
        workflow_finished(tx, self.engine.effects, jobs.updated(tx, wf, **fields))


# a FAILED workflow's text when a node failed it: ``node a → b → c: message``, or shortened,
# ``node a → b → … → z (51 levels): message`` (node names are [A-Za-z_][A-Za-z0-9_-]*: E0724)
_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_CHAIN = re.compile(
    rf"node ({_NAME}(?: → {_NAME})*)(?: → … → ({_NAME}) \((\d+) levels\))?: (.*)", re.DOTALL
)


def _failed_node_text(tx: Tx, first: NodeRow) -> str:
    """``node a: message`` for a workflow that failed at its node ``a``. When ``a`` failed
    because its sub-workflow did, the child's text is a chain already (``node b → c:
    message``, written when the child ended, as this one is now) and ``a`` goes in front:
    ``node a → b → c: message``, not ``node a: node b → c: …``."""
    text = first.error_message
    below = _CHAIN.fullmatch(text) if text and _failed_by_child(tx, first) else None
    if below is None:
        return f"node {first.name}: {text}"
    shown, last, levels, message = below.groups()
    names = [first.name, *shown.split(" → "), *([last] if last else [])]
    count = int(levels) + 1 if levels else len(names)
    if count > 4:  # a long one shortened (a workflow that starts itself: 51 levels)
        return f"node {names[0]} → {names[1]} → … → {names[-1]} ({count} levels): {message}"
    return f"node {' → '.join(names)}: {message}"


def _failed_by_child(tx: Tx, node: NodeRow) -> bool:
    """Whether ``node`` failed with the text of its sub-workflow, ended FAILED (a killed
    child's text is its kill message; a node that failed to launch its child has its own)."""
    if not node.external_id or kind_of(node.external_id) is not IdKind.WORKFLOW:
        return False
    child = jobs.workflow_head(tx.conn, node.external_id)
    return (
        child is not None and child.status == W.FAILED and child.error_message == node.error_message
    )


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

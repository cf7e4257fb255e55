"""How a node's attempt ends: its process exits (and its group's leftovers are seen to), the
tick records the end, and a failed attempt is retried or fails the node."""

from __future__ import annotations

import logging
import os
from typing import Any

from bundletui.commands import workflows as wfcmd
from bundletui.commands.nodes import node_finished, node_retry
from bundletui.commands.workflows import attempt_paths
from bundletui.engine import processes
from bundletui.engine.wf_signals import KILL_GRACE, kill_survivors
from bundletui.engine.wf_state import RunnerState
from bundletui.errors import BundletuiError
from bundletui.model.apps import Node, RetryPolicy, ShellAction, WorkflowForm
from bundletui.model.clock import LATEST_MS
from bundletui.model.status import NodeStatus, WorkflowStatus
from bundletui.model.wfgraph import index_of
from bundletui.spec.config import parse_properties
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow

log = logging.getLogger("bundletui.engine.workflows")
N = NodeStatus
W = WorkflowStatus

CAPTURE_LIMIT = 2048  # oozie.action.max.output.data
UNKNOWN_EXIT = "EB0503"
SHELL_MAIN = "org.apache.oozie.action.hadoop.ShellMain"


class ExitsMixin(RunnerState):
    # ------------------------------------------------------------------ exits

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
                kill_survivors(
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

    def _reap_leftovers(self) -> None:
        groups, self._leftovers = self._leftovers, {}
        kill_survivors(
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

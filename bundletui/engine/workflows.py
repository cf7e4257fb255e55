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

from bundletui.engine import processes
from bundletui.engine.wf_advance import AdvanceMixin
from bundletui.engine.wf_exits import ExitsMixin
from bundletui.engine.wf_launch import LaunchMixin
from bundletui.engine.wf_recovery import RecoveryMixin
from bundletui.engine.wf_signals import SignalsMixin
from bundletui.model.status import NodeStatus


class WorkflowRunner(AdvanceMixin, LaunchMixin, ExitsMixin, SignalsMixin, RecoveryMixin):
    """The runner as the engine sees it: the hooks it plugs into the loop (the work is in
    the mixins, one module a concern)."""

    # ------------------------------------------------------------------ wiring

    def install(self) -> None:
        e = self.engine
        e.pumps.append(self.pump)
        e.busy_checks.append(self.busy)
        e.stop_checks[self.busy] = self.busy_unless_frozen
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

    def busy(self) -> bool:
        return bool(self.running) or self._busy_besides_jobs()

    def busy_unless_frozen(self) -> bool:
        """As :meth:`busy`, but a job frozen by ``suspend --freeze`` does not count: it goes on
        only after a ``resume``, which an engine stopping when idle need not wait for."""
        frozen = self.frozen
        return (
            any(nid.rpartition("@")[0] not in frozen for nid in self.running)
            or self._busy_besides_jobs()
        )

    def _busy_besides_jobs(self) -> bool:
        return bool(
            self.remote
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

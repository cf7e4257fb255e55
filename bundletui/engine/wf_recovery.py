"""After a restart: every RUNNING node is adopted, read from its exit record or started again;
jobs another host's engine started are watched by their wrapper's beat."""

from __future__ import annotations

import functools
import glob
import logging
from pathlib import Path

from bundletui._host import host_label, same_host
from bundletui.engine import processes
from bundletui.engine.wf_signals import ask_remote_kill, kill_survivors
from bundletui.engine.wf_state import RunnerState
from bundletui.model.apps import ShellAction
from bundletui.model.status import NodeStatus, WorkflowStatus
from bundletui.model.transitions import Event, Machine, decide
from bundletui.model.wfgraph import index_of
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow

log = logging.getLogger("bundletui.engine.workflows")
N = NodeStatus
W = WorkflowStatus


class RecoveryMixin(RunnerState):
    def recover(self, tx: Tx) -> None:
        for node in jobs.running_nodes(tx.conn):
            wf = jobs.workflow_head(tx.conn, node.wf_id)
            if wf is None:
                continue
            if wf.status == "SUSPENDED" and wf.suspend_mode == "freeze":
                self.frozen.add(wf.id)
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
                functools.partial(kill_survivors, home, killed, "node", "its kill or its job's end")
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
            self.engine.after_commit.append(functools.partial(ask_remote_kill, nid, exit_path))
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
                        functools.partial(ask_remote_kill, node.id, exit_path)
                    )

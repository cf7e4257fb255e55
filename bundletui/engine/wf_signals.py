"""Signals to a workflow's running jobs: stop, continue, kill; a kill's SIGTERM, then SIGKILL
to whatever of the group outlives it, or a request to a job on another host."""

from __future__ import annotations

import functools
import logging
import signal
import time

from bundletui.commands import workflows as wfcmd
from bundletui.commands.nodes import node_killed
from bundletui.engine import processes
from bundletui.engine.wf_state import RunnerState
from bundletui.model.status import WorkflowStatus
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import NodeRow, WorkflowRow

log = logging.getLogger("bundletui.engine.workflows")
W = WorkflowStatus

KILL_GRACE = 5.0  # seconds between SIGTERM and SIGKILL when a node is killed


class SignalsMixin(RunnerState):
    def signal(self, tx: Tx, wf_id: str, what: str) -> None:
        # known frozen once the signal is committed (a tick undone leaves the set as it was)
        self.engine.after_commit.append(functools.partial(self._frozen, wf_id, what == "stop"))
        if what == "kill":
            self._kill_watched(tx, wf_id)
        for node in jobs.running_nodes(tx.conn, wf_id):
            if what == "kill":
                ended = processes.read_exit(self._attempt_exit_path(node))
                if ended is not None:
                    # it ended before the kill reached it (while no engine ran, or before
                    # its exit was seen): how it ended is what happened, not a kill
                    self._complete(tx, node.id, ended, None)
                    continue
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

    def _frozen(self, wf_id: str, frozen: bool) -> None:
        if frozen:
            self.frozen.add(wf_id)
        else:
            self.frozen.discard(wf_id)

    def _kill_node(self, tx: Tx, node: NodeRow) -> None:
        """Record the kill, then signal the process group after the commit."""
        node_killed(tx, node)
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
            self.engine.after_commit.append(functools.partial(ask_remote_kill, node.id, exit_path))
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


def kill_survivors(
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


def ask_remote_kill(node_id: str, exit_path: str) -> None:
    """Ask the wrapper of a node running on another host to stop it; logs the outcome."""
    if processes.request_kill(exit_path):
        log.info("%s runs on another host: asked its wrapper to stop it", node_id)
    else:
        log.warning("%s runs on another host and its kill request could not be written", node_id)

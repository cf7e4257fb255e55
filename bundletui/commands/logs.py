"""Which files hold a job's log: the one place that knows it, so the faces (CLI, Oozie front,
HTTP API, console) cannot disagree about it.

A job's log is its workflow nodes' output: a workflow's nodes, one node, or the nodes of the
workflow a coordinator action launched. Each node writes one stdout/stderr pair per attempt
(a retried node has several) and per run (a rerun starts a new run and keeps the old files).
How the files are printed, capped or tailed is each face's own.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bundletui.commands.coord_queries import no_workflow_yet, workflow_of
from bundletui.commands.workflows import attempt_paths, log_dir
from bundletui.errors import CommandError
from bundletui.model.ids import IdKind, kind_of
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import NodeRow, WorkflowRow


@dataclass(frozen=True)
class JobLog:
    """The nodes whose files hold a job's log."""

    nodes: tuple[NodeRow, ...]  # a workflow's every node in definition order, or the one node
    sub_workflow: str | None = None  # the node asked for ran this workflow: ``nodes`` are its
    no_workflow: str | None = None  # an action that launched no workflow yet: why (no nodes)

    @property
    def ran(self) -> list[NodeRow]:
        """The nodes that started an attempt: the others have no files yet."""
        return [n for n in self.nodes if n.attempt > 0]


@dataclass(frozen=True)
class AttemptFiles:
    """One attempt's stdout and stderr; ``last``: the newest attempt of its run."""

    node: NodeRow
    run: int
    attempt: int
    out: Path
    err: Path
    last: bool


def sub_workflow_of(node: NodeRow) -> str | None:
    """The workflow a sub-workflow node started (its external id), else None: such a node's
    output is its child's jobs'."""
    ext = node.external_id
    return ext if ext and kind_of(ext) is IdKind.WORKFLOW else None


def log_nodes(
    conn: sqlite3.Connection,
    job_id: str,
    *,
    sub_workflow: bool = False,
    node_hint: bool = True,
) -> JobLog:
    """The nodes of a workflow (``…-W``), a node (``…-W@name``) or a coordinator action's
    workflow (``…-C@N``). With ``sub_workflow``, a node that ran a sub-workflow gives the
    child's nodes. An action with no workflow yet is no error (it exists; it has no log):
    its ``no_workflow`` says why. Unknown ids raise E0604 / E0605 (``node_hint``: whether the
    missing node's error says where to see the workflow's nodes)."""
    kind = kind_of(job_id)
    if kind is IdKind.WORKFLOW_NODE:
        node = jobs.get(conn, NodeRow, job_id)
        if node is None:
            wf_id = job_id.rpartition("@")[0]
            hint = f"see the workflow's nodes with: bundletui info {wf_id}" if node_hint else None
            raise CommandError.from_template("E0605", job_id, hint=hint)
        child = sub_workflow_of(node) if sub_workflow else None
        if child is None:
            return JobLog((node,))
        return JobLog(tuple(jobs.workflow_nodes(conn, child)), sub_workflow=child)
    if kind is IdKind.WORKFLOW:
        wf = jobs.must_get(conn, WorkflowRow, job_id)
        return JobLog(tuple(jobs.workflow_nodes(conn, wf.id)))
    if (why := no_workflow_yet(conn, job_id)) is not None:
        return JobLog((), no_workflow=why)
    # an action's workflow; any other id gets workflow_of's error (E0604, E0302, E0605)
    return JobLog(tuple(jobs.workflow_nodes(conn, workflow_of(conn, job_id))))


def attempts(store: Store, node: NodeRow, run: int | None = None) -> list[AttemptFiles]:
    """Every attempt's files of ``node``, in order: a retried node's earlier attempts say why
    it was retried. The current run's attempts are the node's count (one at least, so a node
    about to start has its first files); an earlier ``run``'s are the files found, since the
    store keeps only the current run."""
    where = log_dir(store, node.wf_id)

    def files(run: int, attempt: int) -> tuple[Path, Path]:
        out, err, _exit = attempt_paths(where, node.name, run, attempt)
        return Path(out), Path(err)

    if run is None:
        run, count = node.run, max(node.attempt, 1)
    else:
        count = 0
        while any(p.exists() for p in files(run, count + 1)):
            count += 1
    return [
        AttemptFiles(node, run, attempt, *files(run, attempt), last=attempt == count)
        for attempt in range(1, count + 1)
    ]

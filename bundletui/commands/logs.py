"""Which files hold a job's log: the one place that knows it, so the faces (CLI, Oozie front,
HTTP API, console) cannot disagree about it.

A job's log is its workflow nodes' output: a workflow's nodes, one node, or the nodes of the
workflow a coordinator action launched. Each node writes one stdout/stderr pair per attempt
(a retried node has several) and per run (a rerun starts a new run and keeps the old files).
:func:`sections` decides what every face prints: which attempts, in what order, under which
headings and when they are headed; how the files are printed, capped or tailed is each
face's own.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bundletui.commands.coord_queries import no_workflow_yet, workflow_of
from bundletui.commands.workflows import attempt_paths, log_dir
from bundletui.errors import CommandError
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.status import NODE_TERMINAL
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


# ----------------------------------------------------------------------------- sections

# A log is printed as sections, one per attempt of a node that ran; it is headed (each
# section under a line naming its node) when it has more than one section, so the log of one
# node that ran once is its files' bytes and nothing else, as Oozie prints it. A node that
# ran a sub-workflow has no files of its own: its sections are its child's nodes', named
# ``parent-node → child-node``, on every face and whether the node or its workflow is asked.


@dataclass(frozen=True)
class Section:
    """One attempt of one node: ``path`` names it (the sub-workflow nodes it was reached
    through, then the node); ``count`` is how many attempts the node has had in this run and
    ``tries`` how many it may have (``retry-max`` + 1)."""

    path: tuple[str, ...]
    files: AttemptFiles
    count: int = 1
    tries: int = 1
    of_run: bool = False  # one of an earlier run's files, listed by ``run``: said so

    @property
    def node(self) -> NodeRow:
        return self.files.node

    @property
    def name(self) -> str:
        return " → ".join(self.path)

    @property
    def status(self) -> str:
        """The node's status for its newest attempt; an earlier one was ``retried`` (another attempt followed it)."""
        return self.node.status if self.files.last else "retried"

    @property
    def detail(self) -> str:
        """What a heading says after the name: ``(FAILED, attempt 2)``, or ``(run 0, attempt
        2)`` for a file of the run asked for."""
        when = f"run {self.files.run}" if self.of_run else self.status
        return f"({when}, attempt {self.files.attempt})"

    @property
    def heading(self) -> str:
        """The heading's text (each face draws its rule around it)."""
        return f"{self.name} {self.detail}"

    @property
    def attempt_text(self) -> str | None:
        """Which attempt of how many, for a node that has had more than one (else None):
        ``attempt 2 of up to 3`` while it may still be retried, ``attempt 2 of 2`` once it has
        ended (or has no retry left)."""
        if self.count <= 1:
            return None
        attempt = self.files.attempt
        if self.node.status not in NODE_TERMINAL and self.count < self.tries:
            return f"attempt {attempt} of up to {self.tries}"
        return f"attempt {attempt} of {self.count}"


@dataclass(frozen=True)
class Sections:
    """A job's log as sections, in order; ``subs``: the sub-workflow nodes followed into
    their children, as (node id, child workflow id); ``no_workflow``: as :class:`JobLog`'s."""

    sections: tuple[Section, ...]
    subs: tuple[tuple[str, str], ...] = ()
    no_workflow: str | None = None

    @property
    def headed(self) -> bool:
        """The one rule for every face: each section is headed when there are several."""
        return len(self.sections) > 1


def sections(
    store: Store,
    job_id: str,
    *,
    conn: sqlite3.Connection | None = None,
    by_start: bool = False,
    node_hint: bool = True,
) -> Sections:
    """The sections of the log of a workflow, a node or a coordinator action's workflow: every
    attempt of each node that ran (of a node asked for: its own, even before it runs), a
    sub-workflow node's being its child's nodes' (recursively). In definition order, or with
    ``by_start`` in the order the nodes started (the API's: its cap keeps the latest). Errors
    as :func:`log_nodes`; ``conn`` reads instead of the store's own connection."""
    conn = store.conn if conn is None else conn
    found = log_nodes(conn, job_id, node_hint=node_hint)
    if found.no_workflow is not None:
        return Sections((), no_workflow=found.no_workflow)
    top = list(found.nodes) if kind_of(job_id) is IdKind.WORKFLOW_NODE else found.ran
    out: list[Section] = []
    subs: list[tuple[str, str]] = []
    seen = {n.wf_id for n in top}

    def walk(nodes: list[NodeRow], prefix: tuple[str, ...]) -> None:
        if by_start:
            nodes = sorted(nodes, key=lambda n: n.started or 0)
        tries = _tries(conn, nodes[0].wf_id) if nodes else {}
        for node in nodes:
            path = (*prefix, node.name)
            child = sub_workflow_of(node)
            if child is not None and child not in seen:
                seen.add(child)
                subs.append((node.id, child))
                walk([n for n in jobs.workflow_nodes(conn, child) if n.attempt > 0], path)
                continue
            every = attempts(store, node)
            out.extend(Section(path, f, len(every), tries.get(node.name, 1)) for f in every)

    walk(top, ())
    return Sections(tuple(out), tuple(subs))


def run_sections(store: Store, nodes: list[NodeRow], run: int) -> Sections:
    """Run ``run``'s files of ``nodes`` (a rerun keeps the earlier runs'), attempt after attempt:
    the files found, headed by the same rule. A sub-workflow node has no files of its own
    (``bundletui log --run`` refuses one: its child's runs are the child's)."""
    return Sections(
        tuple(Section((n.name,), f, of_run=True) for n in nodes for f in attempts(store, n, run))
    )


def _tries(conn: sqlite3.Connection, wf_id: str) -> dict[str, int]:
    """How many attempts each node of ``wf_id`` may have: its capped ``retry-max`` + 1."""
    from bundletui.commands.nodes import app_of

    wf = jobs.get(conn, WorkflowRow, wf_id)
    if wf is None:
        return {}
    return {n.name: n.user_retry_max + 1 for n in app_of(wf.app).nodes}

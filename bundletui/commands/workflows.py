"""Workflow commands: submit, start, suspend, resume, kill, rerun.

The ``*_tx`` functions work inside a caller's transaction (the engine and the coordinator
commands compose them); the plain ones are what faces call (one transaction + audit row).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bundletui.commands.base import Ctx, fail, run
from bundletui.commands.effects import Effects
from bundletui.errors import CommandError
from bundletui.model import codec
from bundletui.model.apps import NodeType, WorkflowApp, WorkflowForm
from bundletui.model.clock import Clock
from bundletui.model.ids import JobKind, node_id
from bundletui.model.status import NodeStatus, WorkflowStatus
from bundletui.model.transitions import Event, Machine, decide, sources, target
from bundletui.model.wfgraph import suspend_point
from bundletui.store import jobs
from bundletui.store.db import Store, Tx
from bundletui.store.rows import NodeRow, WorkflowRow

W = WorkflowStatus
N = NodeStatus


@dataclass(frozen=True)
class WorkflowSubmission:
    """A resolved workflow, ready to store (what the spec layer's loader returns)."""

    app: WorkflowApp
    conf: Mapping[str, str]
    definition: str
    app_path: str
    user: str
    external_id: str | None = None
    priority: int = 0  # higher launches first when the engine's worker limit is reached
    app_json: str | None = None  # ``app`` serialized, when the caller already has it


def load_subworkflow(
    app_path: str,
    conf: Mapping[str, str],
    *,
    user: str,
    external_id: str | None,
    base_dir: str | Path,
    clock: Clock,
) -> WorkflowSubmission:
    """A sub-workflow action's child, as a submission, resolved on the engine's clock (the spec
    layer is loaded on first use)."""
    from bundletui.spec.load import resolve_app_path
    from bundletui.spec.xmlsafe import AppKind

    path = resolve_app_path(app_path, AppKind.WORKFLOW, base_dir)
    return _loaded(path, conf, clock, user=user, external_id=external_id)


def reread(wf: WorkflowRow, conf: Mapping[str, str], clock: Clock) -> WorkflowSubmission:
    """The workflow as its file says now, resolved against ``conf``: a rerun runs what was
    edited since (Oozie's ReRunXCommand parses the application again); a file that is gone or
    no longer valid refuses the rerun with the spec layer's error."""
    return _loaded(wf.app_path, conf, clock, user=wf.user, external_id=None)


def _loaded(
    path: str | Path,
    conf: Mapping[str, str],
    clock: Clock,
    *,
    user: str,
    external_id: str | None,
) -> WorkflowSubmission:
    from bundletui.spec.load import load_app
    from bundletui.spec.xmlsafe import AppKind

    loaded = load_app(path, conf, clock, kinds=(AppKind.WORKFLOW,))
    assert isinstance(loaded.app, WorkflowApp)
    return WorkflowSubmission(
        app=loaded.app,
        conf=loaded.conf,
        definition=loaded.definition,
        app_path=loaded.app_path,
        user=user,
        external_id=external_id,
    )


def work_dir(store: Store, wf_id: str) -> Path:
    return Path(work_dir_text(store, wf_id))


def work_dir_text(store: Store, wf_id: str) -> str:
    """:func:`work_dir` as text, without pathlib (written with every new workflow)."""
    return os.path.join(store.home, "work", wf_id)


def log_dir(store: Store, wf_id: str) -> Path:
    return store.home / "logs" / wf_id


def attempt_paths(log_dir: Path, name: str, run: int, attempt: int) -> tuple[str, str, str]:
    """An attempt's stdout, stderr and exit record: the engine writes them, the faces read them."""
    base = log_dir / f"{name}.{run}.{attempt}"
    return f"{base}.out", f"{base}.err", f"{base}.exit"


def create_workflow_tx(
    tx: Tx,
    store: Store,
    effects: Effects,
    sub: WorkflowSubmission,
    *,
    start: bool,
    parent_id: str | None = None,
) -> str:
    """Write a workflow job (PREP, or RUNNING when ``start``) and its nodes (WAITING; a started
    DAG's roots READY, since its first pass would only make them so)."""
    wf_id = store.next_id(tx, JobKind.WORKFLOW, sub.user)
    created = decide(Machine.WORKFLOW, None, Event.SUBMIT).to
    status = decide(Machine.WORKFLOW, created, Event.START).to if start else created
    jobs.insert(
        tx,
        WorkflowRow,
        {
            "id": wf_id,
            "app_name": sub.app.name,
            "app_path": sub.app_path,
            "form": str(sub.app.form),
            "parent_id": parent_id,
            "external_id": sub.external_id,
            "user": sub.user,
            "status": str(status),
            "run": 0,
            "priority": sub.priority,
            "work_dir": work_dir_text(store, wf_id),
            "created_time": tx.now_ms,
            "start_time": tx.now_ms if start else None,
            "conf": json.dumps(dict(sub.conf)),
            "definition": sub.definition,
            "app": sub.app_json or codec.dumps(sub.app),
        },
    )
    roots: list[str] = []
    if start and sub.app.form is WorkflowForm.DAG:
        roots = [n.name for n in sub.app.nodes if not n.depends]
        if suspend_point(sub.conf, roots) is not None:
            # held before a root: the engine's first pass readies them and suspends the job,
            # once whatever launched it (a coordinator action) has recorded it and can follow
            roots = []
    is_root = set(roots)
    waiting = decide(Machine.NODE, None, Event.SUBMIT).to
    ready = decide(Machine.NODE, waiting, Event.DEPS_MET).to
    jobs.insert_nodes(
        tx,
        [
            (
                node_id(wf_id, n.name),
                wf_id,
                n.name,
                str(n.type),
                ready if n.name in is_root else waiting,
            )
            for n in sub.app.nodes
        ],
    )
    if roots:
        effects.nodes_ready(tx, wf_id, sub.priority, [node_id(wf_id, r) for r in roots])
    elif start:
        effects.advance_workflow(tx, wf_id)
    return wf_id


def submit_workflow(ctx: Ctx, sub: WorkflowSubmission, *, start: bool = False) -> str:
    """Store a workflow job; the same external id again returns the first job and stores
    nothing (with ``start``, a first job still in PREP is started)."""

    def body(tx: Tx) -> str:
        ctx.reused = None
        if sub.external_id:
            existing = jobs.workflow_by_external_id(tx.conn, sub.external_id)
            if existing is not None:
                if start and existing.status == W.PREP:  # "submit and start": it is started
                    start_tx(tx, ctx.effects, existing)
                ctx.reused = existing.id
                return existing.id
        return create_workflow_tx(tx, ctx.store, ctx.effects, sub, start=start)

    args = {"app_path": sub.app_path, "start": start, "external_id": sub.external_id}
    return run(ctx, "submit", None, args, body)


def load(tx: Tx, wf_id: str) -> WorkflowRow:
    row = jobs.get(tx.conn, WorkflowRow, wf_id)
    if row is None:
        raise fail("E0604", wf_id, hint="list workflows with: bundletui jobs --type workflow")
    return row


def start_tx(tx: Tx, effects: Effects, wf: WorkflowRow) -> None:
    t = decide(Machine.WORKFLOW, wf.status, Event.START, wf.id)
    jobs.update(tx, WorkflowRow, wf.id, status=t.to, start_time=tx.now_ms)
    effects.advance_workflow(tx, wf.id)


def start(ctx: Ctx, wf_id: str) -> None:
    run(ctx, "start", wf_id, None, lambda tx: start_tx(tx, ctx.effects, load(tx, wf_id)))


def suspend_tx(tx: Tx, effects: Effects, wf: WorkflowRow, *, freeze: bool = False) -> None:
    t = decide(Machine.WORKFLOW, wf.status, Event.SUSPEND, wf.id)
    jobs.update(tx, WorkflowRow, wf.id, status=t.to, suspend_mode="freeze" if freeze else "drain")
    if freeze:
        effects.signal_workflow(tx, wf.id, "stop")
    for child in _running_children(tx, wf.id):
        if child.status == W.RUNNING:
            suspend_tx(tx, effects, child, freeze=freeze)
    _tell_parent(tx, effects, wf, t.to)


def suspend(ctx: Ctx, wf_id: str, *, freeze: bool = False) -> None:
    run(
        ctx,
        "suspend",
        wf_id,
        {"freeze": freeze},
        lambda tx: suspend_tx(tx, ctx.effects, load(tx, wf_id), freeze=freeze),
    )


def resume_tx(tx: Tx, effects: Effects, wf: WorkflowRow) -> None:
    t = decide(Machine.WORKFLOW, wf.status, Event.RESUME, wf.id)
    jobs.update(tx, WorkflowRow, wf.id, status=t.to, suspend_mode=None)
    if wf.suspend_mode == "freeze":
        effects.signal_workflow(tx, wf.id, "continue")
    for child in _running_children(tx, wf.id):
        if child.status == W.SUSPENDED:
            resume_tx(tx, effects, child)
    effects.advance_workflow(tx, wf.id)
    _tell_parent(tx, effects, wf, t.to)


def _tell_parent(tx: Tx, effects: Effects, wf: WorkflowRow, status: str) -> None:
    """A coordinator action follows its workflow into SUSPENDED and back (oozie.md §2.4), also
    when the workflow itself was suspended; from a coordinator's suspend it already has."""
    if wf.parent_id:
        from bundletui.commands.propagate import workflow_finished

        workflow_finished(tx, effects, jobs.updated(tx, wf, status=status))


def resume(ctx: Ctx, wf_id: str) -> None:
    run(ctx, "resume", wf_id, None, lambda tx: resume_tx(tx, ctx.effects, load(tx, wf_id)))


def kill_tx(tx: Tx, effects: Effects, wf: WorkflowRow, *, message: str | None = None) -> None:
    """KILLED now; nodes that wait are killed, running ones are killed by the engine."""
    t = decide(Machine.WORKFLOW, wf.status, Event.KILL, wf.id)
    jobs.update(
        tx,
        WorkflowRow,
        wf.id,
        status=t.to,
        end_time=tx.now_ms,
        error_message=message or wf.error_message,
    )
    # the nodes the table lets a kill reach, but RUNNING ones (the engine's signal kills those,
    # one by one): a node waiting out its retry interval has run, its kill ends it; the others
    # never started
    idle = sources(Machine.NODE, Event.KILL) - {N.RUNNING}
    jobs.end_nodes_in(tx, wf.id, idle, target(Machine.NODE, idle, Event.KILL))
    if jobs.running_node_count(tx.conn, wf.id):
        effects.signal_workflow(tx, wf.id, "kill")
    for child in _running_children(tx, wf.id):
        if child.status not in (W.SUCCEEDED, W.FAILED, W.KILLED):
            kill_tx(tx, effects, child)
    from bundletui.commands.propagate import workflow_finished

    workflow_finished(tx, effects, jobs.must_get(tx.conn, WorkflowRow, wf.id))


def kill(ctx: Ctx, wf_id: str) -> None:
    run(ctx, "kill", wf_id, None, lambda tx: kill_tx(tx, ctx.effects, load(tx, wf_id)))


def rerun_tx(
    tx: Tx,
    effects: Effects,
    wf: WorkflowRow,
    *,
    skip_nodes: Iterable[str] = (),
    failed_nodes: bool = False,
    conf: Mapping[str, str] | None = None,
    clock: Clock | None = None,
) -> None:
    """Same id, ``run`` + 1: re-run the failed nodes (or all but ``skip_nodes``). ``conf`` is
    laid over the workflow's (Oozie's DagEngine.reRun copies the rerun's properties over the
    job's), so the re-run nodes see the new values. With a ``clock``, the definition is read
    again from its file (:func:`reread`): nodes it added are created, nodes it dropped are
    deleted; skipped nodes must still be in it."""
    skip = set(skip_nodes)
    if skip and failed_nodes:
        raise CommandError(
            "E0404",
            "skip nodes and failed nodes cannot both be given",
            hint="use either --skip-nodes a,b or --failed-nodes",
            usage=True,
        )
    t = decide(Machine.WORKFLOW, wf.status, Event.RERUN, wf.id)
    nodes = jobs.workflow_nodes(tx.conn, wf.id)
    names = {n.name for n in nodes}
    unknown = skip - names
    if unknown:
        raise CommandError(
            "E0302",
            f"Invalid parameter [skip nodes {', '.join(sorted(unknown))}]: no such node in {wf.id}",
            hint=f"nodes are: {', '.join(sorted(names))}",
        )
    not_done = sorted(n.name for n in nodes if n.name in skip and n.status != N.SUCCEEDED)
    if not_done:
        raise CommandError(
            "E0805",
            f"nodes to skip must have completed successfully: {', '.join(not_done)}",
            hint="skip only nodes whose status is SUCCEEDED",
        )
    from bundletui.spec.config import expand_conf

    merged = expand_conf({**json.loads(wf.conf), **conf}) if conf else json.loads(wf.conf)
    fields: dict[str, object] = {"conf": json.dumps(merged)} if conf else {}
    if clock is None:
        app = codec.loads(wf.app, WorkflowApp)
    else:
        sub = reread(wf, merged, clock)
        app = sub.app
        nodes = _reconcile_nodes(tx, wf, app, nodes, skip)
        fields |= {
            "app": codec.dumps(app),
            "definition": sub.definition,
            "app_name": app.name,
            "form": str(app.form),
            "conf": json.dumps(dict(sub.conf)),
        }
    keep = skip | ({n.name for n in nodes if n.status == N.SUCCEEDED} if failed_nodes else set())
    control = {n.name for n in app.nodes if n.type is not NodeType.ACTION}
    for n in nodes:
        if n.name in keep and n.name not in control:
            continue
        if n.status == N.RUNNING and n.pid is not None:
            # its kill is still queued for the engine, which finds jobs by their nodes' pids:
            # kept apart, so that the kill (or an engine start) still reaches this job
            jobs.watch_kill(tx, n.pid, wf.id, n.name)
        again = decide(Machine.NODE, n.status, Event.RERUN, n.id)
        jobs.update(
            tx,
            NodeRow,
            n.id,
            status=again.to,
            attempt=0,
            run=wf.run + 1,
            pid=None,
            start_ticks=None,
            started=None,
            ended=None,
            due_time=None,
            exit_code=None,
            error_code=None,
            error_message=None,
            transition=None,
            external_id=None,
        )
    jobs.update(
        tx,
        WorkflowRow,
        wf.id,
        status=t.to,
        run=wf.run + 1,
        end_time=None,
        error_code=None,
        error_message=None,
        start_time=tx.now_ms,
        **fields,
    )
    effects.advance_workflow(tx, wf.id)


def _reconcile_nodes(
    tx: Tx, wf: WorkflowRow, app: WorkflowApp, nodes: list[NodeRow], skip: set[str]
) -> list[NodeRow]:
    """The workflow's node rows made to match a definition read again: rows of nodes it no
    longer has are deleted, its new nodes get WAITING rows, a node whose kind changed keeps
    its row with the new kind."""
    kinds = {n.name: str(n.type) for n in app.nodes}
    gone = sorted(skip - kinds.keys())
    if gone:
        raise CommandError(
            "E0302",
            f"Invalid parameter [skip nodes {', '.join(gone)}]: not in {wf.app_path} any more",
            hint=f"its nodes are: {', '.join(sorted(kinds))}",
        )
    have = {n.name for n in nodes}
    dropped = [n.id for n in nodes if n.name not in kinds]
    if dropped:
        jobs.delete_nodes(tx, dropped)
    created = decide(Machine.NODE, None, Event.SUBMIT).to
    jobs.insert_nodes(
        tx,
        [
            (node_id(wf.id, name), wf.id, name, kind, created)
            for name, kind in kinds.items()
            if name not in have
        ],
    )
    for n in nodes:
        if n.name in kinds and n.type != kinds[n.name]:
            jobs.update(tx, NodeRow, n.id, type=kinds[n.name])
    return jobs.workflow_nodes(tx.conn, wf.id)


RERUN_KEYS = ("oozie.wf.rerun.skip.nodes", "oozie.wf.rerun.failnodes")


def rerun_keys(conf: Mapping[str, str]) -> tuple[list[str], bool]:
    """Oozie's rerun properties in a rerun's conf: the nodes to skip, and whether only the
    failed nodes run again (the Oozie front and the HTTP API read them so). One of the two
    must be given, as Oozie's DagEngine requires: a forgotten ``-D`` would run again nodes
    that succeeded (an empty skip list is how every node is run again)."""
    given = [key for key in RERUN_KEYS if key in conf]
    if not given:
        raise CommandError(
            "E0401",
            f"Missing configuration property [{' OR '.join(RERUN_KEYS)}]",
            hint=f"-D {RERUN_KEYS[1]}=true runs the failed nodes again; "
            f"-D {RERUN_KEYS[0]}=a,b all but a and b ({RERUN_KEYS[0]}= : every node)",
        )
    if len(given) == 2:
        raise CommandError(
            "E0404",
            f"Only one of the properties are allowed [{' OR '.join(RERUN_KEYS)}]",
            hint="give the nodes to skip or failnodes, not both",
            usage=True,  # on the command line, as --skip-nodes with --failed-nodes
        )
    skip_text, failed_text = (conf.get(key, "") for key in RERUN_KEYS)
    skip = [s.strip() for s in skip_text.split(",") if s.strip()]
    failed = failed_text.strip().lower()
    if RERUN_KEYS[1] in given and failed not in ("true", "false"):
        # Hadoop reads anything but "true" as false, and false reruns every node, those that
        # succeeded too: a typo ("yes") is refused rather than read so
        raise CommandError.from_template(
            "E0303",
            RERUN_KEYS[1],
            failed_text,
            hint=f"{RERUN_KEYS[1]}=true runs the failed nodes again; "
            f"{RERUN_KEYS[0]}= (empty) runs every node",
            usage=True,
        )
    return skip, failed == "true"


def rerun(
    ctx: Ctx,
    wf_id: str,
    *,
    skip_nodes: Iterable[str] = (),
    failed_nodes: bool = False,
    conf: Mapping[str, str] | None = None,
) -> None:
    skip = list(skip_nodes)
    if conf and any(key in conf for key in RERUN_KEYS):
        # Oozie's spelling (-D oozie.wf.rerun.failnodes=true), checked as the Oozie front and
        # the API check it; with the options too, they must say the same
        from_conf = rerun_keys(conf)
        if (skip or failed_nodes) and (sorted(skip), failed_nodes) != (
            sorted(from_conf[0]),
            from_conf[1],
        ):
            raise CommandError(
                "E0404",
                f"Only one of the properties are allowed [{' OR '.join(RERUN_KEYS)}]: the"
                " options --skip-nodes/--failed-nodes and the -D properties say different"
                " things",
                hint="give the nodes to skip (or failed nodes only) one way, not both",
                usage=True,
            )
        skip, failed_nodes = from_conf
    # the rerun's own keys steer this rerun only; the application path cannot change
    new = {
        k: v
        for k, v in (conf or {}).items()
        if k not in RERUN_KEYS and k != "oozie.wf.application.path"
    }
    args: dict[str, object] = {"skip_nodes": skip, "failed_nodes": failed_nodes}
    if new:
        args["conf"] = new
    run(
        ctx,
        "rerun",
        wf_id,
        args,
        lambda tx: rerun_tx(
            tx,
            ctx.effects,
            load(tx, wf_id),
            skip_nodes=skip,
            failed_nodes=failed_nodes,
            conf=new,
            clock=ctx.store.clock,
        ),
    )


def _running_children(tx: Tx, wf_id: str) -> list[WorkflowRow]:
    return jobs.children_workflows(tx.conn, wf_id)

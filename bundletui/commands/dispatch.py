"""One entry per user command, routed by the kind of id (Oozie's suffix rules, oozie.md §0.3).

The CLI, the console and the HTTP API call these, so a rule is never written twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from bundletui.commands import workflows as wf
from bundletui.commands.base import Ctx, fail
from bundletui.errors import CommandError, ModelError
from bundletui.model.ids import IdKind, kind_of


def _kind(job_id: str) -> IdKind:
    kind = kind_of(job_id)
    if kind is None:
        raise fail(
            "E0604", job_id, hint="ids end in -B (bundle), -C (coordinator) or -W (workflow)"
        )
    return kind


def start(ctx: Ctx, job_id: str, *, started_ok: bool = False) -> None:
    """``started_ok``: a bundle that already started (by itself, with no kick-off time) is
    left as it is, as Oozie's BundleStartXCommand drops the start (its failed precondition
    logged, the call answered 200); the audit log keeps the refusal. Clients that submit and
    then start, as oozie-api does, rely on it; the CLI's ``start`` says it instead."""
    kind = _kind(job_id)
    if kind is IdKind.WORKFLOW:
        wf.start(ctx, job_id)
    elif kind is IdKind.BUNDLE:
        from bundletui.commands import bundles

        try:
            bundles.start(ctx, job_id)
        except (CommandError, ModelError) as exc:
            if not (started_ok and exc.code == "E1100" and bundles.has_started(ctx, job_id)):
                raise
    else:
        # QA: a node or an action was told that coordinators start at their start time
        how = {
            IdKind.COORDINATOR: "a coordinator starts at its start time",
            IdKind.COORD_ACTION: "a coordinator's action starts when its inputs and a slot allow",
            IdKind.WORKFLOW_NODE: "a node starts when its workflow reaches it",
        }[kind]
        raise fail(
            "E0303",
            "action",
            "start",
            hint=f"{how}; bundles and workflows can be started",
            usage=True,  # the id's kind alone shows it, as suspend W@node (exit 2)
        )


def suspend(
    ctx: Ctx,
    job_id: str,
    *,
    freeze: bool = False,
    actions: str | None = None,
    dates: str | None = None,
) -> list[str]:
    """A job; or chosen actions of a coordinator (a scope, or a ``C@n`` id): their
    workflows. Returns the actions it suspended."""
    return _hold(ctx, job_id, False, actions, dates, freeze=freeze)


def resume(
    ctx: Ctx, job_id: str, *, actions: str | None = None, dates: str | None = None
) -> list[str]:
    return _hold(ctx, job_id, True, actions, dates)


def _hold(
    ctx: Ctx,
    job_id: str,
    resume: bool,
    actions: str | None,
    dates: str | None,
    *,
    freeze: bool = False,
) -> list[str]:
    from bundletui.commands import coordinators, jobctl

    kind = _kind(job_id)
    if kind is IdKind.COORD_ACTION and actions is None and dates is None:
        job_id, _, actions = job_id.rpartition("@")
        kind = IdKind.COORDINATOR
    if actions is not None or dates is not None:
        if kind is not IdKind.COORDINATOR:
            raise fail(
                "E0302",
                f"{'resume' if resume else 'suspend'} with an action scope of {job_id}",
                hint="--action/--date apply to a coordinator id",
                usage=True,
            )
        return coordinators.hold_actions(
            ctx, job_id, resume=resume, actions=actions, dates=dates, freeze=freeze
        )
    if kind is IdKind.WORKFLOW:
        if resume:
            wf.resume(ctx, job_id)
        else:
            wf.suspend(ctx, job_id, freeze=freeze)
    elif resume:
        jobctl.resume(ctx, job_id, kind)
    else:
        jobctl.suspend(ctx, job_id, kind, freeze=freeze)
    return []


def kill(ctx: Ctx, job_id: str) -> None:
    kind = _kind(job_id)
    if kind is IdKind.WORKFLOW:
        wf.kill(ctx, job_id)
    else:
        from bundletui.commands import jobctl

        jobctl.kill(ctx, job_id, kind)


BULK_OPS = ("kill", "suspend", "resume")


def bulk(ctx: Ctx, op: str, job_ids: Iterable[str]) -> list[str]:
    """Oozie's bulk kill / suspend / resume: a job whose status does not allow ``op`` is
    skipped; what refuses every job (SAFEMODE's E0002, a locked store) stops the command, so
    it never reads as "no job matched". Returns the jobs it applied to."""
    ops: dict[str, Callable[[Ctx, str], object]] = {
        "kill": kill,
        "suspend": suspend,
        "resume": resume,
    }
    fn = ops[op]
    done = []
    for job_id in job_ids:
        try:
            fn(ctx, job_id)
        except (CommandError, ModelError) as exc:
            if exc.code == "E0002":
                raise
            continue
        done.append(job_id)
    return done


def change(ctx: Ctx, job_id: str, value: str) -> None:
    kind = _kind(job_id)
    if kind is IdKind.BUNDLE:
        from bundletui.commands import bundles

        bundles.change(ctx, job_id, value)
    elif kind is IdKind.COORDINATOR:
        from bundletui.commands import coordinators

        coordinators.change(ctx, job_id, value)
    else:
        raise fail(
            "E0302",
            f"change of {job_id}",
            hint="change applies to coordinators (endtime, concurrency, pausetime, status) and bundles (pausetime, endtime)",
            usage=True,
        )


def ignore(
    ctx: Ctx, job_id: str, *, actions: str | None = None, dates: str | None = None
) -> list[str]:
    kind = _kind(job_id)
    if kind is IdKind.COORD_ACTION:
        job_id, _, number = job_id.rpartition("@")
        actions = number
    elif kind is not IdKind.COORDINATOR:
        raise fail(
            "E0302",
            f"ignore of {job_id}",
            hint="only coordinators and their actions can be ignored",
            usage=True,
        )
    from bundletui.commands import coordinators

    return coordinators.ignore(ctx, job_id, actions=actions, dates=dates)


def kill_actions(
    ctx: Ctx, coord_id: str, *, actions: str | None = None, dates: str | None = None
) -> list[str]:
    if _kind(coord_id) is not IdKind.COORDINATOR:
        raise fail(
            "E0302",
            f"kill with an action scope of {coord_id}",
            hint="--action/--date apply to a coordinator id",
            usage=True,
        )
    from bundletui.commands import coordinators

    return coordinators.kill(ctx, coord_id, actions=actions, dates=dates)


_RERUN_OPTIONS: dict[IdKind, tuple[str, ...]] = {
    IdKind.WORKFLOW: ("--skip-nodes", "--failed-nodes", "-D/--config"),
    IdKind.COORDINATOR: (
        "--action",
        "--date",
        "--refresh",
        "--nocleanup",
        "--failed",
        "-D/--config",
    ),
    IdKind.BUNDLE: ("--coordinator", "--date", "--refresh", "--nocleanup"),
}


def rerun(
    ctx: Ctx,
    job_id: str,
    *,
    skip_nodes: list[str] | None = None,
    failed_nodes: bool = False,
    actions: str | None = None,
    dates: str | None = None,
    coordinators: str | None = None,
    refresh: bool = False,
    nocleanup: bool = False,
    failed: bool = False,
    conf: Mapping[str, str] | None = None,
    notes: list[str] | None = None,
) -> list[str]:
    """``conf``: new properties (-D / --config), laid over a workflow's own, or over the
    configuration each re-run coordinator action gives its workflow. ``notes``: gets what a
    bundle's rerun by dates passed over, and why, or the coordinator actions LAST_ONLY / NONE
    will skip at once, for the face to tell."""
    kind = _kind(job_id)
    given = {
        "--skip-nodes": bool(skip_nodes),
        "--failed-nodes": failed_nodes,
        "--action": actions is not None,
        "--date": dates is not None,
        "--coordinator": coordinators is not None,
        "--refresh": refresh,
        "--nocleanup": nocleanup,
        "--failed": failed,
        "-D/--config": bool(conf),
    }
    allowed = _RERUN_OPTIONS.get(kind, ())
    wrong = [name for name, on in given.items() if on and name not in allowed]
    if allowed and wrong:  # other kinds of id are refused below
        raise CommandError(
            "E0302",
            f"Invalid parameter [{', '.join(wrong)}]: not an option for a {kind.name.lower()}'s rerun",
            hint=f"a {kind.name.lower()}'s rerun takes {', '.join(allowed)}",
            usage=True,
        )
    if kind is IdKind.WORKFLOW:
        wf.rerun(ctx, job_id, skip_nodes=skip_nodes or [], failed_nodes=failed_nodes, conf=conf)
        return [job_id]
    if kind is IdKind.COORDINATOR:
        from bundletui.commands import coordinators as c

        return c.rerun(
            ctx,
            job_id,
            actions=actions,
            dates=dates,
            refresh=refresh,
            nocleanup=nocleanup,
            failed=failed,
            # ``user.name`` is who asks (clients send it with every body), not a property
            conf={k: v for k, v in (conf or {}).items() if k != "user.name"},
            notes=notes,
        )
    if kind is IdKind.BUNDLE:
        from bundletui.commands import bundles

        queued, passed = bundles.rerun(
            ctx,
            job_id,
            coordinators=coordinators,
            dates=dates,
            refresh=refresh,
            nocleanup=nocleanup,
        )
        if notes is not None:
            unknown = bundles.unknown_coordinators_note(ctx.store.conn, job_id, coordinators)
            notes += [unknown] if unknown else []
            notes += [f"passed over coordinator {why}" for why in passed]
        return [job_id, *queued]  # the coordinators whose rerun the engine runs (E1018: none)
    raise fail(
        "E0302",
        f"rerun of {job_id}",
        hint="rerun a workflow, a coordinator (--action/--date) or a bundle (--coordinator/--date)",
        usage=True,
    )

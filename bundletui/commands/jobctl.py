"""suspend / resume / kill for bundles, coordinators and single coordinator actions."""

from __future__ import annotations

from bundletui.commands import bundles
from bundletui.commands import coordinators as coords
from bundletui.commands.base import Ctx, fail, run
from bundletui.model.ids import IdKind


def _split_action(action_id: str) -> tuple[str, str]:
    coord_id, _, number = action_id.rpartition("@")
    return coord_id, number


def suspend(ctx: Ctx, job_id: str, kind: IdKind, *, freeze: bool = False) -> None:
    """``freeze``: the running workflows under the job are frozen (SIGSTOP), not drained."""
    if kind is IdKind.BUNDLE:
        bundles.suspend(ctx, job_id, freeze=freeze)
    elif kind is IdKind.COORDINATOR:
        run(
            ctx,
            "suspend",
            job_id,
            {"freeze": True} if freeze else None,
            lambda tx: coords.suspend_tx(tx, ctx.effects, coords.load(tx, job_id), freeze=freeze),
        )
    else:
        raise fail(
            "E0302",
            f"suspend of {job_id}",
            hint=_whole_job_hint("suspend", job_id, kind),
            usage=True,
        )


def resume(ctx: Ctx, job_id: str, kind: IdKind) -> None:
    if kind is IdKind.BUNDLE:
        bundles.resume(ctx, job_id)
    elif kind is IdKind.COORDINATOR:
        run(
            ctx,
            "resume",
            job_id,
            None,
            lambda tx: coords.resume_tx(tx, ctx.effects, coords.load(tx, job_id)),
        )
    else:
        raise fail(
            "E0302", f"resume of {job_id}", hint=_whole_job_hint("resume", job_id, kind), usage=True
        )


def _whole_job_hint(verb: str, job_id: str, kind: IdKind) -> str:
    """What to give instead: a node's workflow; an action's coordinator (``--action N``) or
    its workflow."""
    if kind is IdKind.WORKFLOW_NODE:
        return f"{verb} its workflow: bundletui {verb} {job_id.rpartition('@')[0]}"
    if kind is IdKind.COORD_ACTION:
        coord, _, number = job_id.rpartition("@")
        return (
            f"{verb} the action: bundletui {verb} {coord} --action {number}; or its workflow"
            f" (bundletui info {job_id} shows its id)"
        )
    return f"{verb} a bundle (…-B), a coordinator (…-C) or a workflow (…-W)"


def kill(ctx: Ctx, job_id: str, kind: IdKind) -> None:
    if kind is IdKind.BUNDLE:
        bundles.kill(ctx, job_id)
    elif kind is IdKind.COORDINATOR:
        coords.kill(ctx, job_id)
    elif kind is IdKind.COORD_ACTION:
        coord_id, number = _split_action(job_id)
        coords.kill(ctx, coord_id, actions=number)
    else:
        raise fail("E0302", f"kill of {job_id}", hint="kill the workflow it belongs to", usage=True)

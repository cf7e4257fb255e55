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
            hint="suspend the coordinator, or the action's workflow (bundletui info shows its id)",
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
            "E0302",
            f"resume of {job_id}",
            hint="resume the coordinator, or the action's workflow",
            usage=True,
        )


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

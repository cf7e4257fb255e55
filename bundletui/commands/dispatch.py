"""One entry per user command, routed by the kind of id (Oozie's suffix rules, oozie.md §0.3).

The CLI, the console and the HTTP API call these, so a rule is never written twice.
"""

from __future__ import annotations

from bundletui.commands import workflows as wf
from bundletui.commands.base import Ctx, fail
from bundletui.model.ids import IdKind, kind_of


def _kind(job_id: str) -> IdKind:
    kind = kind_of(job_id)
    if kind is None:
        raise fail(
            "E0604", job_id, hint="ids end in -B (bundle), -C (coordinator) or -W (workflow)"
        )
    return kind


def start(ctx: Ctx, job_id: str) -> None:
    kind = _kind(job_id)
    if kind is IdKind.WORKFLOW:
        wf.start(ctx, job_id)
    elif kind is IdKind.BUNDLE:
        from bundletui.commands import bundles

        bundles.start(ctx, job_id)
    else:
        raise fail(
            "E0303",
            "action",
            "start",
            hint="coordinators start at their start time; bundles and workflows can be started",
        )


def suspend(ctx: Ctx, job_id: str, *, freeze: bool = False) -> None:
    kind = _kind(job_id)
    if kind is IdKind.WORKFLOW:
        wf.suspend(ctx, job_id, freeze=freeze)
    else:
        from bundletui.commands import jobctl

        jobctl.suspend(ctx, job_id, kind)


def resume(ctx: Ctx, job_id: str) -> None:
    kind = _kind(job_id)
    if kind is IdKind.WORKFLOW:
        wf.resume(ctx, job_id)
    else:
        from bundletui.commands import jobctl

        jobctl.resume(ctx, job_id, kind)


def kill(ctx: Ctx, job_id: str) -> None:
    kind = _kind(job_id)
    if kind is IdKind.WORKFLOW:
        wf.kill(ctx, job_id)
    else:
        from bundletui.commands import jobctl

        jobctl.kill(ctx, job_id, kind)

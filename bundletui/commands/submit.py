"""Submitting any loaded application: workflow, coordinator or bundle (routed by kind)."""

from __future__ import annotations

from bundletui.commands import workflows as wf
from bundletui.commands.base import Ctx
from bundletui.spec.load import Loaded
from bundletui.spec.xmlsafe import AppKind


def submit_loaded(ctx: Ctx, loaded: Loaded, *, start: bool = False) -> str:
    """Store the job (PREP, or started when ``start``); returns its id."""
    if loaded.kind is AppKind.WORKFLOW:
        sub = wf.WorkflowSubmission(
            app=loaded.app,
            conf=loaded.conf,
            definition=loaded.definition,
            app_path=loaded.app_path,
            user=loaded.user,
            external_id=loaded.external_id,
        )
        return wf.submit_workflow(ctx, sub, start=start)
    if loaded.kind is AppKind.COORDINATOR:
        from bundletui.commands import coordinators

        return coordinators.submit(ctx, loaded)
    from bundletui.commands import bundles

    return bundles.submit(ctx, loaded, start=start)

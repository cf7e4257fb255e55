"""Submitting any loaded application: workflow, coordinator or bundle (routed by kind)."""

from __future__ import annotations

from bundletui.commands import workflows as wf
from bundletui.commands.base import Ctx
from bundletui.model.apps import CoordinatorApp
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
        from bundletui.commands.schedules import check_schedules

        # registering its feeds checks the store's schedules again, in the submit's transaction
        check_schedules(ctx.store.conn, [loaded.app])
        return coordinators.submit(ctx, loaded)
    from bundletui.commands import bundles
    from bundletui.commands.schedules import check_schedules
    from bundletui.spec.load import check_bundle_coordinators

    # a feed on a path an unfinished schedule watches with another done-flag: refused before
    # anything is stored (the bundle's own coordinators are checked against each other there)
    coords = check_bundle_coordinators(loaded, ctx.store.clock)
    check_schedules(ctx.store.conn, [c.app for c in coords])
    return bundles.submit(ctx, loaded, start=start)


def schedule_apps(loaded: Loaded) -> list[tuple[CoordinatorApp, str | None]]:
    """The event coordinators a submission holds (itself, or a bundle's enabled ones), each
    with the ``landing`` its own conf gives (what ``${landing}`` meant in its feeds)."""
    if loaded.kind is AppKind.COORDINATOR:
        items = [loaded]
    elif loaded.kind is AppKind.BUNDLE:
        items = list(loaded.coordinators)
    else:
        return []
    return [(c.app, c.conf.get("landing")) for c in items if c.app.events is not None]

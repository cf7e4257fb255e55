"""Submitting any loaded application: workflow, coordinator or bundle (routed by kind)."""

from __future__ import annotations

import sqlite3

from bundletui.commands import workflows as wf
from bundletui.commands.base import Ctx
from bundletui.model.apps import CoordinatorApp
from bundletui.spec.load import Loaded
from bundletui.spec.xmlsafe import AppKind
from bundletui.store import jobs
from bundletui.store.rows import BundleRow, CoordRow, WorkflowRow


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


def submit_noting(ctx: Ctx, loaded: Loaded, *, start: bool = False) -> tuple[str, str | None]:
    """:func:`submit_loaded`, and the note to give when its external id returned an earlier
    job: decided by the submit's own transaction, so a twin submit (two scripts retrying at
    once) that lost the race is told, and the one that stored the job is not."""
    before = resubmission_note(ctx.store.conn, loaded, start=start)
    job_id = submit_loaded(ctx, loaded, start=start)
    if ctx.reused != job_id:
        return job_id, None
    return job_id, before or resubmission_note(ctx.store.conn, loaded)


def resubmission_note(
    conn: sqlite3.Connection, loaded: Loaded, *, start: bool = False
) -> str | None:
    """Before a submit: when its external id names a job of its kind already, the note that
    says the submit will return that job and store nothing (starting it, with ``start``, if
    it is a bundle or workflow still in PREP), and whether the application differs (a reused
    key, not a retry)."""
    if not loaded.external_id:
        return None
    table: type[BundleRow | CoordRow | WorkflowRow] = {
        AppKind.WORKFLOW: WorkflowRow,
        AppKind.COORDINATOR: CoordRow,
        AppKind.BUNDLE: BundleRow,
    }[loaded.kind]
    earlier = jobs.job_by_external_id(conn, table, loaded.external_id)
    if earlier is None:
        return None
    started = start and loaded.kind is not AppKind.COORDINATOR and earlier.status == "PREP"
    note = (
        f"note: external id {loaded.external_id} names {earlier.id} ({earlier.app_name}),"
        f" submitted before: that job is returned{', and started (it was PREP)' if started else ''};"
        " nothing new is stored"
    )
    if (earlier.app_name, earlier.app_path) != (loaded.app.name, loaded.app_path):
        note += (
            f"; this submission's application ({loaded.app.name}, {loaded.app_path}) is"
            " another: give it its own --external-id"
        )
    return note


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

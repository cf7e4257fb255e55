"""A bundle change a coordinator would refuse fails the whole command with E1320 (oozie.md §1.5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundletui.commands import bundles
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.errors import CommandError
from bundletui.model.clock import SimulatedClock
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.load import load_job
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import BundleRow, CoordRow
from tests.commands.sample_apps import ActionSpec, add_actions

FEEDS = Path(__file__).resolve().parents[2] / "sample_bundles" / "feeds" / "job.properties"


def started_bundle(tmp_path: Path) -> tuple[Store, str, list[CoordRow]]:
    store = Store(tmp_path, clock=SimulatedClock(parse_oozie_time("2026-01-01T05:00Z")))
    ctx = Ctx(store)
    loaded = load_job(FEEDS, [f"landing={tmp_path / 'landing'}"], store.clock, user="u")
    bundle_id = submit_loaded(ctx, loaded, start=True)
    with store.write() as tx:  # what the engine does for each bundle.submit_coord item
        bundle = jobs.must_get(tx.conn, BundleRow, bundle_id)
        for coord in bundles.app_of(bundle).coordinators:
            bundles.submit_child_tx(tx, store, ctx.effects, bundle, coord.name)
    coords = jobs.select(store.conn, CoordRow, "bundle_id = ?", (bundle_id,))
    return store, bundle_id, coords


def test_a_refused_child_change_fails_the_bundle_change_and_changes_nothing(tmp_path: Path) -> None:
    store, bundle_id, coords = started_bundle(tmp_path)
    ingest = next(c for c in coords if c.app_name == "ingest")
    add_actions(store, ingest.id, [ActionSpec("2026-01-01T07:00Z", "RUNNING")])
    revision = store.revision()
    with pytest.raises(CommandError) as err:
        bundles.change(Ctx(store), bundle_id, "pausetime=2026-01-01T06:00Z")
    assert err.value.code == "E1320"
    assert "ingest" in err.value.message and "E1022" in err.value.message
    assert jobs.must_get(store.conn, BundleRow, bundle_id).pause_time is None
    assert store.revision() == revision + 1  # only the audit row of the refusal was written


def test_an_acceptable_change_goes_down_to_every_coordinator(tmp_path: Path) -> None:
    store, bundle_id, coords = started_bundle(tmp_path)
    bundles.change(Ctx(store), bundle_id, "pausetime=2026-01-02T00:00Z")
    assert jobs.must_get(store.conn, BundleRow, bundle_id).pause_time is not None
    queued = store.conn.execute(
        "SELECT count(*) FROM outbox WHERE kind = 'coord.change'"
    ).fetchone()[0]
    assert queued == len(coords)


def test_a_rerun_naming_a_coordinator_the_bundle_lacks_notes_it_for_every_face(
    tmp_path: Path,
) -> None:
    """The native CLI, the Oozie front and the API print the commands' notes; the name a
    bundle lacks is one of them (each face worked it out for itself, the API in its own words)."""
    from bundletui.commands import dispatch

    store, bundle_id, coords = started_bundle(tmp_path)
    ingest = next(c for c in coords if c.app_name == "ingest")
    add_actions(store, ingest.id, [ActionSpec("2026-01-01T00:00Z", "SUCCEEDED")])
    notes: list[str] = []
    dispatch.rerun(Ctx(store), bundle_id, coordinators="ingest,ingets", notes=notes)
    names = ", ".join(sorted(c.app_name for c in coords))
    assert notes[0] == (
        f"bundle {bundle_id} has no coordinator named ingets; its coordinators: {names}"
    )
    assert bundles.unknown_coordinators_note(store.conn, bundle_id, "ingest, rollup") is None

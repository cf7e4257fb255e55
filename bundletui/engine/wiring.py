"""Plugging the engine's parts into its loop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bundletui.engine.bundles import BundleService
from bundletui.engine.coordinators import CoordinatorService
from bundletui.engine.effects import EngineEffects
from bundletui.engine.events import EventService
from bundletui.engine.landing import LandingWatcher
from bundletui.engine.purging import PurgeService
from bundletui.engine.workflows import WorkflowRunner

if TYPE_CHECKING:
    from bundletui.engine.service import Engine


def install(engine: Engine) -> None:
    engine.effects = EngineEffects(engine)
    engine.workflows = WorkflowRunner(engine)
    engine.workflows.install()
    engine.coordinators = CoordinatorService(engine)
    engine.coordinators.install()
    engine.bundles = BundleService(engine)
    engine.bundles.install()
    engine.landing = LandingWatcher(engine, engine.landing_dir)
    engine.landing.install()
    engine.events = EventService(engine)
    engine.events.install()
    if engine.config.purge is not None:
        PurgeService(engine, engine.config.purge).install()
    # One tick flows downstream: landed files -> events -> jobs/actions -> workflows -> nodes.
    engine.pumps[:] = [
        engine.landing.pump,
        engine.events.pump,
        engine.coordinators.pump,
        engine.workflows.pump,
    ]
    # Launching is admission (a row or two per action); the workflow pump then runs what was
    # launched. Admission first: the coordinators get three slices, and while due coordinators
    # are left over (a herd) running workflows get a small slice, so the herd is launched
    # sooner without the tick (and the write lock) growing; they get a whole one again after.
    coordinators = engine.coordinators
    engine.pump_shares[coordinators.pump] = lambda: 3.0
    engine.pump_shares[engine.workflows.pump] = lambda: 0.3 if coordinators.dirty else 1.0

"""Plugging the engine's parts into its loop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bundletui.engine.bundles import BundleService
from bundletui.engine.coordinators import CoordinatorService
from bundletui.engine.effects import EngineEffects
from bundletui.engine.events import EventService
from bundletui.engine.landing import LandingWatcher
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
    # One tick flows downstream: landed files -> events -> jobs/actions -> workflows -> nodes.
    engine.pumps[:] = [
        engine.landing.pump,
        engine.events.pump,
        engine.coordinators.pump,
        engine.workflows.pump,
    ]
    # Launching is admission (a row or two per action); the workflow pump then runs what was
    # launched. Three times the slice: a herd is launched sooner (2,000 coordinators: 2.0 ->
    # 1.6 s), and running workflows still get a slice every tick.
    engine.pump_shares[engine.coordinators.pump] = 3.0

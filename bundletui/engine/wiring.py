"""Plugging the engine's parts into its loop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bundletui.engine.bundles import BundleService
from bundletui.engine.coordinators import CoordinatorService
from bundletui.engine.effects import EngineEffects
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

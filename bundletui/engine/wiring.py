"""Plugging the engine's parts into its loop (workflows now; coordinators, bundles, landing
directory and event schedules register the same way)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bundletui.engine.effects import EngineEffects
from bundletui.engine.workflows import WorkflowRunner

if TYPE_CHECKING:
    from bundletui.engine.service import Engine


def install(engine: Engine) -> None:
    engine.effects = EngineEffects(engine)
    engine.workflows = WorkflowRunner(engine)
    engine.workflows.install()

"""The engine's own :class:`~bundletui.commands.effects.Effects`: act now, in memory.

Commands run by the engine (cascades, completions) leave their follow-ups here instead of in
the outbox. The child commands of a cascade still go through the outbox, so the pending flags
the seed designs are set by one transaction and cleared by another, as in Oozie.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bundletui.store.db import Tx
from bundletui.store.jobs import enqueue

if TYPE_CHECKING:
    from bundletui.engine.service import Engine


class EngineEffects:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def advance_workflow(self, tx: Tx, wf_id: str) -> None:
        self.engine.workflows.mark_dirty(wf_id)

    def node_done(self, tx: Tx, wf_id: str, node: str, status: str) -> None:
        self.engine.workflows.node_done(wf_id, node, status)

    def nodes_ready(self, tx: Tx, wf_id: str, priority: int, node_ids: list[str]) -> None:
        for nid in node_ids:
            self.engine.workflows.launchable.add(nid, priority)

    def signal_workflow(self, tx: Tx, wf_id: str, what: str) -> None:
        self.engine.workflows.signal(tx, wf_id, what)

    def wake_coordinator(self, tx: Tx, coord_id: str) -> None:
        hook = self.engine.wake_coordinator_hook
        if hook is not None:
            hook(tx, coord_id)

    def wake_bundle(self, tx: Tx, bundle_id: str) -> None:
        hook = self.engine.wake_bundle_hook
        if hook is not None:
            hook(tx, bundle_id)

    def child_command(
        self, tx: Tx, kind: str, target: str, args: dict[str, Any] | None = None
    ) -> None:
        enqueue(tx, kind, target, args)
        self.engine.outbox_pending()

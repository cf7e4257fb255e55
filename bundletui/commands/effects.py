"""What a command leaves for the engine to do: the seam between commands and the engine.

A command changes statuses in its transaction and tells an :class:`Effects` what must follow:
a workflow to advance, processes to kill or freeze, a coordinator to look at again, a child
command to carry out (the seed's asynchronous cascade, tracked by pending flags). From the CLI,
console or API these become outbox rows the engine drains (so they wait in the store when no
engine runs); inside the engine they act directly on its in-memory queues.
"""

from __future__ import annotations

from typing import Any, Protocol

from bundletui.store.db import Tx
from bundletui.store.jobs import enqueue


class Effects(Protocol):
    def advance_workflow(self, tx: Tx, wf_id: str) -> None:
        """Re-evaluate the workflow's graph (nodes may have become ready or it may be over)."""

    def node_done(self, tx: Tx, wf_id: str, node: str, status: str) -> None:
        """A node ended (lets the engine advance only what that node affects)."""

    def nodes_ready(self, tx: Tx, wf_id: str, priority: int, node_ids: list[str]) -> None:
        """Nodes were written READY (a new workflow's roots): launch them."""

    def signal_workflow(self, tx: Tx, wf_id: str, what: str) -> None:
        """``kill`` / ``stop`` / ``continue`` the running processes of a workflow."""

    def wake_coordinator(self, tx: Tx, coord_id: str) -> None:
        """Look at the coordinator again: materialize, check inputs, launch ready actions."""

    def wake_bundle(self, tx: Tx, bundle_id: str) -> None:
        """Look at the bundle again: kick-off and pause times."""

    def child_command(
        self, tx: Tx, kind: str, target: str, args: dict[str, Any] | None = None
    ) -> None:
        """Run a command on a child asynchronously (bundle -> coordinator, seed 000)."""


class OutboxEffects:
    """Effects written to the store's outbox, for whichever engine runs (now or later)."""

    def advance_workflow(self, tx: Tx, wf_id: str) -> None:
        enqueue(tx, "wf.advance", wf_id)

    def node_done(self, tx: Tx, wf_id: str, node: str, status: str) -> None:
        enqueue(tx, "wf.advance", wf_id)

    def nodes_ready(self, tx: Tx, wf_id: str, priority: int, node_ids: list[str]) -> None:
        enqueue(tx, "wf.advance", wf_id)  # the full pass queues READY nodes it finds

    def signal_workflow(self, tx: Tx, wf_id: str, what: str) -> None:
        enqueue(tx, "wf.signal", wf_id, {"what": what})

    def wake_coordinator(self, tx: Tx, coord_id: str) -> None:
        enqueue(tx, "coord.wake", coord_id)

    def wake_bundle(self, tx: Tx, bundle_id: str) -> None:
        enqueue(tx, "bundle.wake", bundle_id)

    def child_command(
        self, tx: Tx, kind: str, target: str, args: dict[str, Any] | None = None
    ) -> None:
        enqueue(tx, kind, target, args)

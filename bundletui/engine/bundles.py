"""The bundle service: kick-off and pause times, and the child commands a bundle command asks for.

A bundle command marks bundle actions pending and leaves one outbox item per coordinator; here
each is carried out with the coordinator commands, and the bundle action's pending count drops
once the child has acted — whether its status changed or not, and even if the child refused
(seed 000, BundleStatusUpdateXCommand).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bundletui.commands import bundles as bundlecmd
from bundletui.commands import coordinators as coordcmd
from bundletui.errors import BundletuiError
from bundletui.model.status import JobStatus
from bundletui.model.transitions import Event, Machine, allowed, decide
from bundletui.store import events as store_events
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import BundleRow, CoordRow

if TYPE_CHECKING:
    from bundletui.engine.service import Engine

log = logging.getLogger("bundletui.engine.bundles")
J = JobStatus


class BundleService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def install(self) -> None:
        e = self.engine
        e.wake_bundle_hook = self.wake
        e.on_outbox("bundle.wake", lambda tx, bid, args: self.wake(tx, bid, args))
        e.on_due("bundle.kickoff", self.wake)
        e.on_due("bundle.pause", self.wake)
        e.on_outbox("bundle.submit_coord", self.submit_coord)
        for kind, fn in self._child_commands().items():
            e.on_outbox(kind, self._child(kind, fn))
        e.recoveries.append(self.recover)

    def wake(self, tx: Tx, bundle_id: str, args: dict[str, Any] | None = None) -> None:
        """``args["events_from"]``: the horizon a submit without kick-off time took."""
        bundle = jobs.get(tx.conn, BundleRow, bundle_id)
        if bundle is None:
            return
        now = tx.now_ms
        effects = self.engine.effects
        if bundle.status == J.PREP:
            if bundle.kickoff_time is None or bundle.kickoff_time <= now:
                horizon = (args or {}).get("events_from")
                bundlecmd.start_tx(
                    tx,
                    effects,
                    bundle,
                    Event.KICKOFF,
                    store=self.engine.db,
                    events_from=None if horizon is None else int(horizon),
                )
                bundle = jobs.must_get(tx.conn, BundleRow, bundle_id)
            else:
                self.engine.heap.push(bundle.kickoff_time, "bundle.kickoff", bundle_id)
        if bundle.pause_time is not None:
            if bundle.pause_time <= now and bundle.status in (
                J.PREP,
                J.RUNNING,
                J.RUNNINGWITHERROR,
            ):
                t = decide(Machine.BUNDLE, bundle.status, Event.PAUSE, bundle.id)
                jobs.update(tx, BundleRow, bundle.id, status=t.to)
            elif bundle.pause_time > now:
                self.engine.heap.push(bundle.pause_time, "bundle.pause", bundle_id)

    def submit_coord(self, tx: Tx, bundle_id: str, args: dict[str, Any]) -> None:
        """One coordinator of a bundle's start. An event schedule counts from the horizon
        the start took: the events the pump consumed since then are handed to it again."""
        bundle = jobs.get(tx.conn, BundleRow, bundle_id)
        if bundle is None:
            return
        horizon = args.get("events_from")
        coord_id = bundlecmd.submit_child_tx(
            tx,
            self.engine.db,
            self.engine.effects,
            bundle,
            str(args["name"]),
            None if horizon is None else int(horizon),
        )
        if coord_id is not None and args.get("crons_from") is not None:
            # kicked off while no engine ran: its cron times count from the kick-off, and
            # the missed ones fire once now, as a schedule's own do after a downtime
            store_events.set_crons_from(tx, coord_id, int(args["crons_from"]))
        if coord_id is not None and horizon is not None:
            self.engine.events.replay(tx, coord_id, int(horizon))

    def _child_commands(self) -> dict[str, Callable[[Tx, CoordRow, dict[str, Any]], Any]]:
        effects = self.engine.effects
        return {
            "coord.kill": lambda tx, c, a: coordcmd.kill_tx(tx, effects, c),
            "coord.suspend": lambda tx, c, a: coordcmd.suspend_tx(
                tx, effects, c, freeze=bool(a.get("freeze")), events_upto=a.get("events_upto")
            ),
            "coord.resume": self._resume_child,
            "coord.change": lambda tx, c, a: coordcmd.change_tx(
                tx, effects, c, str(a["value"]), as_of=a.get("as_of")
            ),
            "coord.rerun": lambda tx, c, a: coordcmd.rerun_tx(
                tx,
                effects,
                c,
                dates=a.get("dates"),
                refresh=bool(a.get("refresh")),
                nocleanup=bool(a.get("nocleanup")),
            ),
        }

    def _resume_child(self, tx: Tx, coord: CoordRow, args: dict[str, Any]) -> None:
        """A bundle's resume, applied now, at the command's horizon: an event schedule is
        handed the events the pump passed while it was still SUSPENDED, but for those that
        landed between the suspend's and the resume's commands."""
        horizon = args.get("events_from")
        coordcmd.resume_tx(tx, self.engine.effects, coord, horizon)
        if coord.kind == "event":
            self.engine.events.settle(tx, coord.id)

    def _child(
        self, kind: str, fn: Callable[[Tx, CoordRow, dict[str, Any]], Any]
    ) -> Callable[[Tx, str, dict[str, Any]], None]:
        def handler(tx: Tx, coord_id: str, args: dict[str, Any]) -> None:
            coord = jobs.coord_head(tx.conn, coord_id)
            if coord is None:
                return
            given = args.get("if_allowed")
            if given is not None and not allowed(Machine.COORDINATOR, coord.status, Event[given]):
                # sent in case a command queued before it changed the child's status; it did
                # not (a rerun that found nothing, a suspend that stayed): nothing to do
                bundlecmd.coordinator_changed(tx, self.engine.effects, coord, acted=True)
                return
            try:
                with self.engine.savepoint(tx, "child"):
                    fn(tx, coord, args)
            except BundletuiError as exc:
                # the bundle's command was accepted; what its coordinator could not do is said
                # here, as Oozie's BundleRerunXCommand logs a coordinator rerun that failed
                log.warning(
                    "bundle %s: %s of coordinator %s refused: %s",
                    coord.bundle_id,
                    kind.removeprefix("coord."),
                    coord_id,
                    exc.describe(),
                )
            bundlecmd.coordinator_changed(
                tx, self.engine.effects, jobs.must_coord_head(tx.conn, coord_id), acted=True
            )

        return handler

    def recover(self, tx: Tx) -> None:
        for bundle in jobs.bundles_to_schedule(tx.conn):
            if bundle.status == J.PREP:
                self.engine.heap.push(bundle.kickoff_time or tx.now_ms, "bundle.kickoff", bundle.id)
            if bundle.pause_time is not None:
                self.engine.heap.push(bundle.pause_time, "bundle.pause", bundle.id)

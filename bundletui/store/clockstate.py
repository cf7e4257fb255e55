"""The clock a store runs on: real, or the simulated "now" a simulated engine keeps in the store.

Commands run from the CLI while a simulated engine works must see the engine's simulated time
(a submit at "now" means the simulated now), and a killed simulated run resumes where it was.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import datetime
from typing import TYPE_CHECKING

from bundletui.model.clock import RealClock, from_ms, to_ms

if TYPE_CHECKING:
    from bundletui.store.db import Store, Tx


class StoreClock:
    """Real time unless the store says it is simulated; then the stored simulated now."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._real = RealClock()

    @property
    def simulated(self) -> bool:
        return self._store.meta("clock") == "simulated"

    def now(self) -> datetime:
        simulated = simulated_now_ms(self._store.conn)
        return self._real.now() if simulated is None else from_ms(simulated)

    def monotonic(self) -> float:
        return time.monotonic()


def set_clock_mode(store: Store, tx: Tx, mode: str, sim_now: datetime | None = None) -> None:
    store.set_meta(tx, "clock", mode)
    if sim_now is not None:
        store.set_meta(tx, "sim_now", str(to_ms(sim_now)))


def stored_sim_now(store: Store) -> datetime | None:
    value = store.meta("sim_now")
    return None if value is None else from_ms(int(value))


def simulated_now_ms(conn: sqlite3.Connection) -> int | None:
    """The store's simulated now, if it runs on a simulated clock that has a time."""
    rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('clock', 'sim_now')"))
    if rows.get("clock") == "simulated" and rows.get("sim_now") is not None:
        return int(rows["sim_now"])
    return None


def store_now_ms(conn: sqlite3.Connection) -> int:
    """The store's "now" read through a bare connection: what a query measures "-2d" from, so
    every face and job type agree with the times the store's clock stamped."""
    simulated = simulated_now_ms(conn)
    return to_ms(RealClock().now()) if simulated is None else simulated

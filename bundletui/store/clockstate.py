"""The clock a store runs on: real, or the simulated "now" a simulated engine keeps in the store.

Commands run from the CLI while a simulated engine works must see the engine's simulated time
(a submit at "now" means the simulated now), and a killed simulated run resumes where it was.
"""

from __future__ import annotations

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
        if self.simulated:
            value = self._store.meta("sim_now")
            if value is not None:
                return from_ms(int(value))
        return self._real.now()

    def monotonic(self) -> float:
        return time.monotonic()


def set_clock_mode(store: Store, tx: Tx, mode: str, sim_now: datetime | None = None) -> None:
    store.set_meta(tx, "clock", mode)
    if sim_now is not None:
        store.set_meta(tx, "sim_now", str(to_ms(sim_now)))


def stored_sim_now(store: Store) -> datetime | None:
    value = store.meta("sim_now")
    return None if value is None else from_ms(int(value))

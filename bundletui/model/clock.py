"""The only place that reads the time. Everything else is handed a Clock.

A simulated clock only moves when told to: the engine jumps it to the next due time whenever
nothing is running or ready, which is how weeks of schedules run in seconds in tests and benches.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    @property
    def simulated(self) -> bool:
        """True when time moves only when the engine moves it."""
        ...

    def now(self) -> datetime:
        """Aware UTC now."""
        ...

    def monotonic(self) -> float:
        """Seconds, for measuring durations and timeouts of the process itself."""
        ...


class RealClock:
    simulated = False

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


class SimulatedClock:
    """A clock that stands still until :meth:`set` or :meth:`advance` moves it (never backwards)."""

    simulated = True

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("SimulatedClock needs an aware datetime")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return time.monotonic()

    def set(self, t: datetime) -> None:
        t = t.astimezone(UTC)
        if t > self._now:
            self._now = t

    def advance(self, delta: timedelta) -> None:
        self.set(self._now + delta)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def to_ms(t: datetime) -> int:
    """Aware datetime to epoch milliseconds (the store's time format), exactly."""
    return (t - EPOCH) // _MS


def from_ms(ms: int) -> datetime:
    return EPOCH + timedelta(milliseconds=ms)


# The latest time the engine schedules anything at (9999-01-01): a due time computed past the
# end of ``datetime`` (a retry-interval of 2**31-1 minutes, doubled) waits until then instead,
# so ``from_ms`` of it, and a simulated clock jumping to it, stay in range, with a year to spare
# for the arithmetic around it.
LATEST_MS = to_ms(datetime(9999, 1, 1, tzinfo=UTC))

"""Frequencies as Oozie models them: a value, a unit, and the end-of-duration flag (oozie.md §3.1).

``coord:hours(1)`` is ``Frequency(60, MINUTE)`` exactly as in Oozie; cron frequencies keep their
text. The arithmetic lives in :mod:`bundletui.model.timeutil`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TimeUnit(StrEnum):
    MINUTE = "MINUTE"
    HOUR = "HOUR"
    DAY = "DAY"
    WEEK = "WEEK"
    MONTH = "MONTH"
    YEAR = "YEAR"
    END_OF_DAY = "END_OF_DAY"
    END_OF_WEEK = "END_OF_WEEK"
    END_OF_MONTH = "END_OF_MONTH"
    CRON = "CRON"
    NONE = "NONE"


@dataclass(frozen=True, slots=True)
class Frequency:
    """``value`` units of ``unit``; ``end_of`` marks endOfDays/Weeks/Months; ``cron`` for CRON."""

    value: int
    unit: TimeUnit
    end_of: TimeUnit | None = None
    cron: str | None = None

    @property
    def is_cron(self) -> bool:
        return self.unit is TimeUnit.CRON

    @property
    def json_time_unit(self) -> str:
        """Oozie's JSON ``timeUnit``: END_OF_* when set, else the unit."""
        return str(self.end_of or self.unit)

    @property
    def json_frequency(self) -> str:
        """Oozie's JSON ``frequency``: the number as text, or the cron expression."""
        return self.cron if self.cron is not None else str(self.value)

    def __str__(self) -> str:
        if self.cron is not None:
            return self.cron
        return f"{self.value} {self.json_time_unit}"

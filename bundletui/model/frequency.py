"""Frequencies as Oozie models them: a value, a unit, and the end-of-duration flag (oozie.md §3.1).

``coord:hours(1)`` is ``Frequency(60, MINUTE)`` exactly as in Oozie; cron frequencies keep their
text. The arithmetic lives in :mod:`bundletui.model.timeutil`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bundletui.errors import ModelError


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


# --------------------------------------------------------------------------- constructors
# The coord:minutes/hours/days/months/endOf* EL functions (oozie.md §3.1): each returns the
# value Oozie stores and sets the unit (and end flag) Oozie sets.


def _positive(n: int, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ModelError.from_template(
            "E1004",
            f"coord:{name}(n): parameter [n] = [{n}] must be greater than zero",
            hint=f"write e.g. ${{coord:{name}(1)}}",
        )
    return n


def minutes(n: int) -> Frequency:
    """``coord:minutes(n)``: n MINUTE."""
    return Frequency(_positive(n, "minutes"), TimeUnit.MINUTE)


def hours(n: int) -> Frequency:
    """``coord:hours(n)``: n*60 MINUTE (exact elapsed time, as in Oozie)."""
    return Frequency(_positive(n, "hours") * 60, TimeUnit.MINUTE)


def days(n: int) -> Frequency:
    """``coord:days(n)``: n DAY (keeps the local wall clock across DST)."""
    return Frequency(_positive(n, "days"), TimeUnit.DAY)


def months(n: int) -> Frequency:
    """``coord:months(n)``: n MONTH."""
    return Frequency(_positive(n, "months"), TimeUnit.MONTH)


def end_of_days(n: int) -> Frequency:
    """``coord:endOfDays(n)``: n DAY, instances at local midnight."""
    return Frequency(_positive(n, "endOfDays"), TimeUnit.DAY, TimeUnit.END_OF_DAY)


def end_of_weeks(n: int) -> Frequency:
    """``coord:endOfWeeks(n)``: n WEEK, instances on Sunday at local midnight."""
    return Frequency(_positive(n, "endOfWeeks"), TimeUnit.WEEK, TimeUnit.END_OF_WEEK)


def end_of_months(n: int) -> Frequency:
    """``coord:endOfMonths(n)``: n MONTH, instances on the 1st at local midnight."""
    return Frequency(_positive(n, "endOfMonths"), TimeUnit.MONTH, TimeUnit.END_OF_MONTH)


def cron(expr: str) -> Frequency:
    """A cron frequency (unit CRON, text kept with single spaces); validate it with
    :func:`bundletui.model.cron.validate_cron_frequency`."""
    return Frequency(0, TimeUnit.CRON, cron=" ".join(expr.split()))


def end_flag(freq: Frequency) -> TimeUnit | None:
    """END_OF_DAY / END_OF_WEEK / END_OF_MONTH if the frequency is an endOf* one."""
    if freq.end_of is not None:
        return freq.end_of
    if freq.unit in (TimeUnit.END_OF_DAY, TimeUnit.END_OF_WEEK, TimeUnit.END_OF_MONTH):
        return freq.unit
    return None

"""The seam between the decoders and the EL evaluator.

Decoders never evaluate EL themselves: every attribute or text that Oozie resolves at submit
time goes through a :class:`Resolver`, so the same decoder serves ``validate``, ``dryrun`` and
``submit`` with whatever evaluator (and configuration) the caller builds. One resolver is made
per application file, already holding that file's job configuration (after ``<parameters>``
defaults) and the EL function set of its kind (``bundle:``, ``coord:``, ``wf:``).

Fields Oozie evaluates later (data-in instances, data-out instance, the coordinator action's
workflow configuration, shell arguments, decision predicates, kill messages) never reach the
typed methods: they are stored as EL text, at most passed through :meth:`Resolver.text`, which
substitutes job properties and echoes deferred functions unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bundletui.errors import SpecError
from bundletui.model.frequency import Frequency


@dataclass(frozen=True, slots=True)
class Where:
    """Where a value came from: the file, its line, and which field (for messages)."""

    file: str
    line: int | None = None
    field: str = ""

    def error(self, code: str, message: str, hint: str | None = None) -> SpecError:
        """A :class:`SpecError` pointing at this place."""
        return SpecError(code, message, hint=hint, file=self.file, line=self.line)

    def describe(self) -> str:
        place = f"{self.file}:{self.line}" if self.line else self.file
        return f"{place} {self.field}".strip()


class Resolver(Protocol):
    """Submit-phase EL over one application file. Every method raises :class:`SpecError`
    (E1004 for EL errors, E1003/E1010 for bad values) naming ``where``."""

    def text(self, value: str, where: Where) -> str:
        """Resolve job properties and submit-time functions; echo deferred ones verbatim."""
        ...

    def settled_text(self, value: str, where: Where) -> str:
        """:meth:`text` for a value the decoder checks now (a flag): ``validate`` without
        values for its variables stops here instead of checking the unresolved text."""
        ...

    def frequency(self, value: str, where: Where) -> Frequency:
        """A coordinator/dataset frequency: integer minutes, ``coord:days(1)``…, or a cron; the
        number (minutes for ``coord:hours``) is a Java int."""
        ...

    def timeout_minutes(self, value: str, where: Where, what: str = "timeout") -> int:
        """A duration in minutes (``coord:hours(2)`` -> 120; 1 day = 1440, 1 month = 30 days),
        a Java int."""
        ...

    def datetime(self, value: str, where: Where) -> datetime:
        """An Oozie datetime (``yyyy-MM-ddTHH:mmZ``), strict, as an aware UTC ``datetime``."""
        ...

    def integer(self, value: str, where: Where) -> int:
        """A plain integer after EL, in Java's int range (Oozie's ``Integer.parseInt``)."""
        ...

    def timezone(self, value: str, where: Where) -> str:
        """A timezone id after EL, checked and normalised (``GMT+0530`` -> ``GMT+05:30``)."""
        ...

"""A test-only :class:`~bundletui.spec.resolver.Resolver`: ``${name}`` from a dict, nothing more.

Function calls (``${coord:current(0)}``, ``${wf:id()}``) and the URI-template variables
(``${YEAR}``…) are echoed, an unknown plain name is an E1004 error, frequencies are integer
minutes or a 5-field cron. The real evaluator is wired in by the commands layer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.spec.decode_common import java_int
from bundletui.spec.resolver import Where

_EXPR = re.compile(r"\$\{([^}]*)\}")
_DEFERRED = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"}


class SimpleResolver:
    def __init__(self, conf: Mapping[str, str] | None = None) -> None:
        self.conf = dict(conf or {})
        self.calls: list[tuple[str, str, Where]] = []

    def text(self, value: str, where: Where) -> str:
        self.calls.append(("text", value, where))

        def sub(m: re.Match[str]) -> str:
            name = m.group(1).strip()
            if ":" in name or "(" in name or name in _DEFERRED:
                return m.group(0)
            if name not in self.conf:
                raise where.error(
                    "E1004",
                    f"Expression language evaluation error, "
                    f"Unable to evaluate :${{{name}}}: variable [{name}] cannot be resolved",
                )
            return self.conf[name]

        return _EXPR.sub(sub, value)

    def settled_text(self, value: str, where: Where) -> str:
        return self.text(value, where)

    def integer(self, value: str, where: Where) -> int:
        return java_int(self.text(value, where).strip(), where, where.field)

    def frequency(self, value: str, where: Where) -> Frequency:
        text = self.text(value, where).strip()
        if len(text.split()) == 5:
            return Frequency(0, TimeUnit.CRON, cron=text)
        return Frequency(self.integer(text, where), TimeUnit.MINUTE)

    def timeout_minutes(self, value: str, where: Where, what: str = "timeout") -> int:
        return self.integer(value, where)

    def datetime(self, value: str, where: Where) -> datetime:
        text = self.text(value, where).strip()
        try:
            return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)
        except ValueError:
            raise where.error(
                "E1003",
                f"Invalid coordinator application attributes, "
                f"{where.field} is not a yyyy-MM-ddTHH:mmZ datetime: [{text}]",
            ) from None

    def timezone(self, value: str, where: Where) -> str:
        text = self.text(value, where).strip()
        try:
            ZoneInfo(text)
        except (ZoneInfoNotFoundError, ValueError):
            raise where.error("E1003", f"Invalid TimeZone [{text}]") from None
        return text

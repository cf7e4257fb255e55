"""Query strings as Oozie's clients send them (oozie-rest-clients.md §6.4).

pyoozie builds its URLs by hand (``filter=user=u;status=A;status=B``: raw ``=`` and ``;``),
oozie-api form-encodes them (``filter=user%3Du%3B``). Splitting on ``&`` only and each pair at
its first ``=`` reads both the same way; the first occurrence of a name wins, as with a
servlet's ``getParameter``.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote_plus

from bundletui.errors import ApiError, BundletuiError


def parse_query(raw: bytes | str) -> dict[str, str]:
    """``a=1&filter=x=y;z=w&a=2`` -> ``{"a": "1", "filter": "x=y;z=w"}``."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    out: dict[str, str] = {}
    for part in text.split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        name = unquote_plus(key, errors="replace").strip()
        if name and name not in out:
            out[name] = unquote_plus(value, errors="replace")
    return out


@dataclass(frozen=True)
class Params:
    """The parsed query string of one request, with Oozie's typed lookups."""

    values: dict[str, str]

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.values.get(name, default)

    def has(self, name: str) -> bool:
        return name in self.values

    def text(self, name: str, default: str = "") -> str:
        value = self.values.get(name)
        return default if value is None else value.strip()

    def integer(self, name: str, default: int) -> int:
        """An integer parameter; absent or empty means ``default``."""
        raw = self.values.get(name)
        if raw is None or not raw.strip():
            return default
        try:
            value = int(raw.strip())
        except ValueError:
            raise ApiError(
                "E0304",
                f"Invalid parameter type, parameter [{name}] expected type [Integer]",
                hint=f"{name} is a whole number, e.g. {name}={default}",
            ) from None
        if not -(2**31) <= value < 2**31:
            raise ApiError(
                "E0304",
                f"Invalid parameter type, parameter [{name}] expected type [Integer]",
                hint=f"{name} must fit in 32 bits",
            )
        return value

    def timezone(self) -> str:
        """The display zone (default GMT), checked here: a bad one is E0303, not a failure of
        whatever it is later used for."""
        from bundletui.model.timeutil import parse_timezone

        tz = self.text("timezone") or "GMT"
        try:
            parse_timezone(tz)
        except BundletuiError as exc:
            raise ApiError.from_template("E0303", "timezone", tz, hint=exc.hint) from None
        return tz

    def boolean(self, name: str, default: bool = False) -> bool:
        raw = self.text(name).lower()
        if not raw:
            return default
        if raw in ("true", "false"):
            return raw == "true"
        raise ApiError.from_template(
            "E0303", name, self.values.get(name), hint=f"{name} is true or false"
        )

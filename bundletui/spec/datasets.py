"""Dataset instances as URIs and done-flag paths, and the file-system check they meet.

Materialization renders these for every action, so a uri-template is compiled once and a
dataset on a fixed grid (minute/hour steps, or day/week steps in a fixed-offset zone) takes an
arithmetic path for ``current`` with URIs cached per instance index. The file system is reached
only through an ``exists(path) -> bool`` callback (:func:`local_exists` for local paths and
``file://`` URIs), so the phases stay pure.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from urllib.parse import unquote, urlsplit

from bundletui.model import instances
from bundletui.model.apps import Dataset
from bundletui.model.frequency import TimeUnit
from bundletui.model.timeutil import calendar_unit, parse_timezone

ExistsFn = Callable[[str], bool]


def local_exists(uri: str) -> bool:
    """Existence of a local path or ``file://`` URI; other schemes (hdfs://…) never exist."""
    if uri.startswith("/"):
        return os.path.exists(uri)
    if uri.startswith("file:"):
        if uri.startswith("file:///"):
            path = uri[7:]
        elif uri.startswith("file://localhost/"):
            path = uri[16:]
        else:
            parts = urlsplit(uri)
            if parts.netloc:
                return False
            path = parts.path
        return os.path.exists(unquote(path) if "%" in path else path)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri):
        return False
    return os.path.exists(uri)


_VAR = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}")
_FIELDS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE")
_CACHE_LIMIT = 500_000


class _UriTemplate:
    """A uri-template compiled to one ``str.format`` call; ``${YEAR}``…``${MINUTE}`` come from
    the instance time in UTC (§3.2), other ``${name}`` stay as written."""

    __slots__ = ("_fmt",)

    _SPECS = ("{0}", "{1:02d}", "{2:02d}", "{3:02d}", "{4:02d}")

    def __init__(self, text: str) -> None:
        parts: list[str] = []
        pos = 0
        for m in _VAR.finditer(text):
            parts.append(_brace(text[pos : m.start()]))
            name = m.group(1)
            parts.append(
                self._SPECS[_FIELDS.index(name)] if name in _FIELDS else _brace(m.group(0))
            )
            pos = m.end()
        parts.append(_brace(text[pos:]))
        self._fmt = "".join(parts)

    def render(self, t: datetime) -> str:
        u = t if t.tzinfo is UTC else t.astimezone(UTC)
        return self._fmt.format(u.year, u.month, u.day, u.hour, u.minute)


def _brace(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


class DatasetPlanner:
    """A dataset's instance grid with URI / done-path caches."""

    def __init__(self, ds: Dataset) -> None:
        self.ds = ds
        self.initial = instances.initial_instance(ds)
        tz = parse_timezone(ds.timezone)
        unit = calendar_unit(ds.frequency.unit)
        f = ds.frequency.value
        step: timedelta | None = None
        if unit is TimeUnit.MINUTE:
            step = timedelta(minutes=f)
        elif unit is TimeUnit.HOUR:
            step = timedelta(hours=f)
        elif isinstance(tz, timezone) and unit in (TimeUnit.DAY, TimeUnit.WEEK):
            step = timedelta(days=f * (7 if unit is TimeUnit.WEEK else 1))
        self.step = step  # fixed grid: instance k is initial + k*step exactly
        self.flag = ds.done_flag
        self.template = _UriTemplate(ds.uri_template.strip())
        self._by_time: dict[datetime, tuple[str, str]] = {}
        # fixed grid: URIs and done paths of instances base, base+1, ... as flat lists
        self._base = 0
        self._uris: list[str] = []
        self._dones: list[str] = []

    def pair(self, t: datetime) -> tuple[str, str]:
        """(uri, done path) of the instance at ``t``."""
        hit = self._by_time.get(t)
        if hit is None:
            if len(self._by_time) > _CACHE_LIMIT:
                self._by_time.clear()
            uri = self.template.render(t)
            hit = (uri, f"{uri}/{self.flag}" if self.flag else uri)
            self._by_time[t] = hit
        return hit

    def _fill(self, lo: int, hi: int) -> None:
        """Make instances lo..hi (fixed grid) available in the flat lists."""
        size = len(self._uris)
        if not size or lo < self._base or lo > self._base + size or size > _CACHE_LIMIT:
            self._base, self._uris, self._dones = lo, [], []
        assert self.step is not None
        initial, step, render, flag = self.initial, self.step, self.template.render, self.flag
        i = self._base + len(self._uris)
        while i <= hi:
            uri = render(initial + step * i)
            self._uris.append(uri)
            self._dones.append(f"{uri}/{flag}" if flag else uri)
            i += 1

    def current_uris(
        self, nominal: datetime, a: int, b: int
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """URIs and done paths of ``current(a)..current(b)``, newest first."""
        if self.step is None or a > b:
            pairs = [self.pair(t) for t in instances.current_range(self.ds, nominal, a, b)]
            return tuple([p[0] for p in pairs]), tuple([p[1] for p in pairs])
        if nominal < self.initial:
            return (), ()
        k = (nominal - self.initial) // self.step
        hi = k + b
        if hi < 0:
            return (), ()
        lo = k + a if k + a > 0 else 0
        if lo < self._base or hi >= self._base + len(self._uris):
            self._fill(lo, hi)
        first, last = hi - self._base, lo - self._base - 1  # newest first: a reversed slice
        if last < 0:
            return tuple(self._uris[first::-1]), tuple(self._dones[first::-1])
        return tuple(self._uris[first:last:-1]), tuple(self._dones[first:last:-1])

    def current_pairs(self, nominal: datetime, a: int, b: int) -> list[tuple[str, str]]:
        """``current(a)..current(b)`` newest first, as (uri, done path) pairs."""
        uris, dones = self.current_uris(nominal, a, b)
        return list(zip(uris, dones, strict=True))

    def exists_fn(self, exists: ExistsFn) -> Callable[[datetime], bool]:
        return lambda t: exists(self.pair(t)[1])

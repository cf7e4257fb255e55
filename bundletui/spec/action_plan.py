"""What the three phases hand each other, as plain data the engine stores with the action
(``to_dict``/``from_dict``): a launch after a restart sees what the input check saw.

An :class:`ActionPlan` holds each data-in's instance URIs in Oozie's order (``<instance>``
elements in document order, a range newest first; instances before the dataset's initial
instance dropped) with their done-flag paths (``uri/flag``, or the URI when the flag is empty).
``latest()``/``future()`` cannot be resolved at creation: they stay :class:`Pending` until the
input check. :class:`InputCheck.data_in` is what ``coord:dataIn`` returns: a data-in's resolved
latest/future URIs first, then its others (Oozie prepends them when it resolves them).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, NamedTuple

from bundletui.model.timeutil import format_oozie_time, parse_oozie_time

_EMPTY: Mapping[str, tuple[str, ...] | None] = MappingProxyType({})


class Pending(NamedTuple):
    """A ``latest``/``future`` instance (or range) that the input check resolves."""

    kind: str  # "latest" | "future"
    start: int
    end: int
    limit: int = 0  # future: how many instances to look ahead

    @property
    def text(self) -> str:
        """Oozie's echo of the unresolved call."""
        if self.kind == "latest":
            if self.start == self.end:
                return f"${{coord:latest({self.start})}}"
            return f"${{coord:latestRange({self.start},{self.end})}}"
        if self.start == self.end:
            return f"${{coord:future({self.start}, {self.limit})}}"
        return f"${{coord:futureRange({self.start}, {self.end}, {self.limit})}}"


class DataInPlan(NamedTuple):
    """One data-in at creation: resolved URIs (Oozie order), their done paths, pending parts."""

    name: str
    dataset: str
    uris: tuple[str, ...]
    done_paths: tuple[str, ...]
    pending: tuple[Pending, ...] = ()


class DataOutPlan(NamedTuple):
    name: str
    dataset: str
    uris: tuple[str, ...]


class ActionPlan(NamedTuple):
    """A materialized coordinator action (the creation phase's result)."""

    number: int
    nominal: datetime
    actual: datetime
    action_id: str
    data_ins: tuple[DataInPlan, ...] = ()
    data_outs: tuple[DataOutPlan, ...] = ()

    @property
    def dependencies(self) -> tuple[str, ...]:
        """Every done-flag path of the resolved instances, data-in by data-in."""
        out: list[str] = []
        for d in self.data_ins:
            out.extend(d.done_paths)
        return tuple(out)

    @property
    def unresolved(self) -> tuple[str, ...]:
        """The latest/future EL still to resolve."""
        return tuple(p.text for d in self.data_ins for p in d.pending)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "nominal": format_oozie_time(self.nominal),
            "actual": self.actual.astimezone(UTC).isoformat(),
            "action_id": self.action_id,
            "data_ins": [
                {
                    "name": d.name,
                    "dataset": d.dataset,
                    "uris": list(d.uris),
                    "done_paths": list(d.done_paths),
                    "pending": [[p.kind, p.start, p.end, p.limit] for p in d.pending],
                }
                for d in self.data_ins
            ],
            "data_outs": [
                {"name": d.name, "dataset": d.dataset, "uris": list(d.uris)} for d in self.data_outs
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ActionPlan:
        return cls(
            number=int(data["number"]),
            nominal=parse_oozie_time(data["nominal"]),
            actual=datetime.fromisoformat(data["actual"]).astimezone(UTC),
            action_id=data["action_id"],
            data_ins=tuple(
                DataInPlan(
                    d["name"],
                    d["dataset"],
                    tuple(d["uris"]),
                    tuple(d["done_paths"]),
                    tuple(Pending(k, int(s), int(e), int(lim)) for k, s, e, lim in d["pending"]),
                )
                for d in data.get("data_ins", ())
            ),
            data_outs=tuple(
                DataOutPlan(d["name"], d["dataset"], tuple(d["uris"]))
                for d in data.get("data_outs", ())
            ),
        )


class InputCheck(NamedTuple):
    """The input check's verdict for one action at one moment."""

    ready: bool
    missing: tuple[str, ...] = ()  # done-flag paths that do not exist (plan order)
    unresolved: tuple[str, ...] = ()  # latest/future EL not resolvable yet
    data_in: Mapping[str, tuple[str, ...] | None] = _EMPTY
    waiting_until: datetime | None = None  # when a pending input-logic wait= runs out
    waiting_for: str | None = None  # the data-in (or combine) that wait= holds the action for

    @property
    def missing_dependencies(self) -> tuple[str, ...]:
        """Missing paths, then unresolved EL: what Oozie shows as missing dependencies."""
        return self.missing + self.unresolved

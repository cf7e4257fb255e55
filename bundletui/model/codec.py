"""Frozen app definitions to JSON and back, so the store keeps the resolved app.

The engine loads a coordinator's resolved definition from the store instead of re-reading and
re-validating its XML, which keeps restarts fast and makes a run independent of later edits to
the files. Dataclasses carry a ``"@"`` tag with their class name; the field types drive decoding.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from datetime import datetime
from enum import Enum
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin

from bundletui.model import apps, events, frequency

_REGISTRY: dict[str, type] = {
    cls.__name__: cls
    for module in (apps, events, frequency)
    for cls in vars(module).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls)
}

T = TypeVar("T")


def to_data(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {"@": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = to_data(getattr(obj, f.name))
        return out
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, tuple | list):
        return [to_data(x) for x in obj]
    if isinstance(obj, dict):
        return {k: to_data(v) for k, v in obj.items()}
    return obj


def dumps(obj: Any) -> str:
    return json.dumps(to_data(obj), separators=(",", ":"))


def loads(text: str, cls: type[T]) -> T:
    value = _decode(json.loads(text), cls)
    return typing.cast(T, value)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(apps) | vars(events) | vars(frequency))


def _decode(data: Any, hint: Any) -> Any:
    if data is None:
        return None
    if isinstance(data, dict) and "@" in data:
        cls = _REGISTRY[data["@"]]
        hints = _hints(cls)
        kwargs = {k: _decode(v, hints[k]) for k, v in data.items() if k != "@"}
        return cls(**kwargs)
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        for option in options:
            if isinstance(option, type) and issubclass(option, Enum):
                try:
                    return option(data)
                except ValueError:
                    continue
            if option is datetime and isinstance(data, str):
                return datetime.fromisoformat(data)
        return _decode(data, options[0]) if len(options) == 1 else data
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(x, args[0]) for x in data)
        return tuple(_decode(x, a) for x, a in zip(data, args, strict=False))
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return hint(data)
        if hint is datetime:
            return datetime.fromisoformat(data)
    return data

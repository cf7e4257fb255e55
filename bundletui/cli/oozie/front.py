"""What every operation of one command needs: the store, opened only when used (-info of a
missing home is an error, not a new store), and the zone its dates are shown in."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import Any

from bundletui.cli.oozie.args import Args
from bundletui.errors import BundletuiError, UsageError


@dataclass
class Front:
    """What every operation needs: the store (opened on first use) and the display zone."""

    args: Args
    home: Path | None
    _store: Any = None

    @property
    def store(self) -> Any:
        """The home's store; a home without one is an error (EB001), not a new empty store."""
        if self._store is None:
            from bundletui.store.db import Store

            self._store = Store(self.home, create=False)
        return self._store

    def has_store(self) -> bool:
        from bundletui.store.db import store_exists

        return self._store is not None or store_exists(self.home)

    def ctx(self, *, create: bool = False) -> Any:
        """``create``: a submission that is valid makes the store, as ``bundletui submit`` does."""
        from bundletui.commands.base import Ctx
        from bundletui.store.db import Store

        if create and not self.has_store():
            self._store = Store(self.home)
        return Ctx(self.store, face="oozie-cli")

    @property
    def verbose(self) -> bool:
        return self.args.has("verbose")

    @property
    def zone(self) -> tzinfo | None:
        """-localtime: the machine's zone (None); else -timezone, $OOZIE_TIMEZONE, GMT."""
        if self.args.has("localtime"):
            return None
        return _zone(self.args.get("timezone") or os.environ.get("OOZIE_TIMEZONE") or "GMT")


def _zone(tzid: str) -> tzinfo:
    from datetime import timedelta, timezone

    from bundletui.model.timeutil import parse_timezone

    try:
        zone = parse_timezone(tzid)
    except BundletuiError as exc:  # a display option, not a coordinator attribute (E1003)
        raise UsageError(
            "E0303", f"Invalid parameter value, [timezone] = [{tzid}]", hint=exc.hint
        ) from None
    # UTC under the name the user gave it: Java prints "GMT" or "UTC" as asked.
    return timezone(timedelta(0), tzid) if tzid in ("UTC", "GMT") else zone


def option_value(front: Front, name: str) -> str:
    """The value given to option ``name`` (the operation's job id), stripped."""
    return str(front.args.get(name)).strip()

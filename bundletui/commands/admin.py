"""Oozie's ``admin -systemmode``: the mode lives in the store, so the HTTP API, the CLI and the
console of every process agree on it (it used to live in the API process only).

NORMAL: everything. NOWEBSERVICE: the HTTP API answers 503 to all but admin. SAFEMODE: no job
is submitted or changed through any face; reading goes on, and so does the engine.
"""

from __future__ import annotations

from bundletui import __version__
from bundletui.commands.base import SYSTEM_MODES, Ctx, run
from bundletui.errors import CommandError
from bundletui.store.db import SYSTEM_MODE_KEY, Tx

__all__ = ["BUILD_VERSION", "SYSTEM_MODES", "set_system_mode"]

BUILD_VERSION = f"bundletui-{__version__}"
"""What ``oozie admin -version`` and ``GET admin/build-version`` report."""


def set_system_mode(ctx: Ctx, mode: str) -> str:
    """Set the mode (any case); the mode as stored."""
    wanted = mode.strip().upper()
    if wanted not in SYSTEM_MODES:
        raise CommandError(
            "E0303",
            f"Invalid parameter value, [systemmode] = [{mode}]",
            hint="NORMAL, NOWEBSERVICE or SAFEMODE",
        )

    def write(tx: Tx) -> str:
        ctx.store.set_meta(tx, SYSTEM_MODE_KEY, wanted)
        return wanted

    return run(ctx, "systemmode", "system", {"mode": wanted}, write)

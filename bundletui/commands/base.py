"""Running a command: one transaction, one audit row, typed errors.

Every face calls commands through :func:`run`: it opens the write transaction, calls the
command, writes the audit row in the same transaction, and on a user error rolls everything
back and records the failed attempt in the audit log on its own (the store is otherwise left as
it was).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bundletui.commands.effects import Effects, OutboxEffects
from bundletui.errors import BundletuiError, CommandError, QueuedError
from bundletui.model.clock import RealClock, to_ms
from bundletui.store.db import LOCKED, Store, Tx, current_user, system_mode
from bundletui.store.jobs import audit
from bundletui.store.lease import engine_running

T = TypeVar("T")

SYSTEM_MODES = ("NORMAL", "NOWEBSERVICE", "SAFEMODE")
"""Oozie's system modes, kept in the store's meta so every face and process sees one mode."""
ADMIN_COMMANDS = frozenset({"systemmode"})  # what still runs in SAFEMODE
QUEUED_WAIT_S = 5.0  # how long a command refused by a queued one waits for a live engine


def refuse_in_safe_mode(conn: sqlite3.Connection) -> None:
    """SAFEMODE: no job is submitted or changed, through any face (Oozie's E0002)."""
    if system_mode(conn) == "SAFEMODE":
        raise CommandError(
            "E0002",
            "System is in safe mode",
            hint="an operator put it there; bundletui oozie admin -systemmode NORMAL ends it",
        )


@dataclass
class Ctx:
    """Who runs commands, through which face, and where their effects go."""

    store: Store
    face: str = "cli"
    user: str = field(default_factory=current_user)
    effects: Effects = field(default_factory=OutboxEffects)
    # the job a submit's external id named, returned instead of a new one (found in the
    # submit's own transaction: a look before it misses a twin submit still committing)
    reused: str | None = None


def run(
    ctx: Ctx,
    command: str,
    target: str | None,
    args: dict[str, Any] | None,
    fn: Callable[[Tx], T],
) -> T:
    """Run ``fn`` in one write transaction with its audit row; errors leave the store as it was.
    Refused because a queued command has not been run yet (:class:`QueuedError`), it is tried
    again for a few seconds while an engine runs, which runs that command within a tick."""
    deadline = time.monotonic() + QUEUED_WAIT_S
    while True:
        try:
            with ctx.store.write() as tx:
                if command not in ADMIN_COMMANDS:
                    refuse_in_safe_mode(tx.conn)
                result = fn(tx)
                audit(
                    tx,
                    user=ctx.user,
                    face=ctx.face,
                    command=command,
                    target=target if target is not None else _target_of(result),
                    args=args,
                    result="ok",
                )
            return result
        except BundletuiError as error:
            if error.code == LOCKED:
                # the write lock stayed taken: an audit row would wait for it as long again
                raise
            if (
                isinstance(error, QueuedError)
                and time.monotonic() < deadline
                and engine_running(ctx.store.conn, to_ms(RealClock().now()))
            ):
                time.sleep(0.05)
                continue
            with ctx.store.write() as tx:
                audit(
                    tx,
                    user=ctx.user,
                    face=ctx.face,
                    command=command,
                    target=target,
                    args=args,
                    result="error",
                    error=f"{error.code}: {error.message}",
                )
            raise


def _target_of(result: object) -> str | None:
    return result if isinstance(result, str) else None


def fail(code: str, *args: object, hint: str | None = None, usage: bool = False) -> CommandError:
    """A CommandError from Oozie's template for ``code`` (``usage``: see BundletuiError)."""
    err = CommandError.from_template(code, *args, hint=hint, usage=usage)
    assert isinstance(err, CommandError)
    return err

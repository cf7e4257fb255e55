"""A command that finds the store's write lock taken waits for it once, not twice.

It used to write its failure's audit row in a second write transaction, which waited as long
again for the same lock: 60 s for the documented 30 (QA). Another process holds the lock
with ``BEGIN IMMEDIATE`` on a real store; the wait is shortened as the lock tests do.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from bundletui.commands.admin import set_system_mode
from bundletui.commands.base import Ctx
from bundletui.errors import BundletuiError
from bundletui.store import db
from bundletui.store.db import Store


def test_a_command_refused_for_a_held_write_lock_waits_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "LOCK_WAIT_MS", 1_000)
    store = Store(tmp_path)
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(BundletuiError) as refused:
            set_system_mode(Ctx(store), "SAFEMODE")
        took = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert refused.value.code == "EB006" and "nothing was changed" in refused.value.message
    assert 0.9 < took < 1.8, f"waited {took:.1f} s for a 1 s wait"
    assert store.system_mode() == "NORMAL"
    store.close()

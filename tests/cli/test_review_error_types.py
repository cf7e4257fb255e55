"""The store's and a path's errors as the faces say them are their layer's types: a damaged,
read-only or full store is a :class:`StoreError`, a path that cannot be one a
:class:`SpecError` (E0702, as the spec layer's own IO errors), their text unchanged.

Review: ``sqlite_error`` and ``path_error`` built the base ``BundletuiError``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from bundletui.cli._common import sqlite_error
from bundletui.errors import SpecError, StoreError, path_error

DAMAGED_HINT = (
    "restore bundletui.db from a backup, or move it aside (with its -wal and -shm files) and"
    " submit again to make a new one"
)


def caught(path: Path, sql: str, *, uri: bool = False) -> sqlite3.DatabaseError:
    conn = sqlite3.connect(path, uri=uri)
    try:
        conn.execute(sql)
        conn.commit()
    except sqlite3.DatabaseError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError(f"{sql} did not fail")


def test_a_damaged_store_is_a_store_error(tmp_path: Path) -> None:
    exc = caught(tmp_path / "bundletui.db", "SELECT * FROM wf_nodes")
    exc.add_note("submitted nothing")
    said = sqlite_error(exc)
    assert type(said) is StoreError
    assert (said.code, said.message, said.hint, said.usage) == (
        "EB004",
        "the store is damaged: no such table: wf_nodes; nothing was changed",
        DAMAGED_HINT,
        False,
    )
    assert said.__notes__ == ["submitted nothing"]
    (tmp_path / "not.db").write_text("hello, not a database\n")
    said = sqlite_error(caught(tmp_path / "not.db", "SELECT 1 FROM sqlite_master"))
    assert type(said) is StoreError and said.code == "EB004"
    assert said.message == "the store is damaged: file is not a database; nothing was changed"


def test_a_read_only_store_is_a_store_error(tmp_path: Path) -> None:
    db = tmp_path / "bundletui.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    said = sqlite_error(caught(Path(f"file:{db}?mode=ro"), "INSERT INTO t VALUES (1)", uri=True))
    assert type(said) is StoreError
    assert (said.code, said.message) == (
        "EB002",
        "cannot write the store: attempt to write a readonly database",
    )
    assert said.hint == (
        "bundletui.db (and its directory, for the -wal and -shm files) must be writable by this"
        " user: check their permissions or pass another --home"
    )


def test_a_full_store_is_a_store_error(tmp_path: Path) -> None:
    db = tmp_path / "bundletui.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.execute("PRAGMA max_page_count = 2")  # the store's file can grow no more: SQLITE_FULL
    try:
        conn.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,))
    except sqlite3.DatabaseError as exc:
        full = exc
    else:
        raise AssertionError("the insert did not fill the store")
    finally:
        conn.close()
    said = sqlite_error(full)
    assert type(said) is StoreError
    assert (said.code, said.message) == (
        "EB007",
        "the store could not be written, its disk is full (database or disk is full);"
        " nothing was changed",
    )


def test_an_unknown_sqlite_error_is_still_not_the_users(tmp_path: Path) -> None:
    assert sqlite_error(caught(tmp_path / "bundletui.db", "SELEC 1")) is None


@pytest.mark.parametrize(
    ("make", "why"),
    [
        ("long", "a name in it is too long (at most 255 bytes a name, 4096 in all)"),
        ("loop", "it goes round a loop of symbolic links"),
    ],
)
def test_an_impossible_path_is_a_spec_error(tmp_path: Path, make: str, why: str) -> None:
    if make == "long":
        path = tmp_path / ("a" * 300)
    else:
        (tmp_path / "l1").symlink_to(tmp_path / "l2")
        (tmp_path / "l2").symlink_to(tmp_path / "l1")
        path = tmp_path / "l1"
    with pytest.raises(OSError) as raised:
        os.stat(path)
    said = path_error(raised.value)
    assert type(said) is SpecError
    text = str(path)
    shown = text[:60] + "…" + text[-40:] if len(text) > 120 else text
    assert (said.code, said.message, said.hint, said.usage) == (
        "E0702",
        f"IO error, path [{shown}]: {why}",
        "check the path given",
        False,
    )
    assert said.where == ""  # no file shown in front of the message: it names the path


def test_another_os_error_is_not_a_path_error(tmp_path: Path) -> None:
    with pytest.raises(OSError) as raised:
        os.stat(tmp_path / "missing")
    assert raised.value.errno == errno.ENOENT
    assert path_error(raised.value) is None

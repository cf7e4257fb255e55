"""The file system under the store, failing: one clear error, nothing changed.

A full disk (EB007), for a command and for the engine, down to its first write (the lease):
after space is freed the engine takes up where it stopped. A landing
directory that cannot be made (EB204).

A private user and mount namespace gives the test a 2 MB tmpfs of its own, filled with a file
to 64 KB short of full: the store opens (its -shm exists), and the first commit fails with
SQLite's "database or disk is full". It used to be a raw traceback, from a command and from
the engine (QA, disk full).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import BUNDLETUI, FIXTURES, Bt

SCRIPT = """
set -u
D=$1; BT=$2; P=$3; PY=$4
HOLD="import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1]); c.execute('BEGIN');
c.execute('SELECT * FROM meta').fetchall(); time.sleep(60)"
mount -t tmpfs -o size=2m tmpfs "$D" || exit 97
W=$("$BT" submit "$P" -D marker="$D/m" --home "$D/home" --start) || exit 98
dd if=/dev/zero of="$D/filler" bs=4k 2>/dev/null; truncate -s -64K "$D/filler"
echo "== submit"; "$BT" submit "$P" -D marker="$D/m" --home "$D/home" 2>&1; echo "== exit $?"
echo "== new store"; "$BT" submit "$P" -D marker="$D/m" --home "$D/new" 2>&1; echo "== exit $?"
echo "== run"; "$BT" run --home "$D/home" --exit-when-idle 2>&1; echo "== exit $?"
"$PY" -c "$HOLD" "$D/home/bundletui.db" & sleep 1  # a reader keeps the -wal and -shm
dd if=/dev/zero of="$D/filler2" bs=4k 2>/dev/null
echo "== run on a full disk"; "$BT" run --home "$D/home" --exit-when-idle 2>&1; echo "== exit $?"
kill $!; wait
rm "$D/filler" "$D/filler2"
echo "== run again"; "$BT" run --home "$D/home" --exit-when-idle >/dev/null; echo "== exit $?"
"$BT" jobs --home "$D/home"; test -e "$D/m" && echo "== marker made"
"""


def test_a_full_disk_is_one_clear_error_and_the_engine_takes_up_after(tmp_path: Path) -> None:
    probe = subprocess.run(["unshare", "-U", "-r", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no private user and mount namespace here: {probe.stderr!r}")
    mnt = tmp_path / "small"
    mnt.mkdir()
    p = subprocess.run(
        ["unshare", "-U", "-r", "-m", "sh", "-c", SCRIPT, "sh", str(mnt), BUNDLETUI,
         str(FIXTURES / "touch" / "job.properties"), sys.executable],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    out = p.stdout + p.stderr
    if p.returncode in (97, 98):
        pytest.skip(f"cannot mount a tmpfs here: {out[-500:]}")
    assert "Traceback" not in out, out
    submit, run, full, again = (
        out.split("== submit")[1],
        out.split("== run\n")[1].split("== run on a full disk")[0],
        out.split("== run on a full disk")[1].split("== run again")[0],
        out.split("== run again")[1],
    )
    assert "EB007: the store could not be written, its disk is full" in submit, out
    assert "nothing was changed" in submit and "== exit 1" in submit, out
    new = out.split("== new store")[1].split("== run")[0]  # its first migration's commit fails
    assert "database or disk is full" in new and "no transaction" not in new, out
    assert "== exit 1" in new, out
    assert "EB007" in run and "the engine stopped, and its last tick was undone" in run, out
    assert "== exit 1" in run, out
    # not one byte free: the lease's own commit fails (QA: a traceback, then "cannot rollback")
    assert "EB007: the store could not be written, its disk is full" in full, out
    assert "no transaction" not in full and "== exit 1" in full, out
    assert "== exit 0" in again and "SUCCEEDED" in again and "== marker made" in again, out
    assert "1 of 1" in again, out  # the refused submit left nothing behind


def test_a_landing_directory_that_cannot_be_made_is_one_clear_error(bt: Bt) -> None:
    """QA (disk): ``run --landing DIR`` on a file system where DIR cannot be made printed a
    traceback after "engine active" (its parent exists, so the early check passed)."""
    bt.cli("submit", str(FIXTURES / "touch" / "job.properties"), "-D", "marker=/nonexistent/m")
    r = bt.cli("run", "--landing", "/proc/bundletui-landing", "--exit-when-idle", check=False)
    assert r.code == 1, r
    said = r.stdout + r.stderr
    assert "EB204: cannot make the landing directory /proc/bundletui-landing" in said, said
    assert "Traceback" not in said, said
    assert bt.cli("jobs").code == 0  # the engine let go of the store as it stopped

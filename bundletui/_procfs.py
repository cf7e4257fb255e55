"""What Linux's ``/proc`` says about a process: its state and when it started.

Below every layer (like :mod:`bundletui.errors`): the engine tells its jobs apart from reused
pids with it, and the store's lease tells a live holder from a dead one.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class ProcStat(NamedTuple):
    state: str  # R, S, D, T, Z, X…
    ppid: int
    start_ticks: int  # stat field 22: clock ticks after boot
    pgrp: int


def proc_stat(pid: int) -> ProcStat | None:
    """``/proc/<pid>/stat``, or None if there is no such pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # comm (field 2) may hold spaces and parentheses: fields resume after the LAST ')'.
    rest = data[data.rfind(b")") + 2 :].split()
    return ProcStat(rest[0].decode(), int(rest[1]), int(rest[19]), int(rest[2]))


def started_ms(st: ProcStat) -> int | None:
    """When the process started, in epoch ms (boot time from ``/proc/stat`` + its ticks)."""
    try:
        with open("/proc/stat", "rb") as f:
            btime = next(int(line.split()[1]) for line in f if line.startswith(b"btime "))
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return btime * 1000 + st.start_ticks * 1000 // os.sysconf("SC_CLK_TCK")


def group_alive(pgid: int) -> bool:
    """Whether any process is in group ``pgid`` (signal 0: nothing is sent). Zombies count:
    a group whose last member is a zombie is not gone yet."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # there, but another user's
        pass
    return True


def holds_open(pid: int, path: str | os.PathLike[str]) -> bool | None:
    """Whether process ``pid`` has the file at ``path`` open (an fd on its inode). None when
    that cannot be told: the file or the process is gone, or the process is another user's.
    A store copied with its lease row (a backup restored elsewhere) names an engine that runs
    on the original, not on the copy: this tells them apart."""
    try:
        want = os.stat(path)
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        try:
            st = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if st.st_ino == want.st_ino and st.st_dev == want.st_dev:
            return True
    return False

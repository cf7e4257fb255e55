"""Which host a record was written on: its name, and which kernel and pid namespace.

Below every layer (like :mod:`bundletui._procfs`). "This host" means "pids seen here are the
pids the record names": two containers that share a host name (``--network host``, a fixed
``--hostname``) each have pids of their own, and an engine that judged the other's lease or
jobs by its own ``/proc`` found them dead and took over beside them (QA: two engines on one
store). A record is ``name/key``; the key is the boot id and the pid namespace. Records
written before the key existed have a bare name, and are judged by it, as they were.
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import os
import socket


@functools.cache
def _key() -> str:
    """This kernel boot and pid namespace, as 10 hex digits ('' where /proc says neither)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot = f.read().strip()
    except OSError:
        boot = ""
    try:
        pidns = os.readlink("/proc/self/ns/pid")  # pid:[4026531836]
    except OSError:
        pidns = ""
    if not boot and not pidns:
        return ""
    return hashlib.sha1(f"{boot} {pidns}".encode()).hexdigest()[:10]


def host_key() -> str:
    """The key alone, for names of files only this host may clean up ("here" without one)."""
    return _key() or "here"


def this_host() -> str:
    """The record of this host, as written into leases and attempts' ``.host`` files."""
    key = _key()
    name = socket.gethostname()
    return f"{name}/{key}" if key else name


def same_host(recorded: str, here: str | None = None) -> bool:
    """Whether ``recorded`` names the host ``here`` (this one by default): the same name and,
    when both carry one, the same key."""
    name, _, key = recorded.partition("/")
    here_name, _, here_key = (here if here is not None else this_host()).partition("/")
    return name == here_name and (not key or not here_key or key == here_key)


def host_label(recorded: str) -> str:
    """A record as said to a person: the host name, and when it is this host's name but not
    this host, that it is another one of the same name."""
    name, _, key = recorded.partition("/")
    if key and name == socket.gethostname() and not same_host(recorded):
        return f"{name} (another container or machine of that name, or before a reboot)"
    return name


def os_user() -> str:
    """Who runs this process: a job's ``user.name`` when its configuration gives none."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "user"

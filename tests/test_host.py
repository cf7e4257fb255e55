"""Host records: a name, and the kernel boot and pid namespace whose pids the record means."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from bundletui._host import host_label, same_host, this_host
from bundletui.store import lease as lease_store
from bundletui.store.db import Store


def test_a_record_of_this_host_is_this_host_and_a_same_named_one_of_another_key_is_not() -> None:
    name = socket.gethostname()
    here = this_host()
    assert here.partition("/")[0] == name and here.partition("/")[2]
    assert same_host(here)
    assert not same_host(f"{name}/0000000000")  # a container of this name, or this one rebooted
    assert not same_host(f"elsewhere/{here.partition('/')[2]}")
    assert same_host(name)  # written before the key existed: judged by its name, as it was
    assert same_host("a/1", "a") and not same_host("a/1", "a/2") and not same_host("a", "b")


def test_a_same_named_other_host_is_said_to_be_another_one() -> None:
    name = socket.gethostname()
    assert host_label(this_host()) == name
    assert host_label("db7/abc") == "db7"
    assert (
        host_label(f"{name}/0000000000")
        == f"{name} (another container or machine of that name, or before a reboot)"
    )


def test_a_lease_of_a_same_named_host_whose_pid_is_not_seen_here_is_not_taken(
    tmp_path: Path,
) -> None:
    """Its holder's pid is another pid namespace's: that it is not in our /proc says nothing.
    It is judged by its lease's expiry, as another host's is."""
    name = socket.gethostname()
    now = int(time.time() * 1000)
    with Store(tmp_path) as store:
        assert (
            lease_store.try_acquire(store, "a", 4_000_000, f"{name}/0000000000", "run", now, 60_000)
            is None
        )
        taken = lease_store.try_acquire(store, "b", 1, this_host(), "run", now + 1, 60_000)
        assert taken is not None and taken.holder == "a"  # live lease: b waits
        assert lease_store.holder_process(taken) == "unknown"
        assert (
            lease_store.try_acquire(store, "b", 1, this_host(), "run", now + 61_000, 60_000) is None
        )
        # a bare name (an older bundletui's lease, here c's) whose pid is gone here is dead at
        # once, as before (c took b's lease: b's pid 1 does not hold this store)
        assert (
            lease_store.try_acquire(store, "c", 4_000_000, name, "run", now + 62_000, 60_000)
            is None
        )
        assert (
            lease_store.try_acquire(store, "d", 1, this_host(), "run", now + 62_001, 60_000) is None
        )

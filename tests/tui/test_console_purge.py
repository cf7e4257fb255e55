"""A purge run beside an open console takes the jobs it deleted out of the tree.

Polls fetch rows written after a revision, and a deleted row leaves none behind: the store
keeps the revision of its last purge, and the console reloads the top of its tree when that
changes. The purge is the real CLI, in its own process, while the console's engine runs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bundletui.store import changes
from tests.tui.conftest import Env, console, submit

pytestmark = pytest.mark.usefixtures("fast_keys")
BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))


async def test_a_purge_takes_the_jobs_it_deleted_out_of_the_tree(env: Env) -> None:
    wf = submit(env, "wf")
    async with console(env) as h:
        await h.until(lambda: h.workflow_status(wf) == "SUCCEEDED", what="the workflow ended")
        await h.select(wf)
        purge = subprocess.run(
            [BUNDLETUI, "purge", "--wf", "0", "--home", str(env.home)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert purge.returncode == 0, purge.stderr
        assert "purged 1 workflow(s), 0 coordinator(s), 0 bundle(s)" in purge.stderr
        await h.until(lambda: wf not in h.tree.nodes, what="the purged workflow left the tree")
        assert wf not in h.main.model.items
        assert env.bundle in h.tree.nodes  # the running bundle stays, with its coordinators
        assert len([c for c in h.main.model.items.values() if c.kind == "coord"]) == 2
        assert h.warned(f"{wf} is no longer shown")


async def test_a_purge_leaves_the_jobs_it_did_not_delete_in_the_tree(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (purge): the reload after a purge kept only the jobs its first page of top-level
    workflows (the newest 500) held, so an older workflow still running left the tree. Here
    the page is cut to none once the console is up, as a store of many workflows cuts it."""
    running = submit(env, "sleepy")
    wf = submit(env, "wf")
    async with console(env) as h:
        await h.until(lambda: h.workflow_status(wf) == "SUCCEEDED", what="the workflow ended")
        await h.until(lambda: running in h.tree.nodes, what="the running workflow shown")
        original = changes.top_level
        monkeypatch.setattr(changes, "top_level", lambda conn: original(conn, 0))
        purge = subprocess.run(
            [BUNDLETUI, "purge", "--wf", "0", "--home", str(env.home)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "purged 1 workflow(s)" in purge.stderr, purge.stderr
        await h.until(lambda: wf not in h.tree.nodes, what="the purged workflow left the tree")
        assert running in h.tree.nodes and running in h.main.model.items

"""The console's log view (and its log tail pane) by the one rule of commands/logs (see
tests/commands/test_logs_uniform.py): a sub-workflow node's log is its child's nodes', each
named ``sub → boom``, in the node's log and in its workflow's; the sections are named when
there are several. The console showed the sub-workflow node's own files: none ("no output").
A real store, the console's own engine running the jobs, the app driven with Pilot.
"""

from __future__ import annotations

from textual.widgets import Log

from bundletui.store.db import Store
from bundletui.tui.views import LogScreen
from tests.commands.test_logs_uniform import submit, write_apps
from tests.tui.conftest import Env, Harness, console

SUB_VIEW = [
    "── sub → ok stdout ──",
    "child ok",
    "── sub → boom stdout ──",
    "boom out",
    "── sub → boom stderr ──",
    "boom failed: no input",
]
PARENT_VIEW = ["── prep stdout ──", "prep ran", *SUB_VIEW]


async def view(h: Harness, job_id: str, last: str) -> list[str]:
    """The log view of ``job_id`` once ``last`` is in it; closed again."""
    await h.select(job_id)
    await h.press("l")
    screen = h.app.screen
    assert isinstance(screen, LogScreen)
    await h.until(lambda: last in screen.lines, what=f"{last!r} in the log view of {job_id}")
    lines = list(screen.lines)
    await h.press("escape")
    await h.until(lambda: not isinstance(h.app.screen, LogScreen), what="the view closed")
    return lines


async def test_the_log_of_a_sub_workflow_node_and_its_parent_show_the_childs(env: Env) -> None:
    apps = write_apps(env.root / "uniform")
    with Store(env.home) as store:
        parent = submit(store, apps["parent"], childPath=str(apps["child"]))
        pair = submit(store, apps["pair"])
    async with console(env) as h:
        await h.until(
            lambda: h.workflow_status(parent) == "FAILED" and h.workflow_status(pair) == "FAILED",
            what="both workflows to fail",
        )
        await h.until(lambda: parent in h.tree.nodes, what="the parent in the tree")
        await h.expand(parent)
        sub = f"{parent}@sub"
        await h.select(sub)
        tail = h.main.query_one("#logtail", Log)
        await h.until(lambda: "boom failed: no input" in tail.lines, what="the log tail")
        # the pane's headings are the view's without its closing rule
        assert list(tail.lines) == [line.removesuffix(" ──") for line in SUB_VIEW]
        assert await view(h, sub, "boom failed: no input") == SUB_VIEW
        assert await view(h, parent, "boom failed: no input") == PARENT_VIEW
        # ``a`` failed and ``b`` never ran: one section, its streams not named
        await h.until(lambda: pair in h.tree.nodes, what="the pair in the tree")
        assert await view(h, pair, "a err") == ["── stdout ──", "a out", "── stderr ──", "a err"]

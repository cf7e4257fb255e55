"""The rerun dialog's keyboard path: Cancel first, then Tab reaches its options, with no
unseen stop in between (QA (p): the second Tab from Cancel landed on the scroll container,
so Tab Tab Down Down Enter kept "failed nodes only" without a word)."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Button, RadioSet

from bundletui.store.changes import WORKFLOW
from bundletui.tui.dialogs import RerunDialog
from bundletui.tui.model import Target


async def test_tab_from_cancel_reaches_the_rerun_modes() -> None:
    target = Target("0000001-260101000000000-bundletui-u-W", WORKFLOW, "etl", "FAILED")

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(RerunDialog(target))

    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.focused, Button) and app.focused.id == "cancel"
        await pilot.press("tab")
        assert isinstance(app.focused, Button) and app.focused.id == "ok"
        await pilot.press("tab")
        assert isinstance(app.focused, RadioSet), app.focused

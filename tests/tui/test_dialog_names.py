"""Job names are data, never markup: a name such as ``x-[prod]`` kept its brackets in the tree
but lost them in the kill dialog, whose type-to-confirm prompt then named a string the dialog
refused (QA (p), high). The real dialog, in an app driven by Pilot."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Input, Label

from bundletui.store.changes import BUNDLE
from bundletui.tui.dialogs import ConfirmDialog
from bundletui.tui.model import Target

NAME = "customer-[prod]-[bold]etl[/bold]"


async def test_a_bracketed_name_is_shown_and_typed_as_it_is() -> None:
    answers: list[bool | None] = []
    target = Target("0000001-260101000000000-bundletui-u-B", BUNDLE, NAME, "RUNNING")

    class Host(App[None]):
        def on_mount(self) -> None:
            dialog = ConfirmDialog(f"Kill bundle {NAME}", "Kill", [target], type_to_confirm=NAME)
            self.push_screen(dialog, answers.append)

    app = Host()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        shown = [str(label.render()) for label in app.screen.query(Label)]
        assert f"Kill bundle {NAME}" in shown, shown
        assert f"Type {NAME!r} to confirm:" in shown, shown
        assert isinstance(app.focused, Input)
        for ch in NAME:
            await pilot.press(ch if len(ch) == 1 and ch.isalnum() else _key(ch))
        await pilot.press("enter")
        await pilot.pause()
    assert answers == [True]


def _key(ch: str) -> str:
    return {"-": "minus", "[": "left_square_bracket", "]": "right_square_bracket", "/": "slash"}[ch]

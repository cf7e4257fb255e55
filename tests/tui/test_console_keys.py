"""Every key and dialog of the console on a real store with the console's own engine: the
commands change the store as the CLI would (same command functions, audited as ``console``),
keys that do not apply explain why, read-only hides the destructive ones, dialogs show the
ids captured at the key press with Cancel focused, and bundle or bulk kills need typing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from textual.widgets import Button, Input, Label

from bundletui.commands.base import Ctx
from bundletui.commands.dispatch import change
from bundletui.model.clock import RealClock, from_ms
from bundletui.model.timeutil import format_oozie_time
from bundletui.store import jobs
from bundletui.store.rows import ActionRow, CoordRow, WorkflowRow
from bundletui.tui.dialogs import ConfirmDialog, HelpScreen, PauseDialog, RerunDialog
from bundletui.tui.views import TextScreen
from bundletui.tui.widgets import ActionTable
from tests.tui.conftest import Env, console

pytestmark = pytest.mark.usefixtures("fast_keys")


def coord_id(h, name: str) -> str:  # type: ignore[no-untyped-def]
    return h.coords()[name].id


async def test_suspend_then_resume_a_coordinator(env: Env) -> None:
    async with console(env) as h:
        hourly = coord_id(h, "hourly")
        await h.select(hourly)
        await h.press("s")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert [t.id for t in dialog.targets] == [hourly]
        assert dialog.note == "its running workflows follow"  # a time coordinator drops nothing
        assert dialog.focused is not None and dialog.focused.id == "cancel"
        await h.press("enter")  # Enter on the focused Cancel: nothing happens
        assert not isinstance(h.app.screen, ConfirmDialog)
        assert h.status(CoordRow, hourly) == "RUNNING"

        await h.press("s")
        await h.press("tab", "enter")  # the operator moves to Suspend on purpose
        await h.until(lambda: h.status(CoordRow, hourly) == "SUSPENDED", what="suspended")
        row = h.audit()[0]
        assert (row.face, row.command, row.target, row.result) == (
            "console",
            "suspend",
            hourly,
            "ok",
        )
        await h.until(lambda: h.warned("suspend"), what="toast")
        await h.until(lambda: h.main.model.items[hourly].status == "SUSPENDED", what="relabel")

        await h.press("r", "tab", "enter")
        await h.until(lambda: h.status(CoordRow, hourly) == "RUNNING", what="resumed")
        assert h.audit()[0].command == "resume"


async def test_pause_time_dialog_sets_and_clears(env: Env) -> None:
    async with console(env) as h:
        hourly = coord_id(h, "hourly")
        await h.select(hourly)
        await h.press("p")
        dialog = h.app.screen
        assert isinstance(dialog, PauseDialog)
        assert dialog.target.id == hourly
        await h.type("soon")
        await h.press("enter")  # invalid: refused, the dialog stays
        assert isinstance(h.app.screen, PauseDialog)
        assert h.warned("yyyy-MM-ddTHH:mmZ")
        box = dialog.query_one("#when", Input)
        box.value = ""
        await h.type("+2h")
        await h.until(
            lambda: "will not be materialized" in str(dialog.query_one("#preview").render()),
            what="preview",
        )
        await h.press("enter")
        now = RealClock().now()
        await h.until(lambda: h.coords()["hourly"].pause_time is not None, what="pause set")
        pause = from_ms(h.coords()["hourly"].pause_time or 0)
        assert now + timedelta(hours=1, minutes=58) < pause <= now + timedelta(hours=2, minutes=2)
        assert h.audit()[0].command == "change"
        assert "pausetime=" in (h.audit()[0].args or "")
        await h.press("colon")  # the audit view says what was changed, not only "change"
        await h.type("audit")
        await h.press("enter")
        await h.until(lambda: isinstance(h.app.screen, TextScreen), what="audit")
        line = next(x for x in h.app.screen.plain.splitlines() if " change " in x)  # type: ignore[attr-defined]
        assert f"ok {hourly} value=pausetime=" in line, line
        await h.press("escape")

        await h.press("p")
        await h.press("tab", "tab", "tab", "tab", "enter")  # the Clear preset
        assert h.app.screen.query_one("#when", Input).value == "clear"
        await h.press("enter")
        await h.until(lambda: h.coords()["hourly"].pause_time is None, what="pause cleared")


async def test_pause_dialog_starts_with_the_current_time_and_enter_on_it_changes_nothing(
    env: Env,
) -> None:
    """k9s: the default action of a dialog changes nothing. The box shows the pause time set
    elsewhere; Enter on it sends nothing (no change, no audit row), an emptied box does not
    clear it, and with no pause time a bare Enter audits no no-op change."""
    async with console(env) as h:
        hourly = coord_id(h, "hourly")
        when = format_oozie_time(RealClock().now().replace(second=0, microsecond=0)
                                 + timedelta(days=3))  # fmt: skip
        change(Ctx(h.store, face="cli"), hourly, f"pausetime={when}")  # another shell
        await h.until(lambda: h.main.model.items[hourly].row.pause_time, what="in the tree")
        set_at = h.coords()["hourly"].pause_time

        def console_changes() -> int:
            return sum(1 for r in h.audit() if r.face == "console")

        await h.select(hourly)
        await h.press("p")
        dialog = h.app.screen
        assert isinstance(dialog, PauseDialog)
        box = dialog.query_one("#when", Input)
        assert box.value == when and dialog.focused is box
        assert dialog.query_one("#ok", Button).disabled  # nothing to set yet
        await h.press("enter")
        assert not isinstance(h.app.screen, PauseDialog)
        await h.until(lambda: h.warned("pause time unchanged"), what="said so")
        await h.pilot.pause(0.3)
        assert h.coords()["hourly"].pause_time == set_at
        assert console_changes() == 0

        await h.press("p")
        box = h.app.screen.query_one("#when", Input)
        box.value = ""  # emptied: not a way to clear by accident
        await h.press("enter")
        assert isinstance(h.app.screen, PauseDialog)
        assert h.warned("press Clear")
        await h.press("escape")
        assert h.coords()["hourly"].pause_time == set_at and console_changes() == 0

        await h.press("p")
        await h.press("tab", "tab", "tab", "tab", "enter")  # Clear, on purpose
        await h.press("enter")
        await h.until(lambda: h.coords()["hourly"].pause_time is None, what="cleared")
        await h.until(lambda: h.main.model.items[hourly].row.pause_time is None, what="shown")
        assert console_changes() == 1

        await h.press("p")  # none set, nothing typed: Enter sends nothing
        assert h.app.screen.query_one("#when", Input).value == ""
        await h.press("enter")
        assert not isinstance(h.app.screen, PauseDialog)
        await h.pilot.pause(0.3)
        assert console_changes() == 1


async def test_kill_an_action_then_rerun_it(env: Env) -> None:
    async with console(env) as h:
        hourly = coord_id(h, "hourly")
        await h.expand(hourly)
        action = f"{hourly}@2"
        await h.select(action)
        await h.press("ctrl+k")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog) and dialog.type_to_confirm is None
        assert [t.id for t in dialog.targets] == [action]
        await h.press("tab", "enter")
        await h.until(lambda: h.status(ActionRow, action) == "KILLED", what="action killed")
        await h.until(lambda: h.main.model.items[action].status == "KILLED", what="relabel")

        await h.press("R")
        rerun = h.app.screen
        assert isinstance(rerun, RerunDialog) and rerun.target.id == action
        assert rerun.focused is not None and rerun.focused.id == "cancel"
        await h.press("tab", "enter")
        await h.until(lambda: h.status(ActionRow, action) == "WAITING", what="rerun")
        row = h.audit()[0]
        assert (row.command, row.target, row.face) == ("rerun", hourly, "console")

        # a coordinator's rerun dialog offers its failed actions and checks the scope
        await h.select(f"{hourly}@5")
        await h.press("ctrl+k", "tab", "enter")
        await h.until(lambda: h.status(ActionRow, f"{hourly}@5") == "KILLED", what="@5 killed")
        await h.until(lambda: h.main.model.counts_of(hourly).get("KILLED") == 1, what="counts")
        await h.select(hourly)
        await h.press("R")
        await h.until(lambda: isinstance(h.app.screen, RerunDialog), what="rerun dialog")
        dialog = h.app.screen
        assert dialog.query_one("#actions", Input).value == "5"
        dialog.query_one("#actions", Input).value = "5-"
        assert dialog.choice() == (  # the command's error and hint
            "E0302: Invalid parameter [action scope 5-]\n  hint: use numbers and ranges, e.g. 1,3-4"
        )
        dialog.query_one("#actions", Input).value = "5"
        dialog.query_one("#refresh").value = True  # type: ignore[attr-defined]
        dialog.query_one("#cancel", Button).focus()
        await h.press("tab", "enter")
        await h.until(lambda: h.status(ActionRow, f"{hourly}@5") == "WAITING", what="rerun @5")
        assert '"actions":"5"' in (h.audit()[0].args or "") and '"refresh":true' in (
            h.audit()[0].args or ""
        )


async def test_a_bundle_kill_asks_for_its_name(env: Env) -> None:
    async with console(env) as h:
        await h.select(env.bundle)
        await h.press("ctrl+k")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog) and dialog.type_to_confirm == "feeds"
        ok = dialog.query_one("#ok", Button)
        await h.type("feed")
        await h.press("enter")
        assert ok.disabled and isinstance(h.app.screen, ConfirmDialog)
        assert h.bundle_status() == "RUNNING"
        # QA: Enter on another name said nothing
        assert ("warning", "type 'feeds' to confirm ('feed' does not match)") in h.toasts
        await h.press("s", "enter")
        await h.until(
            lambda: h.bundle_status() == "KILLED",
            what=f"bundle killed {h.toasts} {h.app.screen} {h.audit()[0]}",
        )
        await h.until(
            lambda: all(c.status in ("KILLED", "SUCCEEDED") for c in h.coords().values()),
            what="coordinators killed by the engine",
        )


async def test_marks_make_a_bulk_kill_that_needs_typing(env: Env) -> None:
    async with console(env) as h:
        hourly = coord_id(h, "hourly")
        await h.expand(hourly)
        first, second = f"{hourly}@3", f"{hourly}@4"
        await h.select(first)
        await h.press("m")  # marks and moves down
        assert h.main.selected_id == second
        await h.press("m")
        assert h.main.model.marks == {first, second}
        await h.press("ctrl+k")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert sorted(t.id for t in dialog.targets) == [first, second]
        assert dialog.type_to_confirm == "kill 2"
        await h.type("kill 2")
        await h.press("enter")
        await h.until(
            lambda: {h.status(ActionRow, first), h.status(ActionRow, second)} == {"KILLED"},
            what="both killed",
        )
        # done with the marks (QA (aa): they stayed, and the next key acted on them, not on
        # the cursor, as k9s clears them)
        assert not h.main.model.marks
        third = f"{hourly}@5"
        await h.select(first)
        for _ in range(3):
            await h.press("m")  # 3 marked; the two KILLED ones cannot be killed again
        await h.until(lambda: len(h.main.model.marks) == 3, what="three marked")
        await h.press("ctrl+k")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert [t.id for t in dialog.targets] == [third]
        assert "2 other marked jobs cannot be killed" in dialog.title_text, dialog.title_text
        await h.press("escape")
        await h.press("M")
        assert not h.main.model.marks


async def test_keys_that_do_not_apply_say_why(env: Env) -> None:
    async with console(env) as h:
        daily = coord_id(h, "daily")
        await h.select(daily)
        assert h.main.check_action("resume", ()) is None  # greyed in the key bar
        await h.press("r")
        assert h.warned("resume: coordinator is SUCCEEDED")
        await h.press("s")
        assert h.warned("suspend: coordinator is SUCCEEDED")
        await h.press("l")
        assert h.warned("logs: a coordinator has no logs of its own")
        assert not isinstance(h.app.screen, ConfirmDialog)
        keys = str(h.main.query_one("#keys").render())
        assert "Resume" in keys and "Logs" not in keys  # greyed stays, never-for-kind goes

        hourly = coord_id(h, "hourly")
        await h.expand(hourly)
        await h.select(f"{hourly}@1")
        await h.press("p")
        assert h.warned("pause: a pause time belongs to bundles and coordinators")
        await h.press("s")
        assert h.warned("suspend: action is WAITING")
        assert h.audit()[0].command == "submit"  # nothing ran


async def test_read_only_details_name_the_command_not_the_hidden_key(env: Env) -> None:
    """A read-only console hides ``r``: a suspended job's why said "r resumes it" anyway."""
    from tests.cli import bundletui

    hourly = coord_id_of(env, "hourly")
    assert bundletui("suspend", hourly, home=env.home).returncode == 0
    async with console(env, engine="none", read_only=True, ready=False) as h:
        await h.select(hourly)
        pane = h.main.query_one("#details-text")
        await h.until(lambda: "why:" in str(pane.render()), what="details")
        assert (
            "why: suspended: nothing materializes or launches until"
            f" `bundletui resume {hourly}` resumes it" in str(pane.render()).replace("\n", " ")
        ), str(pane.render())
        assert "r resumes" not in str(pane.render())


async def test_the_rerun_dialog_says_a_suspended_coordinator_is_resumed(env: Env) -> None:
    """QA (u): a rerun of a suspended coordinator's action resumes it (as Oozie's), while its
    why said nothing launches until it is resumed; the dialog did not say so."""
    from tests.cli import bundletui

    hourly = coord_id_of(env, "hourly")
    assert bundletui("kill", f"{hourly}@1", home=env.home).returncode == 0
    assert bundletui("suspend", hourly, home=env.home).returncode == 0
    async with console(env, engine="none", ready=False) as h:
        await h.expand(hourly)
        await h.select(f"{hourly}@1")
        await h.press("R")
        await h.until(lambda: isinstance(h.app.screen, RerunDialog), what="rerun dialog")
        assert h.app.screen.note == "Its coordinator is SUSPENDEDWITHERROR: the rerun resumes it."
        await h.press("escape")
        await h.select(env.bundle)  # not a coordinator's: no such note
        await h.press("R")
        await h.until(lambda: isinstance(h.app.screen, RerunDialog), what="bundle dialog")
        assert h.app.screen.note == ""


def coord_id_of(env: Env, name: str) -> str:
    with env.store() as store:
        return next(c.id for c in jobs.select(store.conn, CoordRow) if c.app_name == name)


async def test_read_only_hides_destructive_keys(env: Env) -> None:
    async with console(env, engine="none", read_only=True, ready=False) as h:
        await h.until(lambda: env.bundle in h.tree.nodes, what="tree")
        await h.select(env.bundle)
        for action in ("suspend", "resume", "pause", "kill", "rerun", "mark"):
            assert h.main.check_action(action, ()) is False, action
        keys = str(h.main.query_one("#keys").render())
        for word in ("Suspend", "Kill", "Rerun", "Pause", "Mark"):
            assert word not in keys
        assert "Describe" in keys and "Filter" in keys
        await h.press("ctrl+k")
        assert not isinstance(h.app.screen, ConfirmDialog)
        assert h.warned("read-only")
        assert "RO" in str(h.main.query_one("#header").render())
        header = str(h.main.query_one("#header").render())
        assert "engine: none" in header and "commands wait" not in header  # none are sent
        await h.press("q")
        await h.until(lambda: h.app.return_code is not None, what="q quits")
        assert h.app.return_code == 0


async def test_a_workflow_rerun_and_its_options(env: Env) -> None:
    from tests.tui.conftest import submit

    wf = submit(env, "wf")
    async with console(env) as h:
        await h.until(lambda: h.workflow_status(wf) == "SUCCEEDED", what="workflow done")
        await h.until(lambda: wf in h.tree.nodes, what="workflow in tree")
        await h.until(lambda: h.main.model.items[wf].status == "SUCCEEDED", what="relabel")
        await h.select(wf)
        await h.press("R")
        dialog = h.app.screen
        assert isinstance(dialog, RerunDialog)
        choice = dialog.choice()
        assert not isinstance(choice, str) and choice.failed_nodes  # the default
        dialog.query_one("#cancel", Button).focus()
        await h.press("tab", "enter")
        await h.until(
            lambda: (jobs.get(h.store.conn, WorkflowRow, wf) or WorkflowRow).run == 1,  # type: ignore[arg-type]
            what="run + 1",
        )
        assert h.audit()[0].command == "rerun"


async def test_a_bundle_rerun_must_be_typed(env: Env) -> None:
    async with console(env) as h:
        await h.select(env.bundle)
        await h.press("R")
        dialog = h.app.screen
        assert isinstance(dialog, RerunDialog) and dialog.target.id == env.bundle
        name = dialog.target.name
        dialog.query_one("#typed", Input).value = name
        # QA (u): the names were the box's value, so a rerun by dates went the "named" way and
        # was refused whole when one coordinator could not rerun; they are its placeholder now
        box = dialog.query_one("#coordinators", Input)
        assert box.value == "" and set(box.placeholder.split(",")) == {"hourly", "daily"}
        assert dialog.choice() == "give coordinator names, or dates for all of them"
        dialog.query_one("#typed", Input).value = ""
        dialog.query_one("#dates", Input).value = "2024-01-01T00:00Z::2024-01-01T05:00Z"
        assert dialog.choice() == f"type {name!r} to confirm"
        dialog.query_one("#typed", Input).value = name
        choice = dialog.choice()
        assert not isinstance(choice, str) and not choice.coordinators
        dialog.query_one("#cancel", Button).focus()
        await h.press("tab", "enter")
        # daily reruns; hourly (WAITING actions in the dates) is passed over, and the toast
        # says so, as the CLI's warning and the API's warnings do
        await h.until(lambda: h.warned("passed over coordinator hourly"), what="the warning")
        row = h.audit()[0]
        assert (row.command, row.result, row.target) == ("rerun", "ok", env.bundle)


async def test_mark_is_hidden_while_the_action_table_has_the_focus(env: Env) -> None:
    """QA: ``m`` showed enabled in the key bar with the action table focused, where it does
    nothing (marks live in the tree). ``check_action`` hides it there; pressing it says why;
    back in the tree it is there again."""
    async with console(env) as h:
        hourly = coord_id(h, "hourly")
        await h.expand(hourly)  # its actions are in the tree too: a mark would go unseen
        table = h.main.query_one(ActionTable)
        await h.until(lambda: table.coord_id == hourly and table.row_count, what="the table")
        assert h.main.check_action("mark", ()) is True
        table.focus()
        await h.until(lambda: h.main.selected_id == table.highlighted_id(), what="row selected")
        assert h.main.check_action("mark", ()) is False
        keys = str(h.main.query_one("#keys").render())
        assert "Mark" not in keys and "Kill" in keys, keys
        await h.press("m")
        assert h.warned("mark: marks are set in the tree")
        assert not h.main.model.marks
        await h.press("question_mark")  # help does not offer it there either
        help_screen = h.app.screen
        assert isinstance(help_screen, HelpScreen)
        assert next(e for e in help_screen.entries if e.action == "mark").state == "greyed"
        await h.press("escape")
        h.tree.focus()
        await h.pilot.pause(0.05)
        assert h.main.check_action("mark", ()) is True
        assert "Mark" in str(h.main.query_one("#keys").render())


async def test_enter_in_the_bundle_rerun_confirm_box_reruns(env: Env) -> None:
    """QA (aa): as in the kill dialog's box; it did nothing, and the next keys went into it."""
    async with console(env, engine="none", ready=False) as h:
        await h.until(lambda: env.bundle in h.tree.nodes, what="tree")
        await h.select(env.bundle)
        await h.press("R")
        await h.until(lambda: isinstance(h.app.screen, RerunDialog), what="bundle dialog")
        dialog = h.app.screen
        assert isinstance(dialog, RerunDialog)
        name = dialog.target.name
        dialog.query_one("#dates", Input).value = "2026-01-01T00:00Z::2026-01-01T01:00Z"
        dialog.query_one("#typed", Input).focus()
        await h.pilot.pause()
        await h.type(name[:-1])
        await h.press("enter")  # not yet the name: stays, saying why
        assert h.app.screen is dialog
        assert f"type {name!r} to confirm" in str(dialog.query_one("#problem", Label).render())
        await h.type(name[-1])
        await h.press("enter")
        await h.until(lambda: h.app.screen is not dialog, what="the dialog to close")
        await h.until(lambda: bool(h.toasts), what="the rerun's toast")

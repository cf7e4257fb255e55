"""The console asks the rules of the layers below it, and agrees with them: what has ended
(model.status), what holds READY actions (the commands' ``waitingFor``), which keys apply (the
transition table and the change command's rules), and which rerun scopes the command takes
(its own parsers)."""

from __future__ import annotations

import pytest
from rich.text import Text

from bundletui.commands import workflows as wfcmd
from bundletui.commands.admin import set_system_mode
from bundletui.commands.base import Ctx
from bundletui.commands.coordinators import parse_action_scope
from bundletui.commands.dispatch import change
from bundletui.commands.submit import submit_loaded
from bundletui.errors import BundletuiError
from bundletui.model.status import (
    ACTION_TERMINAL,
    JOB_TERMINAL,
    NODE_TERMINAL,
    WORKFLOW_TERMINAL,
    ActionStatus,
    JobStatus,
    NodeStatus,
    WorkflowStatus,
    has_ended,
)
from bundletui.spec.load import load_job
from bundletui.store.changes import BUNDLE, COORD, TreeRow
from bundletui.store.db import Store
from bundletui.store.rows import ActionRow, NodeRow
from bundletui.tui.details import bundle_page
from bundletui.tui.dialogs import PauseDialog, RerunChoice, RerunDialog
from bundletui.tui.inputs import check_action_scope, check_date_scope
from bundletui.tui.model import ConsoleModel, Item, availability
from bundletui.tui.views import LogScreen
from tests.tui.conftest import Env, Harness, console

pytestmark = pytest.mark.usefixtures("fast_keys")


def details(h: Harness) -> str:
    shown = h.main.query_one("#details-text")._shown  # type: ignore[attr-defined]
    return shown.plain if isinstance(shown, Text) else str(shown)


def why(page: str) -> str:
    return next(line for line in page.splitlines() if line.startswith("why: "))[5:]


def job(kind: str, status: str, **counts: int) -> Item:
    m = ConsoleModel()
    row = TreeRow(kind, "X", None, "x", status, 0, 0)
    m.items[row.id] = m._put(row)
    m.items[row.id].counts = counts
    return m.items[row.id]


# ----------------------------------------------------------------------------- 1: ended


def test_has_ended_is_each_kinds_terminal_set_and_nothing_live() -> None:
    for enum, ended in (
        (JobStatus, {*JOB_TERMINAL, JobStatus.IGNORED}),
        (ActionStatus, ACTION_TERMINAL),
        (WorkflowStatus, WORKFLOW_TERMINAL),
        (NodeStatus, NODE_TERMINAL),
    ):
        for status in enum:
            assert has_ended(status) == (status in ended), status
    # a drain-suspended job's running nodes still write; a paused one still materializes
    for live in ("SUSPENDED", "SUSPENDEDWITHERROR", "PREPSUSPENDED", "PAUSED", "SUBMITTED"):
        assert not has_ended(live), live


GATED = """<dag-app xmlns="uri:bundletui:dag:1.0" name="gated">
  <job name="late"><shell><exec>sh</exec><argument>-c</argument>
    <argument>i=0; while [ ! -e {gate} -a $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done;
      echo written-after-the-suspend</argument></shell></job>
</dag-app>
"""


def _submit_gated(env: Env) -> str:
    app = env.root / "gated"
    app.mkdir(exist_ok=True)
    (app / "workflow.xml").write_text(GATED.format(gate=env.root / "gate"))
    props = env.root / "gated.properties"
    props.write_text(f"oozie.wf.application.path={app}\n")
    with Store(env.home) as store:
        return submit_loaded(Ctx(store), load_job(props, [], store.clock, user="alice"), start=True)


async def test_the_log_view_of_a_suspended_workflow_keeps_tailing_its_running_node(
    env: Env,
) -> None:
    """A drained suspend lets the running node finish and write: the view said "it ended
    without writing any" and stopped reading."""
    wf = _submit_gated(env)
    async with console(env) as h:
        await h.until(lambda: wf in h.tree.nodes, what="workflow in tree")
        await h.until(lambda: h.status(NodeRow, f"{wf}@late") == "RUNNING", what="node runs")
        wfcmd.suspend(Ctx(h.store), wf)  # drained, not frozen
        await h.until(lambda: h.main.model.items[wf].status == "SUSPENDED", what="relabel")
        assert h.status(NodeRow, f"{wf}@late") == "RUNNING"
        await h.select(wf)
        await h.press("l")
        screen = h.app.screen
        assert isinstance(screen, LogScreen)
        await h.until(lambda: screen.lines, what="the first read")
        assert screen.lines == ["(no output yet)"], screen.lines
        (env.root / "gate").write_text("")
        await h.until(
            lambda: "written-after-the-suspend" in screen.lines, what="the line written later"
        )
        await h.press("escape")


# ----------------------------------------------------------------------------- 2: details


def test_a_bundles_why_counts_only_coordinators_that_have_not_ended() -> None:
    info = {
        "bundleJobId": "B",
        "bundleJobName": "feeds",
        "status": "RUNNINGWITHERROR",
        "bundleCoordJobs": [
            {"coordJobName": name, "status": status}
            for name, status in (
                ("a", "RUNNING"),
                ("b", "FAILED"),
                ("c", "DONEWITHERROR"),
                ("d", "IGNORED"),
                ("e", "SUCCEEDED"),
                ("f", "PAUSED"),
            )
        ],
    }
    page = bundle_page(info).plain
    assert why(page) == "running: 2 of 6 coordinators still active (f PAUSED)", page


async def test_ready_actions_held_by_safemode_say_so_as_the_commands_do(env: Env) -> None:
    """The commands' Holds.ready() asks the coordinator's status and SAFEMODE before its
    concurrency; the details said "held by concurrency" in SAFEMODE too."""
    async with console(env) as h:
        hourly = h.coords()["hourly"].id
        change(Ctx(h.store), hourly, "concurrency=0")
        env.land(0)
        await h.until(lambda: h.status(ActionRow, f"{hourly}@1") == "READY", what="@1 READY")
        await h.select(hourly)
        await h.until(lambda: "1 READY held by concurrency 0/0" in details(h), what="concurrency")
        set_system_mode(Ctx(h.store, face="cli"), "SAFEMODE")
        await h.select(env.bundle)
        await h.select(hourly)
        await h.until(lambda: "READY held: system SAFEMODE" in details(h), what="SAFEMODE")
        assert "held by concurrency" not in why(details(h)), details(h)


# ----------------------------------------------------------------------------- 3: keys


@pytest.mark.parametrize(
    ("kind", "status", "enabled"),
    [
        (COORD, "SUCCEEDED", True),
        (COORD, "FAILED", True),
        (COORD, "DONEWITHERROR", True),
        (COORD, "RUNNING", True),
        (COORD, "KILLED", False),
        (COORD, "IGNORED", False),
        (BUNDLE, "RUNNING", True),
        (BUNDLE, "SUCCEEDED", False),
        (BUNDLE, "DONEWITHERROR", False),
        (BUNDLE, "KILLED", False),
    ],
)
def test_the_pause_key_applies_where_the_change_command_takes_a_pause_time(
    kind: str, status: str, enabled: bool
) -> None:
    got = availability("pause", job(kind, status))
    assert got.enabled == enabled, got


def test_an_ignored_coordinators_rerun_says_how_to_bring_it_back() -> None:
    got = availability("rerun", job(COORD, "IGNORED", FAILED=1))
    assert not got.enabled and "status=RUNNING" in got.reason, got


def test_a_coordinator_with_only_skipped_actions_reruns_them_as_the_command_does() -> None:
    assert availability("rerun", job(COORD, "RUNNING", SKIPPED=2)).enabled
    assert not availability("rerun", job(COORD, "RUNNING", WAITING=2)).enabled


async def test_a_succeeded_coordinator_takes_a_pause_time_from_the_console(env: Env) -> None:
    """``bundletui change C --value pausetime=…`` takes it; the p key was greyed."""
    async with console(env) as h:
        daily = h.coords()["daily"]
        assert daily.status == "SUCCEEDED"
        await h.select(daily.id)
        await h.press("p")
        dialog = h.app.screen
        assert isinstance(dialog, PauseDialog), h.toasts
        await h.type("+2h")
        await h.press("enter")
        await h.until(lambda: h.coords()["daily"].pause_time is not None, what="pause set")
        assert (h.audit()[0].command, h.audit()[0].result) == ("change", "ok")


# ----------------------------------------------------------------------------- 4: scopes


@pytest.mark.parametrize("text", ["1", "1,3-5", "1,2,", "0", "5-3", "1,,2", ",1", "x", "2-", "3"])
def test_the_action_scope_check_takes_what_the_command_takes(text: str) -> None:
    try:
        parse_action_scope(text, 4, "C")
    except BundletuiError as exc:
        assert check_action_scope(text, 4, "C") == exc.describe()
    else:
        assert check_action_scope(text, 4, "C") is None


def test_the_date_scope_check_says_the_commands_error() -> None:
    assert check_date_scope("2026-01-01T00:00Z::2026-01-02T00:00Z,") is None
    said = check_date_scope("2026-01-02T00:00Z::2026-01-01T00:00Z") or ""
    assert said.startswith("E0302: Invalid parameter [date range") and "hint: " in said


async def test_the_rerun_dialog_refuses_and_takes_the_scopes_the_command_does(env: Env) -> None:
    async with console(env) as h:
        daily = h.coords()["daily"]
        await h.select(daily.id)
        await h.press("R")
        await h.until(lambda: isinstance(h.app.screen, RerunDialog), what="rerun dialog")
        dialog = h.app.screen
        assert isinstance(dialog, RerunDialog)
        box = dialog.query_one("#actions")
        for text, said in (
            ("0", "E0302: Invalid parameter [action range 0]\n  hint: ranges go low-high"),
            ("2-1", "E0302: Invalid parameter [action range 2-1]"),
            (
                f"{daily.last_action_number + 1}",
                f"E0605: Action does not exist [{daily.id}@{daily.last_action_number + 1}]\n"
                f"  hint: the coordinator has {daily.last_action_number} actions",
            ),
        ):
            box.value = text  # type: ignore[attr-defined]
            got = dialog.choice()
            assert isinstance(got, str) and got.startswith(said), (text, got)
        box.value = "1,2,"  # type: ignore[attr-defined]
        got = dialog.choice()
        assert isinstance(got, RerunChoice) and got.actions == "1,2,", got
        # both scopes: the command refuses them together (E0302), and so does the dialog
        dates = dialog.query_one("#dates")
        dates.value = "2026-01-01T00:00Z"  # type: ignore[attr-defined]
        got = dialog.choice()
        assert isinstance(got, str) and "both an action and a date scope" in got, got
        await h.press("escape")

"""``-start|-suspend|-resume|-kill|-change|-ignore``: dispatch's commands behind Oozie's checks,
including where -action/-date may scope an operation, and the action lists Oozie prints."""

from __future__ import annotations

from typing import Any

from bundletui.cli.oozie.errors import CliError
from bundletui.cli.oozie.format import RULER, TAB, mask, mask_date, say
from bundletui.cli.oozie.front import Front, option_value

# the operations -action / -date scope (a coordinator's actions); any other refuses them
SCOPED_OPERATIONS = frozenset({"suspend", "resume", "kill", "ignore", "rerun", "log", "errorlog"})


def refuse_scope(front: Front, op: str) -> None:
    """-action / -date where the operation takes none: refused, not ignored (QA: the whole
    job was acted on; a -submit with -action made a job)."""
    for name in ("action", "date"):
        if front.args.has(name):
            raise CliError(
                "E0302", f"Invalid options provided for {op}: -{name} is not valid with -{op}"
            )


def _scope(front: Front, op: str) -> tuple[str | None, str | None]:
    action, date = front.args.get("action"), front.args.get("date")
    if action is not None and date is not None:
        raise CliError(
            "E0302",
            f"Invalid options provided for {op}: either date or action expected. "
            "Don't use both at the same time.",
        )
    return action, date


def op_start(front: Front) -> None:
    from bundletui.commands import dispatch

    dispatch.start(front.ctx(), option_value(front, "start"))


def op_suspend(front: Front) -> None:
    from bundletui.commands import dispatch

    action, date = _scope(front, "suspend")  # a coordinator's chosen actions, else refused
    dispatch.suspend(front.ctx(), option_value(front, "suspend"), actions=action, dates=date)


def op_resume(front: Front) -> None:
    from bundletui.commands import dispatch

    action, date = _scope(front, "resume")
    dispatch.resume(front.ctx(), option_value(front, "resume"), actions=action, dates=date)


def op_kill(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = option_value(front, "kill")
    action, date = _scope(front, "kill")
    if action is not None or date is not None:  # E0302 unless job_id is a coordinator
        killed = dispatch.kill_actions(front.ctx(), job_id, actions=action, dates=date)
        print_coord_actions(front, killed)
        return
    dispatch.kill(front.ctx(), job_id)


def op_change(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = option_value(front, "change")
    value = front.args.get("value")
    if value is None:
        raise CliError("E0305", "-value option needs to be specified for -change option")
    dispatch.change(front.ctx(), job_id, value)


def op_ignore(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = option_value(front, "ignore")
    action, date = _scope(front, "ignore")
    if front.args.has("action") and not action:
        raise CliError("E0305", "-action is empty")
    ids = dispatch.ignore(front.ctx(), job_id, actions=action, dates=date)
    print_coord_actions_status(front, [i for i in ids if "@" in i])


def print_coord_actions(front: Front, ids: list[str]) -> None:
    """OozieCLI.printCoordActions (after kill/rerun of actions): id and nominal time."""
    rows = _actions(front, ids)
    if not rows:
        say("No Actions match your criteria!")
        return
    say(f"Action ID{TAB}Nominal Time")
    say(RULER)
    for a in rows:
        say(f"{mask(a['id'])}{TAB}{mask_date(a['nominalTime'], None)}")


def print_coord_actions_status(front: Front, ids: list[str]) -> None:
    """OozieCLI.printCoordActionsStatus (after ignore): id, nominal time, status."""
    rows = _actions(front, ids)
    if not rows:
        return
    say(f"Action ID{TAB}Nominal Time{TAB}Status")
    say(RULER)
    for a in rows:
        say(f"{mask(a['id'])}{TAB}{mask_date(a['nominalTime'], None)}{TAB}{mask(a['status'])}")


def _actions(front: Front, ids: list[str]) -> list[dict[str, Any]]:
    from bundletui.commands import coord_queries

    return [coord_queries.action_info(front.store.conn, i) for i in ids if "-C@" in i]

"""``-rerun`` takes other options for a workflow, a coordinator and a bundle, as OozieCLI's does,
and says other things after each: enough for a module of its own."""

from __future__ import annotations

import sys

from bundletui.cli.oozie.controls import print_coord_actions, refuse_scope
from bundletui.cli.oozie.errors import CliError
from bundletui.cli.oozie.format import mask_none, say
from bundletui.cli.oozie.front import Front, option_value
from bundletui.model.ids import IdKind, kind_of


def op_rerun(front: Front) -> None:
    from bundletui.commands import dispatch

    job_id = option_value(front, "rerun")
    a = front.args
    # by the id's suffix (OozieCLI looks for "-W" anywhere, which a user named W… would match)
    kind = kind_of(job_id)
    if kind is IdKind.WORKFLOW:
        from bundletui.commands.workflows import rerun_keys

        refuse_scope(front, "rerun")  # a workflow's whole run (QA: dropped, and rerun)
        conf = _rerun_conf(front)
        skip, failed = rerun_keys(conf)
        dispatch.rerun(front.ctx(), job_id, skip_nodes=skip, failed_nodes=failed, conf=conf)
        return
    if kind is IdKind.BUNDLE:
        if a.has("action"):
            raise CliError(
                "E0302",
                "Invalid options provided for bundle rerun. action is not valid for bundle rerun",
            )
        coords, dates = a.get("coordinator"), a.get("date")
        notes: list[str] = []
        dispatch.rerun(
            front.ctx(),
            job_id,
            coordinators=coords,
            dates=dates,
            refresh=a.has("refresh"),
            nocleanup=a.has("nocleanup"),
            notes=notes,
        )
        for note in notes:  # names the bundle lacks; by dates, coordinators passed over
            print(f"note: {note}", file=sys.stderr)
        if coords:
            say(
                f"Coordinators [{coords}] of bundle {job_id} are scheduled to rerun on date "
                f"ranges [{mask_none(dates)}]."
            )
        else:
            say(
                f"All coordinators of bundle {job_id} are scheduled to rerun on the date "
                f"ranges [{mask_none(dates)}]."
            )
        return
    action, date = a.get("action"), a.get("date")
    if action is not None and date is not None:
        raise CliError(
            "E0302",
            "Invalid options provided for rerun: either date or action expected. "
            "Don't use both at the same time.",
        )
    if action is None and date is None:
        raise CliError("E0305", "Invalid options provided for rerun: date or action expected.")
    notes = []
    ids = dispatch.rerun(
        front.ctx(),
        job_id,
        actions=action,
        dates=date,
        refresh=a.has("refresh"),
        nocleanup=a.has("nocleanup"),
        failed=a.has("failed"),
        conf=_rerun_conf(front),
        notes=notes,
    )
    print_coord_actions(front, ids)
    for note in notes:  # an action LAST_ONLY / NONE will skip at once
        print(f"note: {note}", file=sys.stderr)


def _rerun_conf(front: Front) -> dict[str, str]:
    from bundletui.spec.config import parse_overrides, read_conf_file

    conf: dict[str, str] = {}
    config = front.args.get("config")
    if config is not None:
        conf.update(read_conf_file(config, keep_empty=True))  # skip.nodes empty: every node
    conf.update(parse_overrides(front.args.defines))
    return conf

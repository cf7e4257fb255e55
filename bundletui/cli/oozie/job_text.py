"""``-definition``, ``-configcontent``, ``-log``, ``-errorlog``, ``-auditlog``: a job's text (its
XML, conf, nodes' output, audit log) printed as it is, not in Oozie's tables."""

from __future__ import annotations

import sys

from bundletui.cli._common import printable
from bundletui.cli.oozie.errors import CliError
from bundletui.cli.oozie.format import say
from bundletui.cli.oozie.front import Front, option_value
from bundletui.model.ids import IdKind, kind_of


def op_definition(front: Front) -> None:
    from bundletui.commands import coord_queries

    say(coord_queries.definition_of(front.store.conn, option_value(front, "definition")))


def op_configcontent(front: Front) -> None:
    from bundletui.commands import queries

    job_id = option_value(front, "configcontent")
    if not job_id.endswith(("-C", "-W", "-B")):  # Oozie's text; exit 255, not its 0 (QA)
        raise CliError("E0303", f"job id [{job_id}] doesn't end with either C or W or B")
    say(str(queries.job_info(front.store.conn, job_id, length=0).get("conf")))


def op_log(front: Front, *, errors_only: bool = False) -> None:
    """Workflow, node and coordinator-action ids: the nodes' output (stderr for -errorlog);
    a coordinator with -action/-date: its actions' workflows; otherwise the job's audit log."""
    from bundletui.cli.job_cmds import print_coordinator_logs, print_sections
    from bundletui.commands import logs

    job_id = option_value(front, "errorlog" if errors_only else "log")
    a = front.args
    store = front.store
    kind = kind_of(job_id)
    if kind is not IdKind.COORDINATOR and (a.has("action") or a.has("date")):
        raise CliError(
            "E0302",
            "Invalid options provided for log retrieval. action and date are valid only for "
            "coordinator job log retrieval",
        )
    if kind in (IdKind.WORKFLOW_NODE, IdKind.WORKFLOW, IdKind.COORD_ACTION):
        # the sections and their headings as on every face (a sub-workflow node: its child's)
        found = logs.sections(store, job_id, node_hint=False)
        if found.no_workflow is not None:  # it is there: an empty log, as Oozie's
            print(f"  note: {found.no_workflow}", file=sys.stderr)
            return
        print_sections(found, stderr_only=errors_only)
    elif kind is IdKind.COORDINATOR and (a.has("action") or a.has("date")):
        # each action's workflow output headed `── C@N`, as the API's type=action answer
        print_coordinator_logs(store, job_id, a.get("action"), a.get("date"), errors_only)
    else:
        _print_audit(front, job_id, errors_only=errors_only)


def op_errorlog(front: Front) -> None:
    op_log(front, errors_only=True)


def op_auditlog(front: Front) -> None:
    _print_audit(front, option_value(front, "auditlog"), errors_only=False)


def _print_audit(front: Front, job_id: str, *, errors_only: bool) -> None:
    """A job's log in Oozie's server-log shape, from the audit log (commands run on it)."""
    from bundletui.commands import queries

    queries.job_info(front.store.conn, job_id, length=0)  # E0604 for an unknown job
    zone = front.zone or None
    lines = queries.audit_log_lines(front.store.conn, job_id, errors_only=errors_only, zone=zone)
    for line in lines:
        say(line)
    if not lines and kind_of(job_id) in (IdKind.COORDINATOR, IdKind.BUNDLE):
        more = (
            f"; its actions' output: bundletui oozie job -log {job_id} -action 1,3-4"
            if kind_of(job_id) is IdKind.COORDINATOR
            else ""
        )
        print(
            printable(f"note: {job_id}'s log lists the commands run on it; none has been{more}"),
            file=sys.stderr,
        )

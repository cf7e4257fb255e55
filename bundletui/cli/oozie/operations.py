"""Which function serves each ``oozie job -<operation>``; Oozie's operations with no counterpart
here are refused with what to use instead, not left to "Unrecognized option"."""

from __future__ import annotations

from collections.abc import Callable

from bundletui.cli.oozie.controls import (
    op_change,
    op_ignore,
    op_kill,
    op_resume,
    op_start,
    op_suspend,
)
from bundletui.cli.oozie.errors import CliError
from bundletui.cli.oozie.front import Front
from bundletui.cli.oozie.info import op_info
from bundletui.cli.oozie.job_text import (
    op_auditlog,
    op_configcontent,
    op_definition,
    op_errorlog,
    op_log,
)
from bundletui.cli.oozie.rerun import op_rerun
from bundletui.cli.oozie.submit import op_dryrun, op_run, op_submit

_UNSUPPORTED_INSTEAD = {
    "poll": "watch a job with: bundletui info <id>, or the console",
    "update": "kill the coordinator and submit the new definition, or change its endtime,"
    " concurrency or pausetime with -change",
    **dict.fromkeys(
        ("slaenable", "sladisable", "slachange"),
        "bundletui keeps no SLA; a coordinator's timeout and its actions' TIMEDOUT status"
        " are the nearest",
    ),
}


def op_unsupported(front: Front) -> None:
    op = front.args.operation
    raise CliError(
        "E0302", f"-{op} is not supported by bundletui ({_UNSUPPORTED_INSTEAD[str(op)]})"
    )


JOB_OPERATIONS: dict[str, Callable[[Front], None]] = {
    "submit": op_submit,
    "run": op_run,
    "dryrun": op_dryrun,
    "start": op_start,
    "suspend": op_suspend,
    "resume": op_resume,
    "kill": op_kill,
    "change": op_change,
    "rerun": op_rerun,
    "info": op_info,
    "log": op_log,
    "errorlog": op_errorlog,
    "auditlog": op_auditlog,
    "definition": op_definition,
    "configcontent": op_configcontent,
    "ignore": op_ignore,
    **dict.fromkeys(("poll", "update", "slaenable", "sladisable", "slachange"), op_unsupported),
}

"""``-info``: a job or an action in the blocks and fixed-width tables OozieCLI prints (printJob,
printCoordJob, …), which operators' scripts parse."""

from __future__ import annotations

from typing import Any

from bundletui.cli.oozie.errors import CliError
from bundletui.cli.oozie.format import (
    BUNDLE_COORDS,
    COORD_ACTIONS,
    RULER,
    TAB,
    WF_ACTIONS,
    WFS_OF_ACTION,
    cols,
    freq_unit,
    java_date,
    mask,
    mask_date,
    mask_none,
    say,
)
from bundletui.cli.oozie.front import Front, option_value


def op_info(front: Front) -> None:
    from bundletui.commands import queries

    job_id = option_value(front, "info")
    a = front.args
    conn = front.store.conn
    if job_id.endswith("-B"):
        if a.has("filter"):
            raise CliError("E0302", "Filter option is currently not supported for a Bundle job")
        print_bundle_job(front, queries.job_info(conn, job_id))
    elif job_id.endswith("-C"):
        offset = a.int_value("offset")
        length = a.int_value("len")
        data = queries.job_info(
            conn,
            job_id,
            offset=offset if offset and offset > 0 else 1,
            length=length if length is not None and length > 0 else None,
            order="desc" if (a.get("order") or "").strip().lower() == "desc" else "asc",
            filter_text=a.get("filter") or "",
        )
        print_coord_job(front, data)
    elif "-C@" in job_id:
        if a.has("allruns"):
            print_wfs_of_action(front, job_id)
            return
        if a.has("filter"):
            raise CliError("E0302", "Filter option is not supported for a Coordinator action")
        print_coord_action(front, queries.job_info(conn, job_id))
    elif "-W@" in job_id:
        if a.has("filter"):
            raise CliError("E0302", "Filter option is not supported for a Workflow action")
        print_workflow_action(front, queries.job_info(conn, job_id))
    else:
        if a.has("filter"):
            raise CliError("E0302", "Filter option is currently not supported for a Workflow job")
        data = queries.job_info(
            conn,
            job_id,
            offset=a.int_value("offset") or 1,
            length=a.int_value("len") or 0,
            reached_only=True,
        )
        print_job(front, data)


def print_coord_job(front: Front, job: dict[str, Any]) -> None:
    """OozieCLI.printCoordJob."""
    z, v = front.zone, front.verbose
    say(f"Job ID : {job['coordJobId']}")
    say(RULER)
    say(f"Job Name    : {mask(job['coordJobName'])}")
    say(f"App Path    : {mask(job['coordJobPath'])}")
    say(f"Status      : {job['status']}")
    say(f"Start Time  : {mask_date(job['startTime'], z)}")
    say(f"End Time    : {mask_date(job['endTime'], z)}")
    say(f"Pause Time  : {mask_date(job['pauseTime'], z)}")
    say(f"Concurrency : {job['concurrency']}")
    say(RULER)
    if v:
        say(
            TAB.join(
                [
                    "ID",
                    "Action Number",
                    "Console URL",
                    "Error Code",
                    "Error Message",
                    "External ID",
                    "External Status",
                    "Job ID",
                    "Tracker URI",
                    "Created",
                    "Nominal Time",
                    "Status",
                    "Last Modified",
                    "Missing Dependencies",
                ]
            )
        )
        say(RULER)
        for a in job["actions"]:
            # Oozie prints the nominal time and the status with no delimiter between them.
            say(
                TAB.join(
                    [
                        mask(a["id"]),
                        str(a["actionNumber"]),
                        mask(a["consoleUrl"]),
                        mask(a["errorCode"]),
                        mask(a["errorMessage"]),
                        mask(a["externalId"]),
                        mask(a["externalStatus"]),
                        mask(a["coordJobId"]),
                        mask(a["trackerUri"]),
                        mask_date(a["createdTime"], z, True),
                        mask_date(a["nominalTime"], z, True) + a["status"],
                        mask_date(a["lastModifiedTime"], z, True),
                        mask(_first_missing(a)),
                    ]
                )
            )
            say(RULER)
        return
    say(
        cols(
            COORD_ACTIONS,
            "ID",
            "Status",
            "Ext ID",
            "Err Code",
            "Created",
            "Nominal Time",
            "Last Mod",
        )
    )
    for a in job["actions"]:
        say(
            cols(
                COORD_ACTIONS,
                mask(a["id"]),
                a["status"],
                mask(a["externalId"]),
                mask(a["errorCode"]),
                mask_date(a["createdTime"], z),
                mask_date(a["nominalTime"], z),
                mask_date(a["lastModifiedTime"], z),
            )
        )
        say(RULER)


def _first_missing(action: dict[str, Any]) -> str | None:
    deps = action.get("pushMissingDependencies") or action.get("missingDependencies") or ""
    first = deps.split("!!", 1)[0].split("#", 1)[0]
    return first or None


def print_bundle_job(front: Front, job: dict[str, Any]) -> None:
    """OozieCLI.printBundleJob (its kick-off time is Java's Date.toString)."""
    z, v = front.zone, front.verbose
    say(f"Job ID : {job['bundleJobId']}")
    say(RULER)
    say(f"Job Name : {mask(job['bundleJobName'])}")
    say(f"App Path : {mask(job['bundleJobPath'])}")
    say(f"Status   : {job['status']}")
    say(f"Kickoff time   : {java_date(job['kickoffTime'], None)}")
    say(RULER)
    say(cols(BUNDLE_COORDS, "Job ID", "Status", "Freq", "Unit", "Started", "Next Materialized"))
    say(RULER)
    for c in job["bundleCoordJobs"]:
        say(
            cols(
                BUNDLE_COORDS,
                mask(c["coordJobId"]),
                c["status"],
                *freq_unit(c),
                mask_date(c["startTime"], z, v),
                mask_date(c["nextMaterializedTime"], z, v),
            )
        )
        say(RULER)


def print_coord_action(front: Front, a: dict[str, Any]) -> None:
    """OozieCLI.printCoordAction."""
    z = front.zone
    say(f"ID : {mask(a['id'])}")
    say(RULER)
    say(f"Action Number        : {a['actionNumber']}")
    say(f"Console URL          : {mask(a['consoleUrl'])}")
    say(f"Error Code           : {mask(a['errorCode'])}")
    say(f"Error Message        : {mask(a['errorMessage'])}")
    say(f"External ID          : {mask(a['externalId'])}")
    say(f"External Status      : {mask(a['externalStatus'])}")
    say(f"Job ID               : {mask(a['coordJobId'])}")
    say(f"Tracker URI          : {mask(a['trackerUri'])}")
    say(f"Created              : {mask_date(a['createdTime'], z)}")
    say(f"Nominal Time         : {mask_date(a['nominalTime'], z)}")
    say(f"Status               : {a['status']}")
    say(f"Last Modified        : {mask_date(a['lastModifiedTime'], z)}")
    say(f"First Missing Dependency : {mask(_first_missing(a))}")
    say(RULER)


def print_wfs_of_action(front: Front, action_id: str) -> None:
    """OozieCLI.printWfsForCoordAction (``-allruns``): every workflow the action launched."""
    from bundletui.commands import coord_queries, queries
    from bundletui.store import jobs

    conn = front.store.conn
    coord_queries.action_info(conn, action_id)  # E0605 for an unknown action
    wfs = [
        queries.workflow_json(conn, w, with_actions=False)
        for w in jobs.children_workflows(conn, action_id)
    ]
    if not wfs:
        return
    z = front.zone
    say(cols(WFS_OF_ACTION, "Job ID", "Status", "Started", "Ended"))
    say(RULER)
    for w in wfs:
        say(
            cols(
                WFS_OF_ACTION,
                mask(w["id"]),
                w["status"],
                mask_date(w["startTime"], z),
                mask_date(w["endTime"], z),
            )
        )
        say(RULER)


def print_job(front: Front, job: dict[str, Any]) -> None:
    """OozieCLI.printJob (a workflow)."""
    z, v = front.zone, front.verbose
    say(f"Job ID : {mask(job['id'])}")
    say(RULER)
    say(f"Workflow Name : {mask(job['appName'])}")
    say(f"App Path      : {mask(job['appPath'])}")
    say(f"Status        : {job['status']}")
    say(f"Run           : {job['run']}")
    say(f"User          : {mask(job['user'])}")
    say(f"Group         : {mask(job['group'])}")
    say(f"Created       : {mask_date(job['createdTime'], z, v)}")
    say(f"Started       : {mask_date(job['startTime'], z, v)}")
    say(f"Last Modified : {mask_date(job['lastModTime'], z, v)}")
    say(f"Ended         : {mask_date(job['endTime'], z, v)}")
    say(f"CoordAction ID: {mask(job['parentId'])}")
    actions = job.get("actions") or []
    if actions:
        say()
        say("Actions")
        say(RULER)
        if v:
            say(
                TAB.join(
                    [
                        "ID",
                        "Console URL",
                        "Error Code",
                        "Error Message",
                        "External ID",
                        "External Status",
                        "Name",
                        "Retries",
                        "Tracker URI",
                        "Type",
                        "Started",
                        "Status",
                        "Ended",
                    ]
                )
            )
            say(RULER)
            for a in actions:
                say(
                    TAB.join(
                        [
                            mask(a["id"]),
                            mask(a["consoleUrl"]),
                            mask(a["errorCode"]),
                            mask(a["errorMessage"]),
                            mask(a["externalId"]),
                            mask(a["externalStatus"]),
                            mask(a["name"]),
                            str(a["retries"]),
                            mask(a["trackerUri"]),
                            mask(a["type"]),
                            mask_date(a["startTime"], z, v),
                            a["status"],
                            mask_date(a["endTime"], z, v),
                        ]
                    )
                )
                say(RULER)
        else:
            say(cols(WF_ACTIONS, "ID", "Status", "Ext ID", "Ext Status", "Err Code"))
            say(RULER)
            for a in actions:
                say(
                    cols(
                        WF_ACTIONS,
                        mask(a["id"]),
                        a["status"],
                        mask(a["externalId"]),
                        mask(a["externalStatus"]),
                        mask(a["errorCode"]),
                    )
                )
                say(RULER)
    else:
        say(RULER)
    say()


def print_workflow_action(front: Front, a: dict[str, Any]) -> None:
    """OozieCLI.printWorkflowAction."""
    z, v = front.zone, front.verbose
    say(f"ID : {mask(a['id'])}")
    say(RULER)
    say(f"Console URL       : {mask(a['consoleUrl'])}")
    say(f"Error Code        : {mask(a['errorCode'])}")
    say(f"Error Message     : {mask(a['errorMessage'])}")
    say(f"External ID       : {mask(a['externalId'])}")
    say(f"External Status   : {mask(a['externalStatus'])}")
    say(f"Name              : {mask(a['name'])}")
    say(f"Retries           : {a['retries']}")
    say(f"Tracker URI       : {mask(a['trackerUri'])}")
    say(f"Type              : {mask(a['type'])}")
    say(f"Started           : {mask_date(a['startTime'], z, v)}")
    say(f"Status            : {a['status']}")
    say(f"Ended             : {mask_date(a['endTime'], z, v)}")
    if v:
        say(f"External Stats    : {mask_none(a['stats'])}")
        say(f"External ChildIDs : {mask_none(a['externalChildIDs'])}")
    say(RULER)

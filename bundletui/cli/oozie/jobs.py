"""``oozie jobs``: the listings (OozieCLI's printJobs, printCoordJobs, printBundleJobs) and the
bulk -kill|-suspend|-resume of the jobs a filter selects, which print the same tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bundletui.cli.oozie.format import (
    BUNDLE_JOBS,
    COORD_JOBS,
    RULER,
    TAB,
    WF_JOBS,
    cols,
    freq_unit,
    mask,
    mask_date,
    say,
)
from bundletui.cli.oozie.front import Front


def jobs_command(front: Front) -> None:
    """``oozie jobs``: a listing (default wf, len 50 as Oozie's server) or a bulk operation."""
    from bundletui.commands import coord_queries, queries

    a = front.args
    flt = a.get("filter") or ""
    bulk = next((op for op in ("kill", "suspend", "resume") if a.has(op)), None)
    if bulk is None:
        kind = queries.job_kind(a.get("jobtype"))  # as the API reads jobtype=
    else:  # as PUT /jobs checks them: the jobtype, then a filter that selects
        kind = queries.bulk_kind(
            a.get("jobtype"), flt, hint="select the jobs, e.g. -filter 'status=RUNNING;name=ingest'"
        )
    offset = max(a.int_value("offset") or 1, 1)
    length = a.int_value("len") or 0
    length = length if length > 0 else 50
    conn = front.store.conn
    if kind == "wf":
        data = queries.list_workflows(conn, flt, offset, length)
    else:
        data = coord_queries.list_jobs(conn, kind, flt, offset, length)
    items: list[dict[str, Any]] = data[queries.LISTING_ENVELOPE[kind]]
    if bulk is not None:
        items = _bulk(front, bulk, kind, items)
        if not items:
            say("bulk modify command did not modify any jobs")
            return
        say(f"the following jobs have been {_PAST[bulk]}")
    PRINT_JOBS[kind](front, items, front.verbose and bulk is None)


_PAST = {"kill": "killed", "suspend": "suspended", "resume": "resumed"}


def _bulk(front: Front, op: str, kind: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Apply -kill/-suspend/-resume to each listed job; the ones it applied to, as they are now."""
    from bundletui.commands import dispatch, queries

    key = queries.LISTING_ID_KEY[kind]
    done = dispatch.bulk(front.ctx(), op, [item[key] for item in items])
    return [queries.job_info(front.store.conn, job_id, length=0) for job_id in done]


def print_workflows(front: Front, jobs: list[dict[str, Any]], verbose: bool) -> None:
    """OozieCLI.printJobs."""
    if not jobs:
        say("No Jobs match your criteria!")
        return
    z = front.zone
    if verbose:
        say(
            TAB.join(
                [
                    "Job ID",
                    "App Name",
                    "App Path",
                    "Console URL",
                    "User",
                    "Group",
                    "Run",
                    "Created",
                    "Started",
                    "Status",
                    "Last Modified",
                    "Ended",
                ]
            )
        )
        say(RULER)
        for j in jobs:
            say(
                TAB.join(
                    [
                        mask(j["id"]),
                        mask(j["appName"]),
                        mask(j["appPath"]),
                        mask(j["consoleUrl"]),
                        mask(j["user"]),
                        mask(j["group"]),
                        str(j["run"]),
                        mask_date(j["createdTime"], z, True),
                        mask_date(j["startTime"], z, True),
                        j["status"],
                        mask_date(j["lastModTime"], z, True),
                        mask_date(j["endTime"], z, True),
                    ]
                )
            )
            say(RULER)
        return
    say(cols(WF_JOBS, "Job ID", "App Name", "Status", "User", "Group", "Started", "Ended"))
    say(RULER)
    for j in jobs:
        say(
            cols(
                WF_JOBS,
                mask(j["id"]),
                mask(j["appName"]),
                j["status"],
                mask(j["user"]),
                mask(j["group"]),
                mask_date(j["startTime"], z),
                mask_date(j["endTime"], z),
            )
        )
        say(RULER)


def print_coordinators(front: Front, jobs: list[dict[str, Any]], verbose: bool) -> None:
    """OozieCLI.printCoordJobs."""
    if not jobs:
        say("No Jobs match your criteria!")
        return
    z = front.zone
    if verbose:
        say(
            TAB.join(
                [
                    "Job ID",
                    "App Name",
                    "App Path",
                    "Console URL",
                    "User",
                    "Group",
                    "Concurrency",
                    "Frequency",
                    "Time Unit",
                    "Time Zone",
                    "Time Out",
                    "Started",
                    "Next Materialize",
                    "Status",
                    "Last Action",
                    "Ended",
                ]
            )
        )
        say(RULER)
        for j in jobs:
            say(
                TAB.join(
                    [
                        mask(j["coordJobId"]),
                        mask(j["coordJobName"]),
                        mask(j["coordJobPath"]),
                        mask(j["consoleUrl"]),
                        mask(j["user"]),
                        mask(j["group"]),
                        str(j["concurrency"]),
                        *freq_unit(j),
                        mask(j["timeZone"]),
                        str(j["timeOut"]),
                        mask_date(j["startTime"], z, True),
                        mask_date(j["nextMaterializedTime"], z, True),
                        j["status"],
                        mask_date(j["lastAction"], z, True),
                        mask_date(j["endTime"], z, True),
                    ]
                )
            )
            say(RULER)
        return
    say(
        cols(
            COORD_JOBS,
            "Job ID",
            "App Name",
            "Status",
            "Freq",
            "Unit",
            "Started",
            "Next Materialized",
        )
    )
    say(RULER)
    for j in jobs:
        say(
            cols(
                COORD_JOBS,
                mask(j["coordJobId"]),
                mask(j["coordJobName"]),
                j["status"],
                *freq_unit(j),
                mask_date(j["startTime"], z),
                mask_date(j["nextMaterializedTime"], z),
            )
        )
        say(RULER)


def print_bundles(front: Front, jobs: list[dict[str, Any]], verbose: bool) -> None:
    """OozieCLI.printBundleJobs."""
    if not jobs:
        say("No Jobs match your criteria!")
        return
    z = front.zone
    if verbose:
        say(
            TAB.join(
                [
                    "Job ID",
                    "Bundle Name",
                    "Bundle Path",
                    "User",
                    "Group",
                    "Status",
                    "Kickoff",
                    "Pause",
                    "Created",
                    "Console URL",
                ]
            )
        )
        say(RULER)
        for j in jobs:
            say(
                TAB.join(
                    [
                        mask(j["bundleJobId"]),
                        mask(j["bundleJobName"]),
                        mask(j["bundleJobPath"]),
                        mask(j["user"]),
                        mask(j["group"]),
                        j["status"],
                        mask_date(j["kickoffTime"], z, True),
                        mask_date(j["pauseTime"], z, True),
                        mask_date(j["createdTime"], z, True),
                        mask(j["consoleUrl"]),
                    ]
                )
            )
            say(RULER)
        return
    say(cols(BUNDLE_JOBS, "Job ID", "Bundle Name", "Status", "Kickoff", "Created", "User", "Group"))
    say(RULER)
    for j in jobs:
        say(
            cols(
                BUNDLE_JOBS,
                mask(j["bundleJobId"]),
                mask(j["bundleJobName"]),
                j["status"],
                mask_date(j["kickoffTime"], z),
                mask_date(j["createdTime"], z),
                mask(j["user"]),
                mask(j["group"]),
            )
        )
        say(RULER)


PRINT_JOBS: dict[str, Callable[[Front, list[dict[str, Any]], bool], None]] = {
    "wf": print_workflows,
    "coordinator": print_coordinators,
    "bundle": print_bundles,
}

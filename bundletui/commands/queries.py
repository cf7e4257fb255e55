"""The read side: jobs as Oozie's JSON (oozie.md §7.2), listings with Oozie's filters (§6.2).

The CLI's ``--json``, the console's details pane and the HTTP API all show these same dicts, so
an Oozie client sees the same keys wherever it looks.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any, TypeVar

from bundletui.errors import BundletuiError, CommandError
from bundletui.model.apps import Node, NodeType, WorkflowApp, WorkflowForm
from bundletui.model.clock import from_ms, to_ms
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.status import NODE_OOZIE_STATUS, NodeStatus, WorkflowStatus
from bundletui.model.timeutil import format_rfc822, parse_oozie_time, parse_rfc822, year_first
from bundletui.spec.config import configuration_xml
from bundletui.store import filters, jobs
from bundletui.store.clockstate import store_now_ms
from bundletui.store.filters import ListingSort
from bundletui.store.rows import NodeRow, WorkflowRow

R = TypeVar("R")


def rfc822(ms: int | None, tz: str = "GMT") -> str | None:
    return None if ms is None else format_rfc822(from_ms(ms), tz)


def short_rfc822(rfc: str | None, *, zone: bool = False) -> str:
    """``Mon, 01 Jan 2024 05:00:00 GMT`` -> ``2024-01-01 05:00`` (``zone``: + `` GMT``), for
    rows and one-line reasons; ``-`` for none, and text that is no such time as it is."""
    if not rfc:
        return "-"
    try:
        dt = parse_rfc822(rfc)
    except (TypeError, ValueError):
        return rfc
    text = year_first(dt)
    return f"{text} {rfc.rsplit(' ', 1)[-1]}" if zone else text


def conf_xml(conf: dict[str, str]) -> str:
    """As Oozie's API prints a job's configuration (Java's line ends)."""
    return configuration_xml(conf, "\r\n")


# ----------------------------------------------------------------------------- workflows


def node_json(node: NodeRow, spec: Node | None, tz: str = "GMT") -> dict[str, Any]:
    """A workflow node as Oozie's workflow action JSON; ``spec`` is its definition."""
    if spec is None:
        app_type, retry_max, retry_interval = node.type, 0, 10
    else:
        app_type = (
            spec.action.kind
            if spec.action is not None
            else "switch"  # Oozie's DecisionActionExecutor.ACTION_TYPE
            if spec.type is NodeType.DECISION
            else f":{spec.type.upper()}:"
        )
        retry_max, retry_interval = spec.user_retry_max, spec.retry_interval
    # READY after a failed attempt: waiting out retry-interval, Oozie's USER_RETRY, whose
    # count is the attempts failed so far (while an attempt runs, those before it)
    retry_wait = node.status == NodeStatus.READY and node.attempt > 0
    status = (
        "USER_RETRY" if retry_wait else NODE_OOZIE_STATUS.get(NodeStatus(node.status), node.status)
    )
    retries = node.attempt if retry_wait else max(node.attempt - 1, 0)
    return {
        "id": node.id,
        "name": node.name,
        "cred": "null",
        "type": app_type,
        "conf": "",
        "status": status,
        "retries": retries,
        "startTime": rfc822(node.started, tz),
        "endTime": rfc822(node.ended, tz),
        "transition": node.transition,
        "data": _properties_text(node.data),
        "stats": None,
        "externalChildIDs": None,
        "externalId": node.external_id or (str(node.pid) if node.pid else None),
        "externalStatus": external_status(node, spec),
        "trackerUri": None,
        "consoleUrl": None,
        "errorCode": node.error_code,
        "errorMessage": node.error_message,
        "toString": f"Action name[{node.name}] status[{status}]",
        "userRetryInterval": retry_interval,
        "userRetryCount": retries,
        "userRetryMax": retry_max,
        # ours, beside Oozie's keys
        "nodeStatus": node.status,
        "attempt": node.attempt,
        "exitCode": node.exit_code,
        "retryAt": rfc822(node.due_time, tz) if retry_wait else None,
    }


def external_status(node: NodeRow, spec: Node | None) -> str:
    """What Oozie's executors record as a node's external status, which scripts grep: a
    decision's chosen node; ``OK`` for a control node passed and an fs action done; a launched
    program that failed is ``FAILED/KILLED``; else the node's own status.
    ``wf:actionExternalStatus`` returns it too."""
    if spec is None:
        return node.status
    done = node.status == NodeStatus.SUCCEEDED
    if spec.type is NodeType.DECISION:
        return node.transition if done and node.transition else node.status
    if spec.type is not NodeType.ACTION:
        return "OK" if done else node.status
    kind = spec.action.kind if spec.action is not None else ""
    if kind == "fs" and done:
        return "OK"
    launched = node.pid is not None or node.external_id is not None
    if kind == "shell" and node.status == NodeStatus.FAILED and launched:  # by a launcher
        return "FAILED/KILLED"  # JavaActionExecutor.FAILED_KILLED
    return node.status


def _properties_text(data: str | None) -> str | None:
    if not data:
        return None
    return "".join(f"{k}={v}\n" for k, v in json.loads(data).items())


def workflow_json(
    conn: sqlite3.Connection,
    wf: WorkflowRow,
    *,
    with_actions: bool = True,
    tz: str = "GMT",
    reached_only: bool = False,
) -> dict[str, Any]:
    """``reached_only``: Oozie's view, which has a row for a node only once the run entered
    it (:func:`_entered`): an Oozie-form workflow's nodes not yet reached, on a path not taken,
    or ended by a kill before they were reached are left out."""
    out: dict[str, Any] = {
        "appPath": wf.app_path,
        "appName": wf.app_name,
        "id": wf.id,
        "externalId": wf.external_id,
        "parentId": wf.parent_id,
        "conf": conf_xml(wf.conf_dict()),
        "status": wf.status,
        "lastModTime": rfc822(wf.last_modified, tz),
        "createdTime": rfc822(wf.created_time, tz),
        "startTime": rfc822(wf.start_time, tz),
        "endTime": rfc822(wf.end_time, tz),
        "user": wf.user,
        "group": wf.grp,
        "acl": None,
        "run": wf.run,
        "consoleUrl": None,
        "actions": [],
        "toString": f"Workflow id[{wf.id}] status[{wf.status}]",
        # ours
        "form": wf.form,
        "errorCode": wf.error_code,
        "errorMessage": wf.error_message,
        # a suspended workflow's running jobs: stopped where they are (freeze) or left to end
        "suspendMode": wf.suspend_mode if wf.status == "SUSPENDED" else None,
    }
    if with_actions:
        app = _app(wf)
        specs = _node_specs(app)
        every = not reached_only or WorkflowForm(wf.form) is not WorkflowForm.OOZIE
        out["actions"] = [
            node_json(n, specs.get(n.name), tz)
            for n in jobs.workflow_nodes(conn, wf.id)
            if every or _entered(n)
        ]
        if not every and wf.start_time is not None:
            out["actions"].insert(0, _start_json(wf, app.start_to, tz))
    return out


def _app(wf: WorkflowRow) -> WorkflowApp:
    from bundletui.commands.nodes import app_of

    return app_of(wf.app)


def _node_specs(app: WorkflowApp) -> dict[str, Node]:
    return {node.name: node for node in app.nodes}


def _start_of(conn: sqlite3.Connection, wf_id: str, tz: str) -> dict[str, Any] | None:
    wf = jobs.get(conn, WorkflowRow, wf_id)
    if wf is None or wf.start_time is None or WorkflowForm(wf.form) is not WorkflowForm.OOZIE:
        return None
    return _start_json(wf, _app(wf).start_to, tz)


def _start_json(wf: WorkflowRow, to: str | None, tz: str) -> dict[str, Any]:
    """Oozie's ``W@:start:`` action, the first row of a started workflow's actions (its
    ``-info`` lists it: status OK, no external id): ours has no row for the start node."""
    at = rfc822(wf.start_time, tz)
    return {
        "id": f"{wf.id}@:start:",
        "name": ":start:",
        "cred": "null",
        "type": ":START:",
        "conf": "",
        "status": "OK",
        "retries": 0,
        "startTime": at,
        "endTime": at,
        "transition": to,
        "data": None,
        "stats": None,
        "externalChildIDs": None,
        "externalId": "-",
        "externalStatus": "OK",
        "trackerUri": "-",
        "consoleUrl": "-",
        "errorCode": None,
        "errorMessage": None,
        "toString": "Action name[:start:] status[OK]",
        "userRetryInterval": 10,
        "userRetryCount": 0,
        "userRetryMax": 0,
    }


def _entered(node: NodeRow) -> bool:
    """Did the run reach the node? A DAG's jobs all exist from its submission (JobControl lists
    the waiting ones); an Oozie workflow has an action only once its run reaches it: queued,
    started or passed, not a node a kill ended before then, or the path a decision left."""
    return node.started is not None or node.attempt > 0 or node.status == NodeStatus.READY


def check_bulk_filter(text: str, hint: str) -> None:
    """A bulk kill / suspend / resume needs a filter that selects (Oozie's server: never every
    job at once); one whose clauses are all empty (``;``, ``name=``) would select them all."""
    if not any(clause.partition("=")[2].strip() for clause in text.split(";")):
        raise CommandError("E0305", "filter params must be specified for bulk write API", hint=hint)


# ----------------------------------------------------------------------------- lookups


# a coordinator's actions shown when no page is asked for: oozie.coord.actions.default.length,
# the v1 API's default (bundletui info pages as the API does; Oozie's CLI shows them all)
DEFAULT_ACTIONS_LEN = 1000


def job_info(
    conn: sqlite3.Connection,
    job_id: str,
    *,
    offset: int = 1,
    length: int | None = None,
    order: str = "asc",
    filter_text: str = "",
    tz: str = "GMT",
    reached_only: bool = False,
) -> dict[str, Any]:
    """Oozie's info JSON for any id (bundle, coordinator, action, workflow, node). A
    workflow's actions are paged too (V1JobServlet.getWorkflowJob: from ``offset``; a
    ``length`` below 1 means all of them)."""
    kind = kind_of(job_id)
    if kind is IdKind.WORKFLOW:
        data = workflow_json(
            conn, _must(conn, WorkflowRow, job_id), tz=tz, reached_only=reached_only
        )
        if offset > 1 or (length or 0) > 0:
            first = max(offset, 1) - 1
            stop = first + length if length is not None and length > 0 else None
            # ours, as a coordinator's: a page says how many there are (QA: nodes were hidden)
            data["total"], data["offset"] = len(data["actions"]), first + 1
            data["actions"] = data["actions"][first:stop]
        return data
    if kind is IdKind.WORKFLOW_NODE:
        node = jobs.get(conn, NodeRow, job_id)
        if node is None and job_id.endswith("@:start:"):
            started = _start_of(conn, job_id.removesuffix("@:start:"), tz)
            if started is not None:  # the row Oozie's view lists first
                return started
        if node is None:
            raise CommandError.from_template(
                "E0605", job_id, hint="see a workflow's nodes with: bundletui info <workflow id>"
            )
        wf = _must(conn, WorkflowRow, node.wf_id)
        return node_json(node, _node_specs(_app(wf)).get(node.name), tz)
    from bundletui.commands import coord_queries

    return coord_queries.job_info(
        conn,
        job_id,
        kind,
        offset=offset,
        length=length,
        order=order,
        filter_text=filter_text,
        tz=tz,
    )


def _must(conn: sqlite3.Connection, cls: type, job_id: str) -> Any:
    row = jobs.get(conn, cls, job_id)
    if row is None:
        raise CommandError.from_template("E0604", job_id, hint="list jobs with: bundletui jobs")
    return row


# ----------------------------------------------------------------------------- listings


#: a listing's envelope and its items' id key, by :func:`job_kind` (oozie.md §7.2, §7.3)
LISTING_ENVELOPE = {"wf": "workflows", "coordinator": "coordinatorjobs", "bundle": "bundlejobs"}
LISTING_ID_KEY = {"wf": "id", "coordinator": "coordJobId", "bundle": "bundleJobId"}


def job_kind(text: str | None) -> str:
    """A listing's ``jobtype`` (``oozie jobs -jobtype``, ``GET|PUT /jobs?jobtype=``) as
    ``wf``, ``coordinator`` or ``bundle``: one reading for every face.

    Oozie's server (V1JobsServlet.getJobs) tests ``contains("wf")``, then ``"coord"``, then
    ``"bundle"``; its CLI lower-cases the value first and lists coordinators and bundles on
    ``startsWith`` only, but sends the value as given to the server for a bulk -kill,
    -suspend or -resume. Read here as the server reads it, lower-cased as the CLI does, so
    ``WF``, ``coord``, ``coordinators`` and ``xcoordinator`` all say what they mean. Absent or
    blank is ``wf`` (Oozie's default), and so are ``workflow`` and ``workflows``, the word
    the rest of bundletui uses (``bundletui jobs --type workflow``). Anything else is E0303:
    Oozie's CLI would list nothing and exit 0, and its server answers no listing."""
    kind = (text or "").strip().lower()
    if kind in ("", "workflow", "workflows") or "wf" in kind:
        return "wf"
    if "coord" in kind:
        return "coordinator"
    if "bundle" in kind:
        return "bundle"
    raise CommandError(
        "E0303",
        f"Invalid parameter value, [jobtype] = [{text}]",
        hint="jobtype is wf, coordinator or bundle",
    )


def bulk_kind(jobtype: str | None, filter_text: str, *, hint: str) -> str:
    """A bulk kill / suspend / resume's ``jobtype`` (:func:`job_kind`), told before its filter
    (:func:`check_bulk_filter`, ``hint`` in the face's terms): one order for every face."""
    kind = job_kind(jobtype)
    check_bulk_filter(filter_text, hint)
    return kind


# a filter is a few names or statuses; thousands are a script gone wrong (each one a term of
# the query, whose tree SQLite caps at a depth of 1,000)
FILTER_LIMIT = 500


@dataclass(frozen=True)
class JobFilter:
    """Oozie's ``-filter name=value;...``: one key repeated = OR, different keys = AND."""

    clauses: dict[str, list[str]]

    @classmethod
    def parse(cls, text: str, allowed: Sequence[str]) -> JobFilter:
        clauses: dict[str, list[str]] = {}
        for part in (p for p in text.split(";") if p.strip()):
            key, sep, value = part.partition("=")
            key = key.strip().lower()
            # ``name=`` is no pair either: Java's "name=".split("=") is one element (QA: it
            # listed nothing, exit 0, where Oozie refuses it)
            pair = bool(sep and value.strip())
            if not pair or key not in allowed:
                raise CommandError(
                    "E0420",
                    f"Invalid jobs filter [{text}], invalid key [{key}]"
                    if pair
                    else f"Invalid jobs filter [{text}], elements must be name=value pairs",
                    hint=f"keys: {', '.join(allowed)}; e.g. --filter 'status=RUNNING;name=daily'",
                )
            values = clauses.setdefault(key, [])
            if value.strip() not in values:  # a value said twice selects nothing more
                values.append(value.strip())
        if sum(len(v) for v in clauses.values()) > FILTER_LIMIT:
            raise CommandError(
                "E0420",
                f"Invalid jobs filter [{one_line(text)[:60]}…], more than {FILTER_LIMIT}"
                " distinct name=value elements",
                hint="narrow it (status=…, a name, user=…), or list all and filter the output",
            )
        return cls(clauses)


#: the keys of a workflow listing's filter, beside :data:`EXTRA_KEYS`
WF_FILTER_KEYS = ("status", "name", "user", "id", "group")


EXTRA_KEYS = ("text", "startcreatedtime", "endcreatedtime", "sortby")
_RELATIVE = re.compile(r"^-(\d+)([dhm])$")
_SORT: dict[str, ListingSort] = {"createdtime": "created", "lastmodifiedtime": "modified"}


def listing_page(
    conn: sqlite3.Connection,
    cls: type[R],
    clauses: dict[str, list[str]],
    keys: Sequence[str],
    text: str,
    *,
    limit: int,
    offset: int,
    now_ms: int | None = None,
) -> tuple[int, list[R]]:
    """(total, the page) of a listing of ``cls`` for a filter's checked ``clauses``: those on
    ``keys`` and ``text`` match, statuses in any case; ``startcreatedtime`` /
    ``endcreatedtime`` (absolute or ``-2d``/``-3h``/``-5m``) bound the created time, and
    ``sortby`` (createdTime | lastModifiedTime) sorts, in every listing (oozie.md §6.2)."""
    now = now_ms if now_ms is not None else store_now_ms(conn)
    created = {
        key: [_created_time(value, now, text) for value in clauses.get(key, [])]
        for key in ("startcreatedtime", "endcreatedtime")
    }
    sort: ListingSort = "created"
    for value in clauses.get("sortby", []):
        if value.lower() not in _SORT:
            raise CommandError(
                "E0420",
                f"Invalid jobs filter [{text}], invalid sortby [{value}]; use createdTime or lastModifiedTime",
            )
        sort = _SORT[value.lower()]
    match = {
        k: [v.upper() for v in values] if k == "status" else values
        for k, values in clauses.items()
        if k in keys or k == "text"
    }
    return filters.job_listing(
        conn,
        cls,
        match,
        created_from=created["startcreatedtime"],
        created_to=created["endcreatedtime"],
        sort=sort,
        limit=limit,
        offset=offset,
    )


def _created_time(value: str, now_ms: int, text: str) -> int:
    m = _RELATIVE.match(value.strip())
    if m:
        n, unit = int(m.group(1)), m.group(2)
        return now_ms - n * {"d": 86_400_000, "h": 3_600_000, "m": 60_000}[unit]
    try:
        return to_ms(parse_oozie_time(value, what="created time"))
    except BundletuiError:
        raise CommandError(
            "E0420",
            f"Invalid jobs filter [{text}], invalid created time [{value}]",
            hint="use yyyy-MM-ddTHH:mmZ or a relative time such as -2d, -3h, -5m",
        ) from None


def list_workflows(
    conn: sqlite3.Connection,
    filter_text: str = "",
    offset: int = 1,
    length: int = 100,
    tz: str = "GMT",
    *,
    now_ms: int | None = None,
) -> dict[str, Any]:
    flt = JobFilter.parse(filter_text, [*WF_FILTER_KEYS, *EXTRA_KEYS])
    for value in flt.clauses.get("status", []):
        if value.upper() not in WorkflowStatus.__members__:
            raise CommandError(
                "E0420",
                f"Invalid jobs filter [{filter_text}], invalid status [{value}]",
                hint=f"a workflow's status is one of {', '.join(WorkflowStatus)}",
            )
    total, rows = listing_page(
        conn,
        WorkflowRow,
        flt.clauses,
        WF_FILTER_KEYS,
        filter_text,
        limit=length,
        offset=max(offset - 1, 0),
        now_ms=now_ms,
    )
    items = [workflow_json(conn, row, with_actions=False, tz=tz) for row in rows]
    return {"workflows": items, "total": total, "offset": offset, "len": length}


# ----------------------------------------------------------------------------- audit log

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def one_line(text: str) -> str:
    """``text`` with its control characters escaped (``\\n``, ``\\x1b``): a value a client sent
    (a user name, a command's arguments) cannot start a log line of its own or move a cursor."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def audit_log_lines(
    conn: sqlite3.Connection, job_id: str, *, errors_only: bool, zone: tzinfo | None
) -> list[str]:
    """The commands run on a job, oldest first, in the shape of Oozie's server-log lines (tools
    grep ``JOB[<id>]``); ``zone`` None is the local one."""
    lines = []
    for r in reversed(jobs.audit_rows(conn, target=job_id, limit=10_000)):
        if errors_only and r.result == "ok":
            continue
        stamp = datetime.fromtimestamp(r.time / 1000).astimezone(zone)
        level = "INFO " if r.result == "ok" else "ERROR"
        text = f"{r.command} {r.result}" + (f": {r.error}" if r.error else "")
        args = f" {r.args}" if r.args and r.args != "{}" else ""
        lines.append(
            one_line(
                f"{stamp:%Y-%m-%d %H:%M:%S},{r.time % 1000:03d} {level} {r.face} - USER[{r.user}] "
                f"GROUP[-] TOKEN[] APP[-] JOB[{job_id}] ACTION[-] {text}{args}"
            )
        )
    return lines

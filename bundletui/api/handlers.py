"""The work behind each endpoint, run in an API worker thread against that thread's Store.

Every state change goes through the same commands the CLI and console call
(:mod:`bundletui.commands.dispatch`, :func:`bundletui.commands.submit.submit_loaded`), each one
transaction with its audit row (face ``api``), their effects left in the store's outbox for the
engine. Every read is the JSON of :mod:`bundletui.commands.queries` /
:mod:`bundletui.commands.coord_queries`. What is here is only HTTP: which parameter means what
(oozie.md §7.1), defaults per API version, and the shape of each reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bundletui import __version__
from bundletui.api.params import Params
from bundletui.commands import admin as admin_cmd
from bundletui.commands import coord_queries, dispatch, queries
from bundletui.commands.base import Ctx
from bundletui.commands.workflows import rerun_keys
from bundletui.errors import ApiError
from bundletui.model.ids import IdKind, kind_of
from bundletui.store import jobs as store_jobs
from bundletui.store.db import Store

JSON = "application/json;charset=UTF-8"
TEXT = "text/plain;charset=UTF-8"
XML = "application/xml;charset=UTF-8"

LISTING_OFFSET, LISTING_LEN = 1, 50  # GET /jobs defaults (oozie.md §7.1)
V1_ACTIONS_LEN = queries.DEFAULT_ACTIONS_LEN  # v2's default is 0
HTTP_JOB_TYPES = ("mapreduce", "pig", "hive", "sqoop")  # Oozie's proxy submissions


@dataclass(frozen=True)
class Call:
    """One request, as the handlers see it."""

    version: int  # 0, 1 or 2
    method: str
    resource: str  # the job id, or the admin resource
    params: Params
    body: bytes = b""
    content_type: str = ""
    user: str = "user"


@dataclass
class Reply:
    """``body``: a dict/list (JSON), a str (``media_type`` text), or None (empty 200)."""

    body: Any = None
    status: int = 200
    media_type: str = JSON


def bad_value(name: str, value: object, hint: str | None = None) -> ApiError:
    return ApiError.from_template("E0303", name, value, hint=hint)


def missing(name: str, hint: str | None = None) -> ApiError:
    return ApiError.from_template("E0305", name, hint=hint)


# ----------------------------------------------------------------------------- admin


def admin(store: Store, call: Call) -> Reply:
    if call.resource == "status":
        if call.method == "GET":
            return Reply({"systemMode": store.system_mode()})
        mode = call.params.text("systemmode")
        if not mode:
            raise missing("systemmode", hint="systemmode=NORMAL|NOWEBSERVICE|SAFEMODE")
        admin_cmd.set_system_mode(Ctx(store, face="api", user=call.user), mode)
        return Reply()
    if call.method != "GET":
        raise ApiError(
            "E0301", f"Invalid resource [{call.resource}]", hint="only admin/status takes PUT"
        )
    if call.resource == "build-version":
        return Reply(
            {
                "buildVersion": admin_cmd.BUILD_VERSION,
                "buildInfo": {"build.version": __version__},
            }
        )
    raise ApiError(
        "E0301",
        f"Invalid resource [{call.resource}]",
        hint="admin resources: status, build-version",
    )


# ----------------------------------------------------------------------------- /jobs


def jobs_get(store: Store, call: Call) -> Reply:
    external = call.params.get("external-id")
    if external is not None:
        wf = store_jobs.workflow_by_external_id(store.conn, external.strip())
        return Reply({"id": wf.id if wf is not None else ""})
    return Reply(listing(store, call.params))


def job_type(params: Params) -> str:
    """``jobtype``: ``wf`` (default), ``coordinator`` or ``bundle``, read as ``oozie jobs
    -jobtype`` reads it (:func:`bundletui.commands.queries.job_kind`)."""
    return queries.job_kind(params.get("jobtype"))


def listing(store: Store, params: Params) -> dict[str, Any]:
    kind = job_type(params)
    offset = params.integer("offset", LISTING_OFFSET)
    length = params.integer("len", LISTING_LEN)
    offset = offset if offset >= 1 else LISTING_OFFSET
    length = length if length >= 1 else LISTING_LEN
    flt, nothing = _without_premater(params.get("filter") or "")
    tz = params.timezone()
    if nothing:
        return {queries.LISTING_ENVELOPE[kind]: [], "total": 0, "offset": offset, "len": length}
    if kind == "wf":
        return queries.list_workflows(store.conn, flt, offset, length, tz)
    return coord_queries.list_jobs(store.conn, kind, flt, offset, length, tz=tz)


def _without_premater(text: str) -> tuple[str, bool]:
    """pyoozie's "active coordinators" filter ORs every active status of Oozie's enum,
    ``PREMATER`` included, which no bundletui job ever has and the listing filter rejects.
    Dropping that clause keeps the meaning; a filter whose only status is PREMATER selects
    nothing (the second value)."""
    parts = [p for p in text.split(";") if p.strip()]
    statuses = [p for p in parts if p.partition("=")[0].strip().lower() == "status"]
    premater = [p for p in statuses if p.partition("=")[2].strip().upper() == "PREMATER"]
    if not premater:
        return text, False
    kept = [p for p in parts if p not in premater]
    return ";".join(kept), len(premater) == len(statuses)


def jobs_put(store: Store, call: Call) -> Reply:
    """Bulk ``kill|suspend|resume`` of the jobs a filter selects (one page of them); jobs whose
    status does not allow it are skipped, as Oozie's bulk commands do."""
    action = call.params.text("action")
    if not action:
        raise missing("action", hint="action=kill|suspend|resume")
    if action not in dispatch.BULK_OPS:
        raise bad_value("action", action, "bulk actions are kill, suspend and resume")
    kind = queries.bulk_kind(
        call.params.get("jobtype"),
        call.params.text("filter"),
        hint="select the jobs, e.g. filter=status=RUNNING;name=ingest",
    )
    page = listing(store, call.params)
    ctx = Ctx(store, face="api", user=call.user)
    id_key, envelope = queries.LISTING_ID_KEY[kind], queries.LISTING_ENVELOPE[kind]
    done = dispatch.bulk(ctx, action, [item[id_key] for item in page[envelope]])
    items = [_summary(store, kind, job_id) for job_id in done]
    return Reply(
        {envelope: items, "total": len(items), "offset": page["offset"], "len": page["len"]}
    )


def _summary(store: Store, kind: str, job_id: str) -> dict[str, Any]:
    data = queries.job_info(store.conn, job_id, length=0)
    data.pop("bundleCoordJobs" if kind == "bundle" else "actions", None)
    return data


def submit(store: Store, call: Call) -> Reply:
    """``POST /jobs``: a Hadoop ``<configuration>`` body names the app; 201 ``{"id": …}``."""
    from bundletui.commands.submit import submit_noting
    from bundletui.spec.config import load_job_config, parse_hadoop_xml
    from bundletui.spec.dryrun import default_landing
    from bundletui.spec.load import load_configured

    action = call.params.get("action")
    if action is not None and action not in ("start", "dryrun"):
        raise bad_value("action", action, "POST /jobs takes action=start or action=dryrun")
    _no_scope(call.params, "a submission")
    proxy = call.params.text("jobtype").lower()
    if proxy in HTTP_JOB_TYPES:
        raise bad_value(
            "jobtype", proxy, "bundletui runs workflows, coordinators and bundles, not Hadoop jobs"
        )
    conf = parse_hadoop_xml(_xml_body(call), "<request body>")
    user = conf.get("user.name", "").strip() or call.user
    conf["user.name"] = user
    defaults = {"landing": default_landing(store.home)}
    job = load_job_config(None, conf, base_dir=store.home, defaults=defaults)
    loaded = load_configured(job, store.clock, user=user, defaults=defaults)
    if action == "dryrun":
        from bundletui.api.dryrun import dryrun_reply

        return Reply(dryrun_reply(loaded, store.clock), status=201)
    ctx = Ctx(store, face="api", user=user)
    # a reused oozie.wf.external.id answers the job it named: the reply says so beside the id
    # (Oozie's clients read only "id"), as the CLI and the Oozie front say it on stderr
    job_id, again = submit_noting(ctx, loaded, start=action == "start")
    body = {"id": job_id}
    if again is not None:
        body["note"] = again.removeprefix("note: ")
    return Reply(body, status=201)


def _xml_body(call: Call) -> bytes:
    """The configuration body, sent as XML (``application/xml``, charset ignored; ``text/xml``
    too): Oozie's validateContentType refuses anything else, a missing type included. An empty
    body is not a content-type problem: it is the XML error a malformed body gets (E0701),
    told as what it is, whatever the type."""
    body = call.body
    head = body.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head:
        raise ApiError(
            "E0701",
            "XML schema error, <request body>, the request body is empty: a submission is a "
            "Hadoop configuration XML",
            hint="POST a body such as <configuration><property><name>oozie.wf.application.path"
            "</name><value>/apps/wf</value></property>…</configuration> (or "
            "oozie.coord.application.path / oozie.bundle.application.path) with Content-Type: "
            "application/xml",
        )
    ctype = call.content_type.split(";")[0].strip().lower()
    if not ctype.endswith("/xml"):
        raise ApiError(
            "E0300",
            f"Invalid content-type [{call.content_type}]",
            hint="POST a Hadoop <configuration> with Content-Type: application/xml",
        )
    return body


# ----------------------------------------------------------------------------- /job/<id>


def _kind(job_id: str) -> IdKind:
    kind = kind_of(job_id)
    if kind is None:
        raise ApiError.from_template(
            "E0604",
            job_id,
            hint="ids end in -B (bundle), -C (coordinator), -C@n, -W or -W@node",
        )
    return kind


def job_get(store: Store, call: Call) -> Reply:
    job_id = call.resource
    _kind(job_id)
    if call.params.has("action"):  # a PUT's parameter on a GET: refused, never an info
        raise ApiError.from_template("E0302", "action", hint="action is for PUT requests")
    show = call.params.get("show")
    show = "info" if show is None or not show.strip() else show.strip()
    tz = call.params.timezone()
    if show in ("info", "status", "definition"):
        _no_scope(call.params, f"show={show}")
    if show == "info":
        return Reply(info(store, call, tz))
    if show == "status":
        data = queries.job_info(store.conn, job_id, length=0, tz=tz)
        return Reply({"status": data["status"]})
    if show == "definition":
        return Reply(coord_queries.definition_of(store.conn, job_id), media_type=XML)
    if show in ("log", "errorlog", "auditlog"):
        from bundletui.api.logs import job_log

        # Oozie's `job -log C -action 2` sends type/scope: those actions' logs, never the
        # coordinator's own log in their place
        actions, dates = _scope(call.params)
        if (actions is not None or dates is not None) and (
            show == "auditlog" or _kind(job_id) is not IdKind.COORDINATOR
        ):
            raise ApiError.from_template(
                "E0302",
                f"type/scope with show={show} of {job_id}",
                hint="an action or date scope selects a coordinator's actions for show=log or"
                " errorlog",
            )
        text = job_log(store, job_id, show, actions=actions, dates=dates)
        return Reply(text, media_type=TEXT)
    raise bad_value("show", show, "show is info, status, definition, log, errorlog or auditlog")


def info(store: Store, call: Call, tz: str) -> dict[str, Any]:
    """Job info; a coordinator's actions paged: v1 ``len`` defaults to 1000 (``len<1`` too),
    v2 to 0 (``len<0`` too), so v2 lists no actions unless asked (oozie.md §7.1)."""
    p = call.params
    offset = max(p.integer("offset", 1), 1)
    if kind_of(call.resource) is IdKind.WORKFLOW:  # len < 1: all of its actions
        return queries.job_info(
            store.conn,
            call.resource,
            offset=offset,
            length=p.integer("len", 0),
            tz=tz,
            reached_only=True,
        )
    if call.version >= 2:
        length = p.integer("len", 0)
        length = length if length >= 0 else 0
    else:
        length = p.integer("len", V1_ACTIONS_LEN)
        length = length if length >= 1 else V1_ACTIONS_LEN
    order = p.text("order") or "asc"
    return queries.job_info(
        store.conn,
        call.resource,
        offset=offset,
        length=length,
        order=order,
        filter_text=p.get("filter") or "",
        tz=tz,
    )


def job_put(store: Store, call: Call) -> Reply:
    job_id = call.resource
    p = call.params
    action = p.text("action")
    if not action:
        raise missing("action", hint="e.g. ?action=suspend")
    if p.has("show"):
        raise ApiError.from_template("E0302", "show", hint="show is for GET requests")
    kind = _kind(job_id)
    ctx = Ctx(store, face="api", user=call.user)
    if action in ("start", "change", "dryrun"):
        _no_scope(p, f"action={action}")
    if action == "start":
        dispatch.start(ctx, job_id, started_ok=True)  # Oozie's: a started bundle is left
    elif action in ("suspend", "resume"):
        # pyoozie suspends a C@n as type=action&scope=n: that action's workflow, never the
        # whole coordinator (Oozie's servlet ignores the scope)
        actions, dates = _scope(p)
        hold = dispatch.suspend if action == "suspend" else dispatch.resume
        held = hold(ctx, job_id, actions=actions, dates=dates)
        if held:
            return _actions_reply(store, held)
    elif action == "kill":
        actions, dates = _scope(p)
        if actions is None and dates is None:
            dispatch.kill(ctx, job_id)
        else:
            return _actions_reply(
                store, dispatch.kill_actions(ctx, job_id, actions=actions, dates=dates)
            )
    elif action == "change":
        value = p.get("value")
        if value is None:
            raise missing("value", hint="e.g. value=pausetime=2030-01-01T00:00Z")
        dispatch.change(ctx, job_id, value)
    elif action == "ignore":
        actions, dates = _scope(p)
        ids = dispatch.ignore(ctx, job_id, actions=actions, dates=dates)
        if any("@" in i for i in ids):
            return _actions_reply(store, ids)
    elif action in ("rerun", "coord-rerun", "bundle-rerun"):
        return rerun(store, ctx, call, kind)
    elif action == "dryrun":
        return job_dryrun(store, call)
    else:
        raise bad_value(
            "action",
            action,
            "start, suspend, resume, kill, change, ignore, rerun, coord-rerun, bundle-rerun, dryrun",
        )
    return Reply()


def _no_scope(p: Params, what: str) -> None:
    """As the CLI's "-action is not valid with -start": a scope where none applies is
    refused, never dropped (the whole job would be started, changed or rerun)."""
    if p.has("type") or p.has("scope"):
        raise ApiError(
            "E0302",
            f"Invalid parameter [{'type' if p.has('type') else 'scope'}], {what} takes no"
            " action scope",
            hint="type/scope choose a coordinator's actions for kill, suspend, resume, ignore"
            " and coord-rerun",
        )


def _scope(p: Params) -> tuple[str | None, str | None]:
    """``type=action|date&scope=…`` -> (actions, dates)."""
    kind = p.text("type").lower()
    scope = p.get("scope")
    if not kind and scope is None:
        return None, None
    if not kind:
        raise missing("type", hint="type=action (scope=1,3-4) or type=date (scope=d1::d2)")
    if kind not in ("action", "date"):
        raise bad_value("type", p.get("type"), "type is action or date")
    if not (scope or "").strip():
        raise missing("scope", hint="type=action: scope=1,3-4; type=date: scope=d1::d2,d3")
    assert scope is not None
    return (scope.strip(), None) if kind == "action" else (None, scope.strip())


def _actions_reply(store: Store, ids: list[str]) -> Reply:
    return Reply({"actions": [coord_queries.action_info(store.conn, i) for i in ids if "-C@" in i]})


def rerun(store: Store, ctx: Ctx, call: Call, kind: IdKind) -> Reply:
    """Routed by the id, as Oozie does: a workflow takes its skip/fail nodes from an XML body,
    a coordinator ``type``/``scope``, a bundle ``coord-scope``/``date-scope``."""
    p = call.params
    job_id = call.resource
    from bundletui.spec.config import parse_hadoop_xml

    body = call.body.strip()  # a bundle's rerun takes no properties: its body is not read
    conf = (  # an empty <value> is a value here: skip.nodes empty means every node
        parse_hadoop_xml(body, "<request body>", keep_empty=True)
        if body and kind is not IdKind.BUNDLE
        else {}
    )
    if kind is IdKind.WORKFLOW:
        _no_scope(p, "a workflow's rerun")
        skip, failed = rerun_keys(conf)
        dispatch.rerun(ctx, job_id, skip_nodes=skip, failed_nodes=failed, conf=conf)
        return Reply()
    if kind is IdKind.BUNDLE:
        _no_scope(p, "a bundle's rerun (coord-scope, date-scope)")
        coords = p.text("coord-scope") or None
        dates = p.text("date-scope") or None
        notes: list[str] = []
        dispatch.rerun(
            ctx,
            job_id,
            coordinators=coords,
            dates=dates,
            refresh=p.boolean("refresh"),
            nocleanup=p.boolean("nocleanup"),
            notes=notes,
        )
        # names the bundle lacks, and coordinators passed over by dates (Oozie: 200, no body)
        return Reply({"warnings": notes}) if notes else Reply()
    actions, dates = _scope(p)
    skipped: list[str] = []
    ids = dispatch.rerun(
        ctx,
        job_id,
        actions=actions,
        dates=dates,
        refresh=p.boolean("refresh"),
        nocleanup=p.boolean("nocleanup"),
        failed=p.boolean("failed"),
        conf=conf,
        notes=skipped,
    )
    if kind is IdKind.COORDINATOR:
        reply = _actions_reply(store, ids)
        if skipped:  # actions LAST_ONLY / NONE will skip at once: said, as the CLI says it
            reply.body["warnings"] = skipped
        return reply
    return Reply()


def job_dryrun(store: Store, call: Call) -> Reply:
    """``PUT job/<id>?action=dryrun``: the job's own configuration (or an XML body replacing
    it) through the submit-time checks and the first-hour materialization; nothing stored."""
    from bundletui.api.dryrun import dryrun_reply
    from bundletui.spec.config import load_job_config, parse_hadoop_xml
    from bundletui.spec.load import load_configured

    data = queries.job_info(store.conn, call.resource, length=0)  # E0604/E0605 first
    kind = kind_of(call.resource)
    if kind is None or kind not in _APP_PATH_KEYS:
        # an action or a node has no configuration of its own to submit (it was answered
        # E0405, "no application path", which sent the client looking for the wrong thing)
        raise ApiError.from_template(
            "E0302",
            f"dryrun of {call.resource}",
            hint="dryrun a bundle (-B), a coordinator (-C) or a workflow (-W)",
        )
    body = call.body.strip()
    if body:
        conf = parse_hadoop_xml(body, "<request body>")
    else:  # the stored app path as resolved at submit: the conf keeps it as it was written
        conf = _conf_of(data)
        key, path_key = _APP_PATH_KEYS[kind]
        conf[key] = data[path_key]
    user = conf.get("user.name", "").strip() or call.user
    conf["user.name"] = user
    job = load_job_config(None, conf, base_dir=store.home)
    loaded = load_configured(job, store.clock, user=user)
    return Reply(dryrun_reply(loaded, store.clock))


_APP_PATH_KEYS = {
    IdKind.BUNDLE: ("oozie.bundle.application.path", "bundleJobPath"),
    IdKind.COORDINATOR: ("oozie.coord.application.path", "coordJobPath"),
    IdKind.WORKFLOW: ("oozie.wf.application.path", "appPath"),
}


def _conf_of(data: dict[str, Any]) -> dict[str, str]:
    from bundletui.spec.config import parse_hadoop_xml

    text = data.get("conf") or ""
    if not text:
        return {}
    return parse_hadoop_xml(text.encode("utf-8"), "<stored configuration>", keep_empty=True)

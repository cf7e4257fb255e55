"""workflow.xml (``uri:oozie:workflow:0.5`` / ``1.0``) and the DAG form
(``uri:bundletui:dag:1.0``) -> :class:`WorkflowApp`.

Oozie evaluates a workflow's EL when each node runs, so action bodies, transitions, decision
predicates and kill messages are stored as written (trimmed, as Oozie's ``getTextTrim``).
Only the application name and the retry / max-parallel attributes go through the resolver.
After decoding, :func:`bundletui.spec.workflow_checks.check_workflow` validates the graph.
"""

from __future__ import annotations

from pathlib import Path

from bundletui.errors import SpecError
from bundletui.model.apps import (
    Action,
    FsAction,
    FsOp,
    FsOpKind,
    Node,
    NodeType,
    RetryPolicy,
    ShellAction,
    SubWorkflowAction,
    WorkflowApp,
    WorkflowForm,
)
from bundletui.model.localized import parse_entry
from bundletui.model.paths import PathProblem, parse_local_path, sweep_refusal
from bundletui.spec import xmlsafe
from bundletui.spec.config import job_xml_path, locate_cache_entry, not_a_file
from bundletui.spec.decode_common import (
    BAD_VALUE,
    expect_kind,
    read_conf,
    split_parameters,
    where,
)
from bundletui.spec.resolver import Resolver
from bundletui.spec.workflow_checks import check_workflow
from bundletui.spec.xmlsafe import DAG_NAMESPACE, SHELL_NAMESPACES, AppKind, Element, XmlDocument

DEFAULT_RETRY_MAX = 0  # oozie.service.LiteWorkflowStoreService.user.retry.default
DEFAULT_RETRY_INTERVAL = 10  # minutes

_SUPPORTED = "shell (uri:oozie:shell-action:0.3 or 1.0), fs and sub-workflow"


def decode_workflow(
    doc: XmlDocument,
    resolver: Resolver,
    *,
    check: bool = True,
    validate_fork_join: bool = True,
) -> WorkflowApp:
    """Decode either workflow form; ``check`` runs the graph validation (``validate_fork_join``
    mirrors ``oozie.wf.validate.ForkJoin``)."""
    expect_kind(doc, AppKind.WORKFLOW, ("workflow-app", "dag-app"))
    if xmlsafe.local_name(doc.root) == "dag-app":
        app = _decode_dag(doc, resolver)
    else:
        app = _decode_oozie(doc, resolver)
    if check:
        check_workflow(app, validate_fork_join=validate_fork_join)
    return app


# --------------------------------------------------------------------------- Oozie form


def _decode_oozie(doc: XmlDocument, resolver: Resolver) -> WorkflowApp:
    root = doc.root
    name = resolver.text(root.get("name", ""), where(doc, root, "workflow-app/@name")).strip()
    defaults, required = split_parameters(doc)
    global_el = xmlsafe.child(root, "global")
    global_conf = (
        read_conf(doc, xmlsafe.child(global_el, "configuration"), None, resolve_values=False)
        if global_el is not None
        else ()
    )
    global_job_xml = _job_xmls(doc, global_el, "<global>") if global_el is not None else ()
    start_el = xmlsafe.child(root, "start")
    start_to = start_el.get("to") if start_el is not None else None

    nodes: list[Node] = []
    for el in xmlsafe.children(root):
        if xmlsafe.namespace_of(el) != doc.namespace:
            continue  # sla:info
        kind = xmlsafe.local_name(el)
        line = el.sourceline
        nname = el.get("name", "")
        if kind == "end":
            nodes.append(Node(nname, NodeType.END, line=line))
        elif kind == "kill":
            message = xmlsafe.text(xmlsafe.child(el, "message"))
            nodes.append(Node(nname, NodeType.KILL, message=message, line=line))
        elif kind == "decision":
            switch = xmlsafe.child(el, "switch")
            cases = tuple(
                (xmlsafe.text(c), c.get("to", "")) for c in xmlsafe.children(switch, "case")
            )
            default = xmlsafe.child(switch, "default")
            nodes.append(
                Node(
                    nname,
                    NodeType.DECISION,
                    cases=cases,
                    default_to=default.get("to") if default is not None else None,
                    line=line,
                )
            )
        elif kind == "fork":
            paths = tuple(p.get("start", "") for p in xmlsafe.children(el, "path"))
            nodes.append(Node(nname, NodeType.FORK, paths=paths, line=line))
        elif kind == "join":
            nodes.append(Node(nname, NodeType.JOIN, to=el.get("to"), line=line))
        elif kind == "action":
            body = _action_body(el)
            action = _action(doc, el, body, nname)
            ok = xmlsafe.child(el, "ok")
            err = xmlsafe.child(el, "error")
            retry_max, retry_interval, retry_policy = _retries(doc, el, resolver)
            nodes.append(
                Node(
                    nname,
                    NodeType.ACTION,
                    action=action,
                    ok_to=ok.get("to") if ok is not None else None,
                    error_to=err.get("to") if err is not None else None,
                    retry_max=retry_max,
                    retry_interval=retry_interval,
                    retry_policy=retry_policy,
                    line=line,
                )
            )
    return WorkflowApp(
        name=name,
        form=WorkflowForm.OOZIE,
        nodes=tuple(nodes),
        start_to=start_to,
        start_line=start_el.sourceline if start_el is not None else None,
        parameters=defaults,
        global_conf=global_conf,
        global_job_xml=global_job_xml,
        namespace=doc.namespace,
        source=doc.file,
        required_parameters=required,
    )


def _action_body(el: Element) -> Element:
    for c in xmlsafe.children(el):
        if xmlsafe.local_name(c) not in ("ok", "error") and "sla" not in xmlsafe.namespace_of(c):
            return c
    raise AssertionError("schema guarantees an action body")  # pragma: no cover


def _action(doc: XmlDocument, node_el: Element, body: Element, node: str) -> Action:
    ns = xmlsafe.namespace_of(body)
    kind = xmlsafe.local_name(body)
    if ns == doc.namespace and kind == "fs":
        return _fs(doc, body, node)
    if ns == doc.namespace and kind == "sub-workflow":
        return _sub_workflow(doc, body)
    if ns == doc.namespace and kind == "shell":  # DAG form: shell lives in the dag namespace
        return _shell(doc, body, node)
    if ns in SHELL_NAMESPACES and kind == "shell":
        return _shell(doc, body, node)
    shown = kind if ns == doc.namespace else f"{kind} ({ns})"
    raise where(doc, body, "action").error(
        "E0723",
        f"Unsupported action type, node [{node}] type [{shown}]",
        hint=f"bundletui runs {_SUPPORTED} actions",
    )


def _shell(doc: XmlDocument, el: Element, node: str) -> ShellAction:
    exec_el = xmlsafe.child(el, "exec")
    exec_ = xmlsafe.text(exec_el)
    if not exec_.strip():
        raise where(doc, exec_el if exec_el is not None else el, "exec").error(
            BAD_VALUE,
            f"node [{node}] has an empty <exec>: there is no program to run",
            hint="name the program, e.g. <exec>/bin/echo</exec>, and pass its arguments in"
            " <argument> elements",
        )
    if exec_.strip().startswith("-"):
        raise where(doc, exec_el, "exec").error(
            BAD_VALUE,
            f"node [{node}] has <exec>{exec_.strip()}</exec>: a program name cannot start with '-'",
            hint="name the program in <exec> and pass options in <argument> elements",
        )
    arguments = tuple(xmlsafe.text(a) for a in xmlsafe.children(el, "argument"))
    env_vars: list[str] = []
    for e in xmlsafe.children(el, "env-var"):
        value = xmlsafe.text(e)
        if ("=" not in value and "${" not in value) or value.startswith("="):
            raise where(doc, e, "env-var").error(
                BAD_VALUE,
                f"env-var [{value}] of node [{node}] is not NAME=VALUE",
                hint="one variable per <env-var>, e.g. <env-var>LANG=C</env-var>",
            )
        env_vars.append(value)
    prepare: list[FsOp] = []
    prep = xmlsafe.child(el, "prepare")
    if prep is not None:
        for p in xmlsafe.children(prep):
            op = FsOpKind.DELETE if xmlsafe.local_name(p) == "delete" else FsOpKind.MKDIR
            what = f"<prepare> <{op}>"
            path = (
                _whole_tree(doc, p, "path", node, what, "delete", "FS005")
                if op is FsOpKind.DELETE
                else _local_path(doc, p, "path", node, what)
            )
            prepare.append(FsOp(op, path))
    return ShellAction(
        exec=exec_,
        arguments=arguments,
        env_vars=tuple(env_vars),
        capture_output=xmlsafe.child(el, "capture-output") is not None,
        configuration=read_conf(
            doc, xmlsafe.child(el, "configuration"), None, resolve_values=False
        ),
        prepare=tuple(prepare),
        job_xml=_job_xmls(doc, el, f"action node [{node}]"),
        files=_cache_entries(doc, el, "file", node),
        archives=_cache_entries(doc, el, "archive", node),
    )


def _cache_entries(doc: XmlDocument, el: Element, kind: str, node: str) -> tuple[str, ...]:
    """A shell action's ``<file>`` or ``<archive>`` entries, as written (the engine links them
    into the working directory when the action starts). One without EL is checked now, with
    its line: a missing file, a link name that is not a file name, an archive of a kind that
    is not unpacked. Link names must differ across the action's files and archives."""
    raws: list[str] = []
    for e in xmlsafe.children(el, kind):
        raw = xmlsafe.text(e)
        if "${" not in raw:
            _check_cache_entry(doc, e, raw, kind, node)
        raws.append(raw)
    if kind == "archive":
        taken: dict[str, str] = {}
        for e in [*xmlsafe.children(el, "file"), *xmlsafe.children(el, "archive")]:
            raw = xmlsafe.text(e)
            link = parse_entry(raw).link
            if "${" in raw or link not in taken:
                taken.setdefault(link, raw)
                continue
            raise where(doc, e, xmlsafe.local_name(e)).error(
                BAD_VALUE,
                f"<{xmlsafe.local_name(e)}> [{raw}] of node [{node}] takes the name [{link}],"
                f" which [{taken[link]}] takes already",
                hint="give one of them another link name: path#name",
            )
    return tuple(raws)


def _check_cache_entry(doc: XmlDocument, el: Element, raw: str, kind: str, node: str) -> None:
    # the directory the engine resolves against: the resolved definition's (wf:appPath())
    problem = locate_cache_entry(raw, kind, Path(doc.file).resolve().parent)
    if isinstance(problem, PathProblem):
        raise where(doc, el, kind).error(
            problem.code,
            f"{problem.message} (node [{node}])",
            hint=f"{problem.hint}; as written, the action would fail at every run",
        )


def _fs(doc: XmlDocument, el: Element, node: str) -> FsAction:
    ops: list[FsOp] = []
    for c in xmlsafe.children(el):
        kind = xmlsafe.local_name(c)
        if kind in ("name-node", "job-xml", "configuration"):
            continue
        what = f"<fs> <{kind}>"
        if kind == "delete":
            path = _whole_tree(doc, c, "path", node, what, "delete", "FS005")
            ops.append(FsOp(FsOpKind.DELETE, path))
        elif kind == "mkdir":
            ops.append(FsOp(FsOpKind.MKDIR, _local_path(doc, c, "path", node, what)))
        elif kind == "touchz":
            ops.append(FsOp(FsOpKind.TOUCHZ, _local_path(doc, c, "path", node, what)))
        elif kind == "move":
            source = _whole_tree(doc, c, "source", node, what, "move", "FS008")
            ops.append(FsOp(FsOpKind.MOVE, source, target=_move_target(doc, c, node)))
        elif kind == "chmod":
            dir_files = c.get("dir-files", "true").strip().lower() != "false"
            recursive = xmlsafe.child(c, "recursive") is not None
            path = (
                _whole_tree(doc, c, "path", node, what, "chmod", "FS010")
                if dir_files or recursive
                else _local_path(doc, c, "path", node, what)
            )
            ops.append(
                FsOp(
                    FsOpKind.CHMOD,
                    path,
                    permissions=c.get("permissions", ""),
                    recursive=recursive,
                    dir_files=dir_files,
                )
            )
        else:
            raise where(doc, c, "fs").error(
                "E0723",
                f"Unsupported action type, node [{node}] type [fs:{kind}]",
                hint="the fs action supports mkdir, delete, move, chmod and touchz",
            )
    return FsAction(tuple(ops), job_xml=_job_xmls(doc, el, f"action node [{node}]"))


def _job_xmls(doc: XmlDocument, el: Element, owner: str) -> tuple[str, ...]:
    """The ``<job-xml>`` paths of an action body or of ``<global>`` (``owner``), as written:
    the engine reads the files when the action starts, as Oozie does. A path without EL names
    its file now, so a file that is not there is refused now, with the line: as written, the
    action would fail at every run (JA008). One with EL is checked when the action runs."""
    paths: list[str] = []
    for j in xmlsafe.children(el, "job-xml"):
        raw = xmlsafe.text(j)
        if "${" not in raw:
            _check_job_xml(doc, j, raw, owner)
        paths.append(raw)
    return tuple(paths)


def _check_job_xml(doc: XmlDocument, el: Element, raw: str, owner: str) -> None:
    # the directory the engine resolves against: the resolved definition's (wf:appPath())
    app = Path(doc.file).resolve().parent
    located = job_xml_path(raw, app)
    if isinstance(located, PathProblem):
        raise where(doc, el, "job-xml").error(
            located.code,
            f"{located.message}, in <job-xml> of {owner}",
            hint="a job-xml is a local file: a path relative to the workflow's directory, "
            "or an absolute one (/etc/app/conf.xml or file:///etc/app/conf.xml)",
        )
    if not located.is_file():
        code, state = not_a_file(located)
        raise where(doc, el, "job-xml").error(
            code,
            f"job-xml [{raw}] of {owner}: {located} {state}",
            hint=f"a relative job-xml path is under the workflow's directory ({app}); create "
            "the Hadoop configuration file or fix the path: as written, the action would fail "
            "at every run",
        )


def _local_path(doc: XmlDocument, el: Element, attr: str, node: str, what: str) -> str:
    """An fs operation's path (an fs action's, or a shell action's ``<prepare>``), as written.

    The engine runs them on the local file system, where a path must be absolute (plain or
    ``file://``): anything else fails the action at every run, FS011 (relative) or FS002
    (another scheme or a host). A path without EL is known now, so it is refused now, with
    the line; one with EL is checked when the action runs, as Oozie does."""
    raw = el.get(attr, "")
    if "${" in raw:
        return raw
    problem = parse_local_path(raw)
    if isinstance(problem, PathProblem):
        raise _bad_path(doc, el, attr, problem.code, problem.message, node, what)
    return raw


def _whole_tree(
    doc: XmlDocument, el: Element, attr: str, node: str, what: str, verb: str, code: str
) -> str:
    """The path of an operation on a whole tree (a delete, a move's source, a chmod of a
    directory's files); one known now that names the root or a top-level directory is
    refused now, as the engine would refuse it at every run."""
    raw = _local_path(doc, el, attr, node, what)
    local = parse_local_path(raw) if "${" not in raw else None
    why = sweep_refusal(local, verb) if isinstance(local, str) else None
    if why is not None:
        raise where(doc, el, f"@{attr}").error(
            code,
            f"{verb}, path [{raw}]: {why}, in {what} @{attr} of action node [{node}]",
            hint=f"a {verb} names a path at least two levels deep; check the variables that"
            " make it (an empty one leaves the path's parent)",
        )
    return raw


def _move_target(doc: XmlDocument, el: Element, node: str) -> str:
    """A move's target: a local path as its source (the engine reads both alike); an empty
    one has nothing to move to (FS008)."""
    if not el.get("target", "").strip():
        raise where(doc, el, "@target").error(
            "FS008",
            f"move, no target given for source [{el.get('source', '')}], in <fs> <move> of "
            f"action node [{node}]",
            hint='name where to move it, e.g. target="/data/archive"',
        )
    return _local_path(doc, el, "target", node, "<fs> <move>")


def _bad_path(
    doc: XmlDocument, el: Element, attr: str, code: str, message: str, node: str, what: str
) -> SpecError:
    return where(doc, el, f"@{attr}").error(
        code,
        f"{message}, in {what} @{attr} of action node [{node}]",
        hint="fs operations run on the local file system: give an absolute path "
        "(/data/out or file:///data/out), or build it from a variable that holds one "
        "(${outDir}/out); as written, the action would fail at every run",
    )


def _sub_workflow(doc: XmlDocument, el: Element) -> SubWorkflowAction:
    return SubWorkflowAction(
        app_path=xmlsafe.text(xmlsafe.child(el, "app-path")),
        propagate_configuration=xmlsafe.child(el, "propagate-configuration") is not None,
        configuration=read_conf(
            doc, xmlsafe.child(el, "configuration"), None, resolve_values=False
        ),
    )


def _retries(doc: XmlDocument, el: Element, resolver: Resolver) -> tuple[int, int, RetryPolicy]:
    def number(attr: str, default: int) -> int:
        raw = el.get(attr)
        if raw is None or not raw.strip():
            return default
        value = resolver.integer(raw, where(doc, el, f"@{attr}"))
        if value < 0:
            raise where(doc, el, f"@{attr}").error(
                BAD_VALUE,
                f"{attr} [{value}] of node [{el.get('name')}] must not be negative",
                hint=f"{attr} is {'minutes' if attr == 'retry-interval' else 'a count'}, 0 or more",
            )
        return value

    retry_max = number("retry-max", DEFAULT_RETRY_MAX)
    retry_interval = number("retry-interval", DEFAULT_RETRY_INTERVAL)
    raw_policy = el.get("retry-policy")
    policy = RetryPolicy.PERIODIC
    if raw_policy is not None and raw_policy.strip():
        text = resolver.text(raw_policy, where(doc, el, "@retry-policy")).strip().lower()
        try:
            policy = RetryPolicy(text)
        except ValueError:
            raise where(doc, el, "@retry-policy").error(
                BAD_VALUE,
                f"retry-policy [{raw_policy}] of node [{el.get('name')}] is not periodic or "
                "exponential",
                hint="periodic waits retry-interval each time; exponential doubles it",
            ) from None
    return retry_max, retry_interval, policy


# --------------------------------------------------------------------------- DAG form


def _decode_dag(doc: XmlDocument, resolver: Resolver) -> WorkflowApp:
    root = doc.root
    if doc.namespace != DAG_NAMESPACE:  # pragma: no cover - registry maps dag-app here only
        raise SpecError("E0701", f"XML schema error, {doc.file}, unexpected namespace")
    name = resolver.text(root.get("name", ""), where(doc, root, "dag-app/@name")).strip()
    defaults, required = split_parameters(doc)
    max_parallel = 0
    raw = root.get("max-parallel")
    if raw is not None and raw.strip():
        max_parallel = resolver.integer(raw, where(doc, root, "dag-app/@max-parallel"))
        if max_parallel < 0:
            raise where(doc, root, "dag-app/@max-parallel").error(
                BAD_VALUE,
                f"max-parallel [{max_parallel}] must not be negative",
                hint="0 (or no attribute) means the engine's worker limit",
            )
    nodes: list[Node] = []
    for job in xmlsafe.children(root, "job"):
        jname = job.get("name", "")
        depends: list[str] = []
        body: Element | None = None
        for c in xmlsafe.children(job):
            if xmlsafe.local_name(c) == "depends":
                dep = xmlsafe.text(c)
                if dep not in depends:
                    depends.append(dep)
            else:
                body = c
        assert body is not None  # the schema requires one action
        retry_max, retry_interval, retry_policy = _retries(doc, job, resolver)
        nodes.append(
            Node(
                jname,
                NodeType.ACTION,
                action=_action(doc, job, body, jname),
                depends=tuple(depends),
                retry_max=retry_max,
                retry_interval=retry_interval,
                retry_policy=retry_policy,
                line=job.sourceline,
            )
        )
    return WorkflowApp(
        name=name,
        form=WorkflowForm.DAG,
        nodes=tuple(nodes),
        max_parallel=max_parallel,
        parameters=defaults,
        namespace=doc.namespace,
        source=doc.file,
        required_parameters=required,
    )

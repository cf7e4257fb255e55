"""The EL of a workflow's nodes, checked when the workflow is loaded with its configuration.

Oozie evaluates a node's EL when the node runs, so the decoder stores it as written. The
engine renders (``bundletui.engine.wf_resolve``, ``WorkflowElEnv``): a shell action's exec, arguments,
env-vars, configuration values, ``<prepare>`` paths and the ``<global>`` configuration merged
into it; an fs action's paths, move targets and chmod permissions; a
sub-workflow's app-path and configuration values (``<global>``'s merged in, as for a shell
action); decision predicates; kill messages. What
those expressions can see is known at submit, apart from the nodes' outcomes: the variables
are ``KB``…``PB``, the Hadoop counter names and the conf's properties whose names are Java
identifiers (the conf a workflow runs with is the one it was loaded with); the functions are the
basic ones, ``wf:`` and ``fs:``. So an expression that does not parse, calls a function that
does not exist (or with a wrong number of arguments) or names a variable that nothing defines
fails every time its node runs: the load refuses it instead, with E1004 (as every EL error),
the file, the node's line and a fix.

Names and argument counts are checked: argument types and the values of ``wf:`` functions
are the run's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import cast

from bundletui.errors import SpecError
from bundletui.model.apps import (
    Conf,
    FsAction,
    Node,
    NodeType,
    ShellAction,
    SubWorkflowAction,
    WorkflowApp,
    WorkflowForm,
)
from bundletui.spec.el import (
    BASIC_CONSTANTS,
    BASIC_FUNCTION_NAMES,
    FS_FUNCTION_NAMES,
    WF_CONSTANTS,
    WF_FUNCTION_NAMES,
    ELError,
    WorkflowELState,
    basic_functions,
    fs_functions,
    property_variables,
    wf_functions,
)
from bundletui.spec.el.coerce import el_signatures, wrong_count
from bundletui.spec.el.evaluator import (
    compile_template,
    did_you_mean,
    dotted_name,
    dotted_variable_hint,
    reachable,
)
from bundletui.spec.el.nodes import Access, Call, ExprPart, Variable
from bundletui.spec.el.nodes import Node as ELNode
from bundletui.spec.el.parser import parse_template

RUNTIME_FUNCTIONS: frozenset[str] = BASIC_FUNCTION_NAMES | WF_FUNCTION_NAMES | FS_FUNCTION_NAMES
"""Every function a workflow node's EL can call (the engine's ``workflow_context``)."""


# building the tables only makes closures: neither the clock nor the state is read here
RUNTIME_SIGNATURES: dict[str, tuple[str, ...]] = el_signatures(
    {
        **basic_functions(lambda: datetime.min),
        **wf_functions(cast(WorkflowELState, None)),
        **fs_functions(),
    }
)
"""The parameter types of the run-time functions, for the argument count a call must give."""


def _wrong_count(name: str, count: int) -> bool:
    signature = RUNTIME_SIGNATURES.get(name)
    return signature is not None and len(signature) != count


def runtime_variables(conf: Mapping[str, str]) -> frozenset[str]:
    """Every variable a workflow node's EL can read when the workflow runs with ``conf``."""
    return frozenset({*BASIC_CONSTANTS, *WF_CONSTANTS, *property_variables(conf)})


def check_workflow_el(
    app: WorkflowApp, conf: Mapping[str, str], *, variables_known: bool = True
) -> None:
    """Raise a :class:`SpecError` (E1004) for the first node expression that cannot work.
    Without the run's values (``validate`` without ``--config``) any variable may still come:
    only syntax, function names and argument counts are checked then."""
    variables: frozenset[str] | None = None  # built at the first expression: most have none
    for node in app.nodes:
        for field, text in node_templates(node, app):
            if "${" not in text:
                continue
            if variables is None and variables_known:
                variables = runtime_variables(conf)
            problem = template_problem(text, variables)
            if problem is not None:
                raise _placed(app, node, field, problem)


def node_templates(node: Node, app: WorkflowApp | None = None) -> Iterator[tuple[str, str]]:
    """``(field, text)`` of every template the engine renders for ``node``, in document order
    (with ``app``, the ``<global>`` configuration a shell or sub-workflow action is rendered
    with too)."""
    action = node.action
    if isinstance(action, ShellAction):
        for op in action.prepare:
            yield f"<prepare> <{op.op}> path", op.path
        yield "<exec>", action.exec
        for i, arg in enumerate(action.arguments, 1):
            yield f"<argument> {i}", arg
        for env in action.env_vars:
            yield "<env-var>", env
        yield from _job_xml(action.job_xml, app)
        yield from _configuration(action.configuration, app)
    elif isinstance(action, FsAction):
        yield from _job_xml(action.job_xml, app)
        for op in action.ops:
            yield f"<{op.op}> path", op.path
            if op.target:
                yield f"<{op.op}> target", op.target
            if op.permissions:
                yield f"<{op.op}> permissions", op.permissions
    elif isinstance(action, SubWorkflowAction):
        yield "<app-path>", action.app_path
        yield from _configuration(action.configuration, app)
    if node.type is NodeType.DECISION:
        for predicate, to in node.cases:
            yield f'<case to="{to}">', predicate
    elif node.type is NodeType.KILL:
        yield "<message>", node.message


def _job_xml(own: tuple[str, ...], app: WorkflowApp | None) -> Iterator[tuple[str, str]]:
    """The ``<job-xml>`` paths the engine renders when the action starts: ``<global>``'s (with
    ``app``), then the action's."""
    for path in app.global_job_xml if app is not None else ():
        yield "<global> <job-xml>", path
    for path in own:
        yield "<job-xml>", path


def _configuration(own: Conf, app: WorkflowApp | None) -> Iterator[tuple[str, str]]:
    """An action's configuration as the engine renders it: the ``<global>`` properties the
    action does not set (with ``app``), then its own."""
    names = {name for name, _value in own}
    for name, value in app.global_conf if app is not None else ():
        if name not in names:
            yield f"<global> property [{name}]", value
    for name, value in own:
        yield f"property [{name}]", value


def template_problem(text: str, variables: frozenset[str] | None) -> ELError | None:
    """Why ``text`` can never be rendered with ``variables`` and the run-time functions: a
    syntax error, an unknown function or an undefined variable (the first one), else None.
    ``variables`` None: any variable may be defined (not checked).

    The names come from the compiled template (cached: the engine renders this text with it
    later); only a template with a problem is walked again, to say where and why."""
    try:
        compiled = compile_template(text)
    except ELError as error:  # a syntax error
        return error
    if (
        compiled.functions <= RUNTIME_FUNCTIONS
        and (variables is None or compiled.variables <= variables)
        and not any(_wrong_count(name, count) for name, count in compiled.calls)
    ):
        return None
    parts = parse_template(text)
    for part in parts:
        if not isinstance(part, ExprPart):
            continue
        dotted: dict[int, str] = {}  # id of a chain's root variable -> its a.b.c spelling
        for n in reachable(part.node):  # parents first: the longest a.b.c of a chain is seen first
            if isinstance(n, Access):
                spelled = dotted_name(n)
                if spelled is not None:
                    dotted.setdefault(id(_root(n)), spelled)
            elif isinstance(n, Call) and n.name not in RUNTIME_FUNCTIONS:
                return ELError(
                    f"unknown function [{n.name}]",
                    template=text,
                    expression=part.source,
                    offset=n.pos,
                    hint=_function_hint(n.name),
                )
            elif isinstance(n, Call) and _wrong_count(n.name, len(n.args)):
                message, hint = wrong_count(n.name, RUNTIME_SIGNATURES[n.name], len(n.args))
                return ELError(
                    message, template=text, expression=part.source, offset=n.pos, hint=hint
                )
            elif isinstance(n, Variable) and variables is not None and n.name not in variables:
                return ELError(
                    f"unresolved variable [{n.name}]",
                    template=text,
                    expression=part.source,
                    offset=n.pos,
                    hint=_variable_hint(n.name, variables, dotted.get(id(n))),
                )
    return None


def _root(node: Access) -> ELNode:
    target = node.target
    while isinstance(target, Access):
        target = target.target
    return target


def _function_hint(name: str) -> str:
    close = did_you_mean(name, RUNTIME_FUNCTIONS)
    if close is not None:
        return f"did you mean {close}?"
    prefix = name.partition(":")[0] + ":" if ":" in name else ""
    if prefix in ("wf:", "fs:"):
        known = sorted(n for n in RUNTIME_FUNCTIONS if n.startswith(prefix))
        return f"a workflow has no {name}; its {prefix} functions are " + ", ".join(known)
    if prefix in ("coord:", "bundle:"):
        return (
            f"a workflow has no {prefix} functions (only the basic, wf: and fs: ones): resolve "
            "the value in the coordinator action's <configuration> and pass it in as a property"
        )
    if prefix:
        return f"a workflow has no {prefix} functions, only the basic, wf: and fs: ones"
    return "a workflow has the basic functions " + ", ".join(sorted(BASIC_FUNCTION_NAMES))


def _variable_hint(name: str, variables: frozenset[str], dotted: str | None) -> str:
    if dotted is not None:
        return dotted_variable_hint(name, dotted, readers=("wf:conf",))
    hint = (
        f"define it in the job's properties (job.properties or -D {name}=...) or give it a "
        "default in the workflow's <parameters>"
    )
    close = did_you_mean(name, variables)
    return f"{hint} (did you mean {close}?)" if close else hint


def _placed(app: WorkflowApp, node: Node, field: str, problem: ELError) -> SpecError:
    what = "job" if app.form is WorkflowForm.DAG else f"{node.type} node"
    return SpecError(
        problem.code,
        f"{problem.message}, in {field} of {what} [{node.name}]",
        hint=problem.hint,
        file=app.source or None,
        line=node.line,
    )

"""Oozie's expression language: a JSP 2.0 EL evaluator with phased evaluation.

A *template* is text with ``${...}`` parts (``\\${`` is a literal ``${``). A template that is
exactly one ``${...}`` evaluates to a native value (int, float, bool, str, None, dict, list);
anything else to a string (JSP coercion, null -> ``""``). Templates are compiled once (cached
by text) to closures.

Functions are plain callables in ``ELContext.functions`` keyed ``"ns:name"`` or ``"name"``. A
function that cannot be resolved in the current phase raises :class:`Deferred`; the whole
``${...}`` holding it is then echoed verbatim, to be evaluated by a later phase. Raise a
:class:`bundletui.errors.BundletuiError` (e.g. ``SpecError("E1010", ...)``) for a user error: it
passes through unchanged. Any other exception becomes E1004 naming the function. Wrap a
function with :func:`el_function` to get JSP argument coercion and an arity check. Functions
get no hidden "current evaluator": bind per-job or per-action state with closures when building
the table (a dict of a few dozen closures costs microseconds).

Example (a coordinator phase registering its own functions)::

    from bundletui.spec.el import (
        BASIC_CONSTANTS, Deferred, ELContext, basic_functions, el_function, evaluate, render,
    )

    @el_function(int)
    def current(n: int) -> str:
        return instance_uri(n)          # action-creation phase: resolvable

    @el_function(int)
    def latest(n: int) -> str:
        raise Deferred("latest is resolved at input check")

    ctx = ELContext(
        variables={**BASIC_CONSTANTS, **property_variables(job_properties)},
        functions={**basic_functions(now=clock.now),
                   "coord:current": current, "coord:latest": latest},
        deferred_variables=frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"}),
    )
    render("/data/${YEAR}/${coord:current(-1)}", ctx)   # '/data/${YEAR}/2009-01-01T00:00Z'
    evaluate("${coord:latest(0)}", ctx)                  # '${coord:latest(0)}' (echoed)
    evaluate("${1 + 2}", ctx)                            # 3

Errors are :class:`ELError` (a ``SpecError``, code E1004) naming the expression and column.
"""

from __future__ import annotations

from bundletui.spec.el.basic import BASIC_CONSTANTS, BASIC_FUNCTION_NAMES, basic_functions
from bundletui.spec.el.coerce import (
    el_function,
    to_boolean,
    to_double,
    to_long,
)
from bundletui.spec.el.coerce import (
    to_string as to_el_string,
)
from bundletui.spec.el.evaluator import (
    ELContext,
    Resolution,
    Template,
    compile_template,
    evaluate,
    has_el,
    property_variables,
    render,
)
from bundletui.spec.el.exceptions import Deferred, ELError
from bundletui.spec.el.wf import (
    FS_FUNCTION_NAMES,
    WF_CONSTANTS,
    WF_FUNCTION_NAMES,
    WorkflowELState,
    fs_functions,
    local_path,
    wf_functions,
)

__all__ = [
    "BASIC_CONSTANTS",
    "BASIC_FUNCTION_NAMES",
    "FS_FUNCTION_NAMES",
    "WF_CONSTANTS",
    "WF_FUNCTION_NAMES",
    "Deferred",
    "ELContext",
    "ELError",
    "Resolution",
    "Template",
    "WorkflowELState",
    "basic_functions",
    "compile_template",
    "el_function",
    "evaluate",
    "fs_functions",
    "has_el",
    "local_path",
    "property_variables",
    "render",
    "to_boolean",
    "to_double",
    "to_el_string",
    "to_long",
    "wf_functions",
]

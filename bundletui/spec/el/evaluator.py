"""Compilation of parsed templates to closures, the evaluation context, and phased echo.

Each node becomes a Python closure ``fn(ctx) -> value`` once; a template is cached by its text
(LRU), so evaluating a conf value for the 10,000th action is a dict lookup plus a few closure
calls. No ``eval``/``exec``; the only attribute-like access is ``a.b`` on mappings and lists.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from bundletui.spec.el import coerce
from bundletui.spec.el.exceptions import (
    ArgumentError,
    CoercionError,
    Deferred,
    ELError,
    EvalFailure,
    ParseFailure,
)
from bundletui.spec.el.nodes import (
    Access,
    Binary,
    Call,
    Conditional,
    Node,
    TextPart,
    Unary,
    Variable,
    children,
    depth,
)
from bundletui.spec.el.nodes import Literal as LiteralNode
from bundletui.spec.el.parser import expression_extent, parse_template

UnknownVariableMode = Literal["error", "empty", "echo"]
Compiled = Callable[["ELContext"], Any]

_JAVA_IDENTIFIER = re.compile(r"[A-Za-z_][0-9A-Za-z_]*")


@dataclass(frozen=True, slots=True)
class ELContext:
    """What an expression can see: variables, functions, and this phase's deferral rules.

    ``functions`` keys are ``"coord:current"``, ``"wf:id"`` or bare ``"concat"``.
    ``deferred_variables`` are echoed back as ``${NAME}`` (e.g. YEAR..MINUTE at submit time).
    ``on_unknown_variable``: ``"error"`` (E1004), ``"empty"`` (null) or ``"echo"`` (keep ``${..}``).
    """

    variables: Mapping[str, Any] = field(default_factory=dict)
    functions: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    deferred_variables: frozenset[str] = frozenset()
    on_unknown_variable: UnknownVariableMode = "error"

    def __post_init__(self) -> None:
        if self.on_unknown_variable not in ("error", "empty", "echo"):
            raise ValueError(
                f"on_unknown_variable must be error|empty|echo, not {self.on_unknown_variable!r}"
            )

    def extend(
        self,
        *,
        variables: Mapping[str, Any] | None = None,
        functions: Mapping[str, Callable[..., Any]] | None = None,
        deferred_variables: frozenset[str] | None = None,
        on_unknown_variable: UnknownVariableMode | None = None,
    ) -> ELContext:
        """A new context with extra variables/functions merged over these (later wins)."""
        return ELContext(
            {**self.variables, **variables} if variables else self.variables,
            {**self.functions, **functions} if functions else self.functions,
            self.deferred_variables if deferred_variables is None else deferred_variables,
            self.on_unknown_variable if on_unknown_variable is None else on_unknown_variable,
        )


class Resolution(NamedTuple):
    """A template's value and whether every ``${...}`` was resolved (False: some were echoed)."""

    value: Any
    complete: bool


class Template:
    """A compiled template. Build with :func:`compile_template` (cached), not directly."""

    __slots__ = (
        "_parts",
        "_single",
        "calls",
        "functions",
        "is_literal",
        "is_single_expression",
        "text",
        "variables",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            parts = parse_template(text)
        except ParseFailure as failure:
            raise syntax_error(text, failure) from None
        except RecursionError:  # parentheses nested past Python's stack
            raise _too_deep(text) from None
        if any(not isinstance(p, TextPart) and depth(p.node) > MAX_DEPTH for p in parts):
            raise _too_deep(text)  # compiling and evaluating it would recurse as deep
        compiled: list[tuple[str, str, Compiled | None]] = []
        variables: set[str] = set()
        functions: set[str] = set()
        calls: set[tuple[str, int]] = set()
        for part in parts:
            if isinstance(part, TextPart):
                compiled.append((part.text, part.text.replace("${", "\\${"), None))
            else:
                compiled.append((part.source, part.source, _compile(part.node)))
                for node in reachable(part.node):
                    if isinstance(node, Variable):
                        variables.add(node.name)
                    elif isinstance(node, Call):
                        functions.add(node.name)
                        calls.add((node.name, len(node.args)))
        self._parts = tuple(compiled)
        self.is_literal = all(fn is None for _, _, fn in compiled)
        self.is_single_expression = len(compiled) == 1 and compiled[0][2] is not None
        self._single = compiled[0] if self.is_single_expression else None
        # the names evaluation can reach: not those of a branch that a constant condition
        # rules out (``${false && x}`` never reads x), as the evaluation is lazy
        self.variables: frozenset[str] = frozenset(variables)
        self.functions: frozenset[str] = frozenset(functions)
        self.calls: frozenset[tuple[str, int]] = frozenset(calls)
        """``(function, argument count)`` of each call evaluation can reach."""

    def __repr__(self) -> str:
        return f"Template({self.text!r})"

    def evaluate(self, ctx: ELContext) -> Any:
        """The native value for a lone ``${...}``, else the string; deferred parts echoed."""
        return self.resolve(ctx).value

    def render(self, ctx: ELContext, *, escape_literals: bool = False) -> str:
        """Always a string (JSP coercion: null is ``""``).

        ``escape_literals=True`` writes literal ``${`` text back as ``\\${`` so the output can be
        evaluated again by a later phase without the escape being lost.
        """
        value: str = self.resolve(ctx, as_string=True, escape_literals=escape_literals).value
        return value

    def resolve(
        self, ctx: ELContext, *, as_string: bool = False, escape_literals: bool = False
    ) -> Resolution:
        """Evaluate, reporting whether any part was deferred (echoed)."""
        single = self._single
        if single is not None:
            source, _, fn = single
            assert fn is not None
            try:
                value = fn(ctx)
            except Deferred:
                return Resolution(source, False)
            except EvalFailure as failure:
                raise self._error(failure, source) from None
            return Resolution(coerce.to_string(value) if as_string else value, True)
        out: list[str] = []
        complete = True
        for text, escaped, fn in self._parts:
            if fn is None:
                out.append(escaped if escape_literals else text)
                continue
            try:
                value = fn(ctx)
            except Deferred:
                out.append(text)
                complete = False
                continue
            except EvalFailure as failure:
                raise self._error(failure, text) from None
            out.append(value if type(value) is str else coerce.to_string(value))
        return Resolution("".join(out), complete)

    def _error(self, failure: EvalFailure, source: str) -> ELError:
        return ELError(
            failure.message,
            template=self.text,
            expression=source,
            offset=failure.pos,
            hint=failure.hint,
        )


MAX_DEPTH = 200  # operators and calls nested in one expression; real ones nest a few levels


def _too_deep(text: str) -> ELError:
    return ELError(
        f"expression nested more than {MAX_DEPTH} levels deep",
        template=text,
        expression=text[:80] + ("…" if len(text) > 80 else ""),
        offset=0,
        hint="split it: compute parts in properties and combine them",
    )


def syntax_error(text: str, failure: ParseFailure) -> ELError:
    """The E1004 error for a template ``text`` that :func:`parse_template` refused."""
    return ELError(
        f"syntax error: {failure.message}",
        template=text,
        expression=expression_extent(text, failure.start),
        offset=failure.pos,
        hint=failure.hint
        or "see the EL syntax: ${name}, ${ns:fn(args)}, operators, 'quoted strings'",
    )


def did_you_mean(name: str, names: Iterable[str]) -> str | None:
    """The name of ``names`` closest to a misspelt ``name``, if one is close enough."""
    close = difflib.get_close_matches(name, list(names), n=1)
    return close[0] if close else None


def dotted_variable_hint(
    name: str, dotted: str, readers: tuple[str, ...] = ("wf:conf", "coord:conf")
) -> str:
    """Why ``${a.b}`` does not read the property ``a.b`` (it reads ``b`` of a variable ``a``)."""
    read = " or ".join(f"{fn}('{dotted}')" for fn in readers)
    return (
        f"'{dotted}' reads property '{dotted[len(name) + 1 :]}' of a variable '{name}'; "
        f"a property whose name has dots is read with {read}"
    )


def dotted_name(node: Node) -> str | None:
    """``a.b.c`` for an access chain of identifier keys rooted at a variable, else None."""
    names: list[str] = []
    while isinstance(node, Access):
        key = node.key
        if not (isinstance(key, LiteralNode) and isinstance(key.value, str)):
            return None
        names.append(key.value)
        node = node.target
    if not isinstance(node, Variable) or not names:
        return None
    return ".".join([node.name, *reversed(names)])


@functools.lru_cache(maxsize=8192)
def compile_template(text: str) -> Template:
    """Parse and compile ``text`` once; raises :class:`ELError` (E1004) on a syntax error."""
    return Template(text)


def evaluate(text: str, ctx: ELContext) -> Any:
    """Evaluate a template: native value for a lone ``${...}``, else a string."""
    if "${" not in text:
        return text
    return compile_template(text).resolve(ctx).value


def render(text: str, ctx: ELContext, *, escape_literals: bool = False) -> str:
    """Evaluate a template to a string."""
    if "${" not in text:
        return text
    return compile_template(text).render(ctx, escape_literals=escape_literals)


def has_el(text: str) -> bool:
    """True if ``text`` holds at least one ``${...}`` (escaped ``\\${`` does not count)."""
    return "${" in text and not compile_template(text).is_literal


def property_variables(properties: Mapping[str, Any]) -> dict[str, Any]:
    """The properties usable as ``${NAME}``: names that are Java identifiers (oozie.md §0.4)."""
    return {k: v for k, v in properties.items() if _is_java_identifier(k)}


@functools.lru_cache(maxsize=4096)
def _is_java_identifier(name: str) -> bool:
    """Cached: every launch builds a context over the same few property names."""
    return _JAVA_IDENTIFIER.fullmatch(name) is not None


# -- compilation ------------------------------------------------------------------------------


def _compile(node: Node, dotted: str | None = None) -> Compiled:
    """``dotted`` is the ``a.b.c`` spelling of an access chain, for the unknown-variable hint."""
    if isinstance(node, LiteralNode):
        return _compile_literal(node.value)
    if isinstance(node, Variable):
        return _compile_variable(node, dotted)
    if isinstance(node, Call):
        return _compile_call(node)
    if isinstance(node, Access):
        return _compile_access(node, dotted)
    if isinstance(node, Unary):
        return _compile_unary(node)
    if isinstance(node, Binary):
        return _compile_binary(node)
    return _compile_conditional(node)


def _compile_literal(value: Any) -> Compiled:
    def literal(ctx: ELContext) -> Any:
        return value

    return literal


def _unknown_variable(name: str, pos: int, ctx: ELContext, dotted: str | None) -> Any:
    mode = ctx.on_unknown_variable
    if mode == "empty":
        return None
    if mode == "echo":
        raise Deferred(f"unknown variable {name}")
    if dotted is not None:
        hint = dotted_variable_hint(name, dotted)
    else:
        hint = f"define it in job.properties or with -D {name}=..."
        close = did_you_mean(name, ctx.variables)
        if close:
            hint += f" (did you mean {close}?)"
    raise EvalFailure(f"unresolved variable [{name}]", pos, hint=hint)


def _compile_variable(node: Variable, dotted: str | None = None) -> Compiled:
    name, pos = node.name, node.pos

    def variable(ctx: ELContext) -> Any:
        if name in ctx.deferred_variables:
            raise Deferred(name)
        variables = ctx.variables
        if name in variables:
            return variables[name]
        return _unknown_variable(name, pos, ctx, dotted)

    return variable


def _compile_call(node: Call) -> Compiled:
    name, pos = node.name, node.pos
    args = tuple(_compile(a) for a in node.args)

    def lookup(ctx: ELContext) -> Callable[..., Any]:
        fn = ctx.functions.get(name)
        if fn is None:
            # a table that defers some functions to a later phase names them too (``names``)
            names = getattr(ctx.functions, "names", ctx.functions.keys)()
            close = did_you_mean(name, names)
            hint = f"did you mean {close}?" if close else "no such function is available here"
            raise EvalFailure(f"unknown function [{name}]", pos, hint=hint)
        return fn

    def failed(exc: Exception) -> EvalFailure:
        if isinstance(exc, CoercionError | ArgumentError):
            return EvalFailure(f"function [{name}] {exc}", pos)
        if isinstance(exc, OverflowError):  # "Python int too large to convert to C int"
            return EvalFailure(
                f"function [{name}] failed: a number or a time out of range",
                pos,
                hint="numbers are Java ints (up to 2147483647) and times stay within the "
                "years 1 to 9999",
            )
        detail = str(exc) or type(exc).__name__
        return EvalFailure(f"function [{name}] failed: {detail}", pos)

    if not args:

        def call0(ctx: ELContext) -> Any:
            fn = lookup(ctx)
            try:
                return fn()
            except coerce.PASS_THROUGH:
                raise
            except Exception as exc:
                raise failed(exc) from None

        return call0

    if len(args) == 1:
        (a0,) = args

        def call1(ctx: ELContext) -> Any:
            fn = lookup(ctx)
            v0 = a0(ctx)
            try:
                return fn(v0)
            except coerce.PASS_THROUGH:
                raise
            except Exception as exc:
                raise failed(exc) from None

        return call1

    def calln(ctx: ELContext) -> Any:
        fn = lookup(ctx)
        values = [a(ctx) for a in args]
        try:
            return fn(*values)
        except coerce.PASS_THROUGH:
            raise
        except Exception as exc:
            raise failed(exc) from None

    return calln


def _compile_access(node: Access, dotted: str | None = None) -> Compiled:
    target = _compile(node.target, dotted or dotted_name(node))
    pos = node.pos
    if isinstance(node.key, LiteralNode):
        key_value = node.key.value

        def access_const(ctx: ELContext) -> Any:
            base = target(ctx)
            if type(base) is dict:
                return base.get(key_value)
            try:
                return coerce.get_item(base, key_value)
            except CoercionError as exc:
                raise EvalFailure(str(exc), pos) from None

        return access_const

    key = _compile(node.key)

    def access(ctx: ELContext) -> Any:
        base = target(ctx)
        k = key(ctx)
        try:
            return coerce.get_item(base, k)
        except CoercionError as exc:
            raise EvalFailure(str(exc), pos) from None

    return access


def _compile_unary(node: Unary) -> Compiled:
    operand = _compile(node.operand)
    pos = node.pos
    if node.op == "empty":

        def empty(ctx: ELContext) -> Any:
            return coerce.is_empty(operand(ctx))

        return empty

    op: Callable[[Any], Any] = coerce.negate if node.op == "-" else _not

    def unary(ctx: ELContext) -> Any:
        value = operand(ctx)
        try:
            return op(value)
        except CoercionError as exc:
            raise EvalFailure(str(exc), pos) from None

    return unary


def _not(value: Any) -> bool:
    return not coerce.to_boolean(value)


_BINARY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": coerce.add,
    "-": coerce.subtract,
    "*": coerce.multiply,
    "/": coerce.divide,
    "%": coerce.modulo,
    "<": coerce.less,
    ">": coerce.greater,
    "<=": coerce.less_equal,
    ">=": coerce.greater_equal,
    "==": coerce.equals,
    "!=": coerce.not_equals,
}


def _boolean(value: Any, pos: int) -> bool:
    try:
        return coerce.to_boolean(value)
    except CoercionError as exc:
        raise EvalFailure(str(exc), pos) from None


def _compile_binary(node: Binary) -> Compiled:
    left = _compile(node.left)
    right = _compile(node.right)
    pos = node.pos
    if node.op == "&&":

        def and_(ctx: ELContext) -> Any:
            return _boolean(left(ctx), pos) and _boolean(right(ctx), pos)

        return and_

    if node.op == "||":

        def or_(ctx: ELContext) -> Any:
            return _boolean(left(ctx), pos) or _boolean(right(ctx), pos)

        return or_

    op = _BINARY_OPS[node.op]

    def binary(ctx: ELContext) -> Any:
        a = left(ctx)
        b = right(ctx)
        try:
            return op(a, b)
        except CoercionError as exc:
            raise EvalFailure(f"'{node.op}': {exc}", pos, hint=exc.hint) from None

    return binary


def _compile_conditional(node: Conditional) -> Compiled:
    condition = _compile(node.condition)
    then = _compile(node.then)
    otherwise = _compile(node.otherwise)
    pos = node.pos

    def conditional(ctx: ELContext) -> Any:
        if _boolean(condition(ctx), pos):
            return then(ctx)
        return otherwise(ctx)

    return conditional


# -- reachability -----------------------------------------------------------------------------


class _Unknown:
    """The value of a sub-expression that is not a constant (it reads the context)."""


_UNKNOWN = _Unknown()


def reachable(node: Node) -> list[Node]:
    """The nodes of a tree that evaluating it can reach, parents before children, in source
    order: :func:`~bundletui.spec.el.nodes.walk` without the operands that a constant
    condition rules out. Evaluation is lazy (``&&``/``||`` short-circuit, ``?:`` evaluates
    one branch), so ``${false && x}``, ``${true || x}`` and ``${false ? x : 'y'}`` never read
    ``x``. A condition counts as constant when it is built from literals only, and is folded
    with the evaluator's own operations; one whose folding fails (a coercion error) is not
    constant, and both of its branches count."""
    folded: dict[int, Any] = {}
    out: list[Node] = []
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(_live_children(current, folded)))
    return out


def _live_children(node: Node, folded: dict[int, Any]) -> tuple[Node, ...]:
    if isinstance(node, Binary) and node.op in ("&&", "||"):
        left = _truth(node.left, folded)
        if left is (node.op == "||"):  # true || …, false && …: the right side never runs
            return (node.left,)
    elif isinstance(node, Conditional):
        condition = _truth(node.condition, folded)
        if condition is not None:
            return (node.condition, node.then if condition else node.otherwise)
    return children(node)


def _truth(node: Node, folded: dict[int, Any]) -> bool | None:
    """A constant condition's truth (coerced as the evaluator does), else None."""
    value = _fold(node, folded)
    if value is _UNKNOWN:
        return None
    try:
        return coerce.to_boolean(value)
    except CoercionError:
        return None


def _fold(node: Node, folded: dict[int, Any]) -> Any:
    """The value of a sub-expression made of literals only, else ``_UNKNOWN``."""
    key = id(node)
    if key not in folded:
        try:
            folded[key] = _fold_uncached(node, folded)
        except Exception:  # whatever fails to fold is left to the run: not a constant
            folded[key] = _UNKNOWN
    return folded[key]


def _fold_uncached(node: Node, folded: dict[int, Any]) -> Any:
    if isinstance(node, LiteralNode):
        return node.value
    if isinstance(node, Unary):
        operand = _fold(node.operand, folded)
        if operand is _UNKNOWN:
            return _UNKNOWN
        if node.op == "empty":
            return coerce.is_empty(operand)
        return coerce.negate(operand) if node.op == "-" else not coerce.to_boolean(operand)
    if isinstance(node, Binary):
        if node.op in ("&&", "||"):
            left = _truth(node.left, folded)
            if left is None:
                return _UNKNOWN
            if left is (node.op == "||"):
                return left
            right = _truth(node.right, folded)
            return _UNKNOWN if right is None else right
        a, b = _fold(node.left, folded), _fold(node.right, folded)
        if a is _UNKNOWN or b is _UNKNOWN:
            return _UNKNOWN
        return _BINARY_OPS[node.op](a, b)
    if isinstance(node, Conditional):
        condition = _truth(node.condition, folded)
        if condition is None:
            return _UNKNOWN
        return _fold(node.then if condition else node.otherwise, folded)
    return _UNKNOWN  # variables, calls and accesses read the context

"""The syntax tree of one ``${...}`` expression, and of a template.

Positions (``pos``) are 0-based indexes into the whole template text, so an error can point at
the exact column of the attribute or element the user wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Literal:
    value: Any
    pos: int


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    pos: int


@dataclass(frozen=True, slots=True)
class Call:
    """A function call; ``name`` is the lookup key: ``"coord:current"`` or ``"concat"``."""

    name: str
    args: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True)
class Access:
    """``target.key`` (key is a string Literal) or ``target[key]``."""

    target: Node
    key: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "-", "!", "empty"
    operand: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # canonical: + - * / % < > <= >= == != && ||
    left: Node
    right: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Conditional:
    condition: Node
    then: Node
    otherwise: Node
    pos: int


Node = Literal | Variable | Call | Access | Unary | Binary | Conditional


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str


@dataclass(frozen=True, slots=True)
class ExprPart:
    """One ``${...}``: ``source`` is its exact text (echoed verbatim when deferred)."""

    source: str
    node: Node
    start: int


Part = TextPart | ExprPart


def depth(node: Node) -> int:
    """How deeply the tree nests (1 for a leaf), counted without recursion."""
    deepest = 0
    stack: list[tuple[Node, int]] = [(node, 1)]
    while stack:
        current, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((child, d + 1) for child in children(current))
    return deepest


def children(node: Node) -> tuple[Node, ...]:
    """A node's operands, in source order."""
    if isinstance(node, Call):
        return tuple(node.args)
    if isinstance(node, Access):
        return (node.target, node.key)
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Conditional):
        return (node.condition, node.then, node.otherwise)
    return ()


def walk(node: Node) -> list[Node]:
    """All nodes of a tree, parents before children."""
    out: list[Node] = []
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(children(current)))
    return out


def dump(node: Node) -> str:
    """A fully parenthesised rendering, for tests and debugging of precedence."""
    if isinstance(node, Literal):
        value = node.value
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return repr(value)
    if isinstance(node, Variable):
        return node.name
    if isinstance(node, Call):
        return f"{node.name}({', '.join(dump(a) for a in node.args)})"
    if isinstance(node, Access):
        return f"{dump(node.target)}[{dump(node.key)}]"
    if isinstance(node, Unary):
        sep = " " if node.op == "empty" else ""
        return f"({node.op}{sep}{dump(node.operand)})"
    if isinstance(node, Binary):
        return f"({dump(node.left)} {node.op} {dump(node.right)})"
    return f"({dump(node.condition)} ? {dump(node.then)} : {dump(node.otherwise)})"

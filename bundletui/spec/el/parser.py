"""Template splitting and a Pratt parser for JSP 2.0 EL expressions.

Precedence, lowest first (JSP 2.0 §2.9): ``?:`` < ``|| or`` < ``&& and`` < ``== != eq ne`` <
``< > <= >= lt gt le ge`` < ``+ -`` < ``* / div % mod`` < unary ``- ! not empty`` < ``. []``.
Binary operators are left-associative, the conditional right-associative.

``ns:fn(`` is a namespaced call only when written without spaces around the ``:``; that keeps
``c ? a : f(x)`` a conditional (JSP's own grammar is ambiguous there).
"""

from __future__ import annotations

from bundletui.spec.el.exceptions import ParseFailure
from bundletui.spec.el.lexer import END, IDENT, LIT, NUM, OP, STR, Token, tokenize
from bundletui.spec.el.nodes import (
    Access,
    Binary,
    Call,
    Conditional,
    ExprPart,
    Literal,
    Node,
    Part,
    TextPart,
    Unary,
    Variable,
)

_BINARY_POWER = {
    "||": 2,
    "&&": 3,
    "==": 4,
    "!=": 4,
    "<": 5,
    ">": 5,
    "<=": 5,
    ">=": 5,
    "+": 6,
    "-": 6,
    "*": 7,
    "/": 7,
    "%": 7,
}
_PREFIX = frozenset({"-", "!", "empty"})
_MAX_DEPTH = 200


def parse_template(text: str) -> list[Part]:
    """Split ``text`` into literal text and ``${...}`` parts (adjacent text merged).

    A backslash right before ``${`` escapes it: ``\\${x}`` is the literal text ``${x}``.
    """
    parts: list[Part] = []
    buffer: list[str] = []
    i = 0
    while True:
        j = text.find("${", i)
        if j < 0:
            buffer.append(text[i:])
            break
        if j > 0 and text[j - 1] == "\\":
            buffer.append(text[i : j - 1])
            buffer.append("${")
            i = j + 2
            continue
        buffer.append(text[i:j])
        try:
            tokens, end = tokenize(text, j + 2)
            node = _Parser(text, tokens, j).parse()
        except ParseFailure as failure:
            failure.start = j
            raise
        literal = "".join(buffer)
        if literal:
            parts.append(TextPart(literal))
        buffer = []
        parts.append(ExprPart(text[j:end], node, j))
        i = end
    literal = "".join(buffer)
    if literal or not parts:
        parts.append(TextPart(literal))
    return parts


def expression_extent(text: str, start: int) -> str:
    """Best-effort text of the ``${...}`` at ``start`` for error messages (up to the next ``}``)."""
    end = text.find("}", start)
    return text[start:] if end < 0 else text[start : end + 1]


class _Parser:
    def __init__(self, text: str, tokens: list[Token], start: int) -> None:
        self.text = text
        self.tokens = tokens
        self.start = start
        self.i = 0
        self.depth = 0

    # -- token helpers --
    def peek(self, ahead: int = 0) -> Token:
        index = min(self.i + ahead, len(self.tokens) - 1)
        return self.tokens[index]

    def advance(self) -> Token:
        token = self.tokens[self.i]
        if token.kind != END:
            self.i += 1
        return token

    def is_op(self, token: Token, value: str) -> bool:
        return token.kind == OP and token.value == value

    def expect_op(self, value: str, context: str) -> Token:
        token = self.peek()
        if not self.is_op(token, value):
            raise ParseFailure(f"expected '{value}' {context}, found {token.describe()}", token.pos)
        return self.advance()

    # -- grammar --
    def parse(self) -> Node:
        first = self.peek()
        if first.kind == END:
            raise ParseFailure("empty expression", self.start, hint="write a value inside ${...}")
        node = self.expression(0)
        last = self.peek()
        if last.kind != END:
            raise ParseFailure(
                f"unexpected {last.describe()}", last.pos, hint=self._hint_after(last)
            )
        return node

    def _hint_after(self, token: Token) -> str | None:
        if token.kind in (IDENT, NUM, STR, LIT):
            return "two values need an operator between them; to join strings use concat(a, b) or ${a}${b}"
        if self.is_op(token, ":"):
            return "a namespaced function is written without spaces: ns:fn(...)"
        return None

    def expression(self, min_power: int) -> Node:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise ParseFailure("expression nested too deeply", self.peek().pos)
        left = self.unary()
        while True:
            token = self.peek()
            if token.kind != OP:
                break
            power = _BINARY_POWER.get(token.value)
            if power is not None and power > min_power:
                self.advance()
                right = self.expression(power)
                left = Binary(token.value, left, right, token.pos)
                continue
            if token.value == "?" and min_power == 0:
                self.advance()
                then = self.expression(0)
                self.expect_op(":", "in a conditional 'a ? b : c'")
                otherwise = self.expression(0)
                left = Conditional(left, then, otherwise, token.pos)
            break
        self.depth -= 1
        return left

    def unary(self) -> Node:
        token = self.peek()
        if token.kind == OP and token.value in _PREFIX:
            self.advance()
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise ParseFailure("expression nested too deeply", token.pos)
            operand = self.unary()
            self.depth -= 1
            if token.value == "-" and isinstance(operand, Literal):
                value = operand.value
                if isinstance(value, int | float) and not isinstance(value, bool):
                    return Literal(-value, token.pos)
            return Unary(token.value, operand, token.pos)
        return self.postfix(self.primary())

    def postfix(self, node: Node) -> Node:
        while True:
            token = self.peek()
            if self.is_op(token, "."):
                self.advance()
                name = self.peek()
                if name.kind != IDENT:
                    raise ParseFailure(
                        f"expected a property name after '.', found {name.describe()}", name.pos
                    )
                self.advance()
                node = Access(node, Literal(name.value, name.pos), token.pos)
            elif self.is_op(token, "["):
                self.advance()
                key = self.expression(0)
                self.expect_op("]", "to close '['")
                node = Access(node, key, token.pos)
            else:
                return node

    def primary(self) -> Node:
        token = self.peek()
        if token.kind in (NUM, STR, LIT):
            self.advance()
            return Literal(token.value, token.pos)
        if self.is_op(token, "("):
            self.advance()
            inner = self.expression(0)
            self.expect_op(")", "to close '('")
            return inner
        if token.kind == IDENT:
            self.advance()
            nxt = self.peek()
            if self.is_op(nxt, "("):
                return self.call(token.value, token)
            if (
                self.is_op(nxt, ":")
                and nxt.pos == token.end
                and self.peek(1).kind == IDENT
                and self.peek(1).pos == nxt.end
                and self.is_op(self.peek(2), "(")
            ):
                self.advance()
                name = self.advance()
                return self.call(f"{token.value}:{name.value}", token)
            return Variable(token.value, token.pos)
        if token.kind == END:
            raise ParseFailure(
                "expected a value, found '}'", token.pos, hint="the expression is incomplete"
            )
        raise ParseFailure(f"expected a value, found {token.describe()}", token.pos)

    def call(self, name: str, token: Token) -> Node:
        self.expect_op("(", "to start the argument list")
        args: list[Node] = []
        if not self.is_op(self.peek(), ")"):
            while True:
                args.append(self.expression(0))
                if self.is_op(self.peek(), ","):
                    self.advance()
                    continue
                break
        self.expect_op(")", f"to close the arguments of {name}(")
        return Call(name, tuple(args), token.pos)

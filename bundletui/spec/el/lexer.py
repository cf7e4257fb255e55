"""Tokenizer for the inside of one ``${...}``, working directly on the template text.

It starts just after ``${`` and stops at the first ``}`` outside a string literal, so ``}`` inside
quotes (``${concat('a}', b)}``) is fine. Keywords are folded to their symbolic operator
(``eq`` -> ``==``, ``and`` -> ``&&``, ``div`` -> ``/`` ...) so the parser sees one spelling.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from bundletui.spec.el.exceptions import ParseFailure

# kinds
NUM = "number"
STR = "string"
IDENT = "identifier"
LIT = "literal"  # true / false / null
OP = "operator"
END = "end"  # the closing '}'

KEYWORD_OPS = {
    "and": "&&",
    "or": "||",
    "not": "!",
    "eq": "==",
    "ne": "!=",
    "lt": "<",
    "gt": ">",
    "le": "<=",
    "ge": ">=",
    "div": "/",
    "mod": "%",
    "empty": "empty",
}
KEYWORD_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
RESERVED = frozenset({"instanceof"})

_TWO_CHAR = {"==", "!=", "<=", ">=", "&&", "||"}
_ONE_CHAR = set("+-*/%<>!?:()[].,")

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?")
_IDENT = re.compile(r"(?:[^\W\d]|\$)(?:\w|\$)*")
_SPACE = " \t\r\n\f"
_LONG_MAX = 2**63 - 1


class Token(NamedTuple):
    kind: str
    value: Any
    pos: int
    end: int

    def describe(self) -> str:
        if self.kind == END:
            return "'}'"
        if self.kind == STR:
            return f"string '{self.value}'"
        if self.kind == NUM:
            return f"number {self.value}"
        if self.kind == IDENT:
            return f"'{self.value}'"
        if self.kind == LIT:
            return {True: "'true'", False: "'false'", None: "'null'"}[self.value]
        return f"'{self.value}'"


def tokenize(text: str, start: int) -> tuple[list[Token], int]:
    """Tokens from ``start`` up to and including the closing ``}``; returns them and the index
    just after that ``}``. ``start`` is the index after ``${``."""
    tokens: list[Token] = []
    i = start
    n = len(text)
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            raise ParseFailure(
                "missing closing '}'",
                start - 2,
                hint="close the expression with '}'; a literal '${' is written '\\${'",
            )
        ch = text[i]
        if ch == "}":
            tokens.append(Token(END, "}", i, i + 1))
            return tokens, i + 1
        if ch == "'" or ch == '"':
            value, end = _string(text, i)
            tokens.append(Token(STR, value, i, end))
            i = end
            continue
        if ch.isdigit() or (ch == "." and i + 1 < n and text[i + 1].isdigit()):
            m = _NUMBER.match(text, i)
            assert m is not None
            literal = m.group()
            if any(c in literal for c in ".eE"):
                tokens.append(Token(NUM, float(literal), i, m.end()))
            else:
                number = int(literal)
                if number > _LONG_MAX:
                    raise ParseFailure(f"integer literal {literal} is too large for a long", i)
                tokens.append(Token(NUM, number, i, m.end()))
            i = m.end()
            continue
        m = _IDENT.match(text, i)
        if m:
            word = m.group()
            if word in KEYWORD_OPS:
                tokens.append(Token(OP, KEYWORD_OPS[word], i, m.end()))
            elif word in KEYWORD_LITERALS:
                tokens.append(Token(LIT, KEYWORD_LITERALS[word], i, m.end()))
            elif word in RESERVED:
                raise ParseFailure(f"'{word}' is a reserved word", i)
            else:
                tokens.append(Token(IDENT, word, i, m.end()))
            i = m.end()
            continue
        pair = text[i : i + 2]
        if pair in _TWO_CHAR:
            tokens.append(Token(OP, pair, i, i + 2))
            i += 2
            continue
        if ch in _ONE_CHAR:
            tokens.append(Token(OP, ch, i, i + 1))
            i += 1
            continue
        hint = None
        if ch == "=":
            hint = "compare with '==' or 'eq'"
        elif ch in "&|":
            hint = f"the operator is '{ch}{ch}'"
        elif ch == "{":
            hint = "expressions cannot be nested: write ${a}${b}, not ${${a}}"
        raise ParseFailure(f"unexpected character '{ch}'", i, hint=hint)


def _string(text: str, start: int) -> tuple[str, int]:
    """A quoted literal at ``start``. ``\\\\``, ``\\'`` and ``\\"`` are escapes; any other
    backslash is kept as written (so regexes like ``'\\d+'`` survive)."""
    quote = text[start]
    out: list[str] = []
    i = start + 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch == "\\" and i + 1 < n and text[i + 1] in "\\'\"":
            out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise ParseFailure("unterminated string literal", start, hint=f"close the string with {quote}")

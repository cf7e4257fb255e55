"""Java regular expressions and replacement strings on top of Python's ``re``.

Oozie's ``replaceAll`` and ``appendAll`` hand user text to ``String.replaceAll`` / ``split``.
Most patterns mean the same in both engines; this module translates the common Java-only
spellings (``(?<name>``, ``\\k<name>``, ``\\Q..\\E``, ``\\p{Alpha}``, ``\\z``/``\\Z``, ``\\h``,
``\\R``) and implements Java's replacement syntax (``$1``, ``${name}``, ``\\$``) and
``String.split`` semantics exactly.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

_POSIX = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": "\\x00-\\x7f",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": "!-/:-@\\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": " \\t",
    "Cntrl": "\\x00-\\x1f\\x7f",
    "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0b\\f\\r",
    "L": "^\\W\\d_",  # letters: handled specially (negated class trick)
    "IsAlphabetic": "^\\W\\d_",
    "IsLetter": "^\\W\\d_",
    "IsDigit": "\\d",
    "N": "\\d",
    "javaLowerCase": "a-z",
    "javaUpperCase": "A-Z",
    "javaWhitespace": "\\s",
}
_HSPACE = " \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"


class JavaRegexError(ValueError):
    """The pattern or replacement is not valid (or uses Java syntax Python cannot express)."""


def _class_body(name: str, where: str) -> str:
    if name.startswith("Is") and name[2:] in _POSIX:
        name = name[2:]
    if name.startswith("In"):
        raise JavaRegexError(f"unsupported Unicode block \\p{{{name}}} in {where}")
    body = _POSIX.get(name)
    if body is None:
        raise JavaRegexError(f"unsupported character class \\p{{{name}}} in {where}")
    return body


def translate(pattern: str) -> str:
    """A Python ``re`` pattern equivalent to the Java ``pattern``."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "Q":
                end = pattern.find("\\E", i + 2)
                quoted = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
                out.append(re.escape(quoted))
                i = n if end < 0 else end + 2
                continue
            if nxt in "pP":
                if i + 2 < n and pattern[i + 2] == "{":
                    close = pattern.find("}", i + 3)
                    if close < 0:
                        raise JavaRegexError(f"unclosed \\{nxt}{{ in {pattern!r}")
                    name = pattern[i + 3 : close]
                    end = close + 1
                else:
                    name = pattern[i + 2 : i + 3]
                    end = i + 3
                body = _class_body(name, pattern)
                out.append(_class(body, nxt == "P", in_class))
                i = end
                continue
            if nxt == "k" and i + 2 < n and pattern[i + 2] == "<":
                close = pattern.find(">", i + 3)
                if close < 0:
                    raise JavaRegexError(f"unclosed \\k< in {pattern!r}")
                out.append(f"(?P={pattern[i + 3 : close]})")
                i = close + 1
                continue
            if nxt == "z" and not in_class:
                out.append("\\Z")
                i += 2
                continue
            if nxt == "Z" and not in_class:
                out.append("(?=\\n?\\Z)")
                i += 2
                continue
            if nxt == "h":
                out.append(_HSPACE if in_class else f"[{_HSPACE}]")
                i += 2
                continue
            if nxt == "R" and not in_class:
                out.append("(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])")
                i += 2
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            elif ch == "[":
                raise JavaRegexError(f"nested character classes are not supported: {pattern!r}")
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading ']' is literal in Java too
                out.append("\\]")
                i += 1
            continue
        if pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _class(body: str, negate: bool, in_class: bool) -> str:
    if body.startswith("^"):  # "letters" are expressed as a negated class of non-letters
        inner = body[1:]
        if in_class:
            raise JavaRegexError("\\p{L} inside a character class is not supported")
        return f"[{inner}]" if negate else f"[^{inner}]"
    if in_class:
        if negate:
            raise JavaRegexError("\\P{..} inside a character class is not supported")
        return body
    return f"[^{body}]" if negate else f"[{body}]"


@functools.lru_cache(maxsize=512)
def compile_java(pattern: str) -> re.Pattern[str]:
    """Compile a Java pattern (cached)."""
    try:
        return re.compile(translate(pattern))
    except re.error as exc:
        raise JavaRegexError(f"invalid regular expression {pattern!r}: {exc}") from None


Segment = str | int


@functools.lru_cache(maxsize=512)
def _parse_replacement(replacement: str, pattern: re.Pattern[str]) -> tuple[Segment, ...]:
    """Java ``Matcher.appendReplacement`` syntax: ``$n`` (greedy while the group exists),
    ``${name}``, and ``\\x`` for a literal ``x``."""
    groups = pattern.groups
    segments: list[Segment] = []
    literal: list[str] = []
    i = 0
    n = len(replacement)

    def flush() -> None:
        if literal:
            segments.append("".join(literal))
            literal.clear()

    while i < n:
        ch = replacement[i]
        if ch == "\\":
            i += 1
            if i >= n:
                raise JavaRegexError(
                    "character to be escaped is missing at the end of the replacement"
                )
            literal.append(replacement[i])
            i += 1
        elif ch == "$":
            i += 1
            if i >= n:
                raise JavaRegexError("illegal group reference: group index is missing")
            if replacement[i] == "{":
                close = replacement.find("}", i + 1)
                name = replacement[i + 1 : close] if close > 0 else ""
                if close < 0 or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name):
                    raise JavaRegexError(
                        "named capturing group has an invalid name in the replacement"
                    )
                if name not in pattern.groupindex:
                    raise JavaRegexError(f"no group with name {{{name}}}")
                flush()
                segments.append(pattern.groupindex[name])
                i = close + 1
                continue
            if not replacement[i].isdigit():
                raise JavaRegexError(
                    f"illegal group reference '${replacement[i]}' in the replacement"
                )
            number = int(replacement[i])
            i += 1
            while i < n and replacement[i].isdigit():
                candidate = number * 10 + int(replacement[i])
                if candidate > groups:
                    break
                number = candidate
                i += 1
            if number > groups:
                raise JavaRegexError(f"no group {number} in the pattern")
            flush()
            segments.append(number)
        else:
            literal.append(ch)
            i += 1
    flush()
    return tuple(segments)


def replace_all(source: str, pattern: str, replacement: str) -> str:
    """``String.replaceAll(pattern, replacement)`` with Java semantics."""
    regex = compile_java(pattern)
    segments = _parse_replacement(replacement, regex)
    if all(isinstance(s, str) for s in segments):
        constant = "".join(segments)  # type: ignore[arg-type]
        return regex.sub(lambda _m: constant, source)

    def expand(match: re.Match[str]) -> str:
        return "".join(s if isinstance(s, str) else (match.group(s) or "") for s in segments)

    replace: Callable[[re.Match[str]], str] = expand
    return regex.sub(replace, source)


def split(source: str, pattern: str) -> list[str]:
    """``String.split(pattern)`` (limit 0): no leading empty piece for a zero-width match at 0,
    trailing empty pieces removed, the whole input if nothing matches."""
    regex = compile_java(pattern)
    pieces: list[str] = []
    index = 0
    matched = False
    for match in regex.finditer(source):
        if match.end() == 0:  # zero-width match at the very beginning
            continue
        if match.start() == match.end() and match.start() == len(source):
            continue
        matched = True
        pieces.append(source[index : match.start()])
        index = match.end()
    if not matched:
        return [source]
    pieces.append(source[index:])
    while pieces and pieces[-1] == "":
        pieces.pop()
    return pieces

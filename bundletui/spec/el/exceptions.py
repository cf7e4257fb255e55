"""The signals an EL evaluation can raise.

``Deferred`` is control flow (a phase cannot resolve something yet), ``ELError`` is the user-facing
error (a :class:`SpecError` with code E1004), and the two private classes carry a message plus the
offending position up to the template, which alone knows the surrounding text to quote.
"""

from __future__ import annotations

from bundletui.errors import TEMPLATES, SpecError


class Deferred(Exception):
    """Raised by a function that cannot be resolved in the current phase.

    The whole ``${...}`` that contains the call is echoed verbatim into the output, so a later
    phase (with more functions bound) evaluates it again.
    """

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason


class ELError(SpecError):
    """E1004: an expression could not be parsed or evaluated.

    ``expression`` is the ``${...}`` text, ``offset`` the 0-based index of the problem in the
    template, ``column``/``template_line`` its 1-based position within the template text (callers
    that know where the template sits in a file add their own line).
    """

    def __init__(
        self,
        detail: str,
        *,
        template: str,
        expression: str,
        offset: int,
        hint: str | None = None,
    ) -> None:
        line = template.count("\n", 0, offset) + 1
        column = offset - (template.rfind("\n", 0, offset) + 1) + 1
        where = f"column {column}" if line == 1 else f"line {line}, column {column}"
        shown = expression if len(expression) <= 120 else expression[:117] + "..."
        message = TEMPLATES["E1004"].format(f"{detail} in {shown} at {where}")
        super().__init__("E1004", message, hint=hint)
        self.detail = detail
        self.template = template
        self.expression = expression
        self.offset = offset
        self.column = column
        self.template_line = line


class CoercionError(Exception):
    """A JSP-EL coercion or operator failure; the evaluator adds the position (and ``hint``,
    how to write it instead, when the failure has one)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class ArgumentError(Exception):
    """A function was called with the wrong number of arguments (see ``el_function``)."""


class EvalFailure(Exception):
    """Internal: a failure at ``pos`` inside an expression, turned into ELError by the template."""

    def __init__(self, message: str, pos: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint


class ParseFailure(Exception):
    """Internal: a syntax error at ``pos`` (absolute index in the template); ``start`` is the
    index of the enclosing ``${``."""

    def __init__(self, message: str, pos: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.start = 0

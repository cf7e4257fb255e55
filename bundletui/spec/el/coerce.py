"""JSP 2.0 EL coercions and operators (JSP 2.0 spec §2.8 / commons-el, as used by Oozie).

Values are plain Python: ``None`` (null), ``bool`` (Boolean), ``int`` (Long, kept to 64 bits with
Java wrap-around), ``float`` (Double), ``str`` (String), mappings (Map) and lists/tuples (List).
The rules that surprise Python users are deliberate: ``"3" + 1 == 4`` (``+`` is numeric, never
concatenation), ``/`` always gives a float, ``%`` truncates like Java, ``"a" == 1`` is an error
(the string cannot be coerced to a number), a number is not a boolean.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence, Set
from decimal import Decimal
from typing import Any, TypeVar

from bundletui.errors import BundletuiError
from bundletui.spec.el.exceptions import ArgumentError, CoercionError, Deferred

_LONG_MIN = -(2**63)
_LONG_MAX = 2**63 - 1
_LONG_RE = re.compile(r"[+-]?[0-9]+")
_DOUBLE_RE = re.compile(
    r"[\x00-\x20]*[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)[\x00-\x20]*"
)


def wrap_long(value: int) -> int:
    """Java ``long`` overflow: wrap into the signed 64-bit range."""
    if _LONG_MIN <= value <= _LONG_MAX:
        return value
    return ((value - _LONG_MIN) & 0xFFFFFFFFFFFFFFFF) + _LONG_MIN


def type_name(value: object) -> str:
    """The EL (Java) name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Long"
    if isinstance(value, float):
        return "Double"
    if isinstance(value, str):
        return "String"
    if isinstance(value, Mapping):
        return "Map"
    if isinstance(value, Sequence):
        return "List"
    return type(value).__name__


def _show(value: object) -> str:
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f'"{text}"'
    return f"{to_string(value)} ({type_name(value)})"


# -- to String --------------------------------------------------------------------------------


def java_double_str(value: float) -> str:
    """``Double.toString``: ``4.0``, ``1.0E10``, ``1.0E-5``, ``NaN``, ``Infinity``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        text = repr(value)
        if "e" in text or "E" in text:  # cannot happen in this range with CPython, be safe
            text = format(value, "f").rstrip("0")
        return text if "." in text else text + ".0"
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    exp10 = len(digits) - 1 + exponent
    mantissa = text[0] + "." + (text[1:] or "0")
    return f"{'-' if sign else ''}{mantissa}E{exp10}"


def _java_to_string(value: object) -> str:
    """``String.valueOf`` for values nested inside maps and lists (null prints ``null``)."""
    if value is None:
        return "null"
    return to_string(value)


def to_string(value: object) -> str:
    """Coerce to String: null is ``""``, booleans ``true``/``false``, doubles as Java prints them."""
    if type(value) is str:
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double_str(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_java_to_string(k)}={_java_to_string(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, Sequence | Set) and not isinstance(value, bytes | bytearray):
        return "[" + ", ".join(_java_to_string(v) for v in value) + "]"
    return str(value)


# -- to numbers / Boolean ---------------------------------------------------------------------


def to_long(value: object) -> int:
    """Coerce to Long: null and ``""`` are 0, strings must parse as Java ``Long.valueOf``."""
    if type(value) is int:
        return wrap_long(value)
    if value is None:
        return 0
    if isinstance(value, bool):
        raise CoercionError(f"cannot coerce {_show(value)} to a number")
    if isinstance(value, int):
        return wrap_long(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return 0
        if math.isinf(value):
            return _LONG_MAX if value > 0 else _LONG_MIN
        return max(_LONG_MIN, min(_LONG_MAX, int(value)))
    if isinstance(value, str):
        if value == "":
            return 0
        if _LONG_RE.fullmatch(value):
            number = int(value)
            if _LONG_MIN <= number <= _LONG_MAX:
                return number
        raise CoercionError(
            f"cannot coerce {_show(value)} to an integer",
            hint="arithmetic needs numbers; join text with concat(a, b) or "
            "${a}${b}, and compare it with == or eq",
        )
    raise CoercionError(f"cannot coerce {_show(value)} to a number")


def to_double(value: object) -> float:
    """Coerce to Double: null and ``""`` are 0.0, strings parse as Java ``Double.valueOf``."""
    if type(value) is float:
        return value
    if value is None:
        return 0.0
    if isinstance(value, bool):
        raise CoercionError(f"cannot coerce {_show(value)} to a number")
    if isinstance(value, int | float | Decimal):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, str):
        if value == "":
            return 0.0
        if _DOUBLE_RE.fullmatch(value):
            text = value.strip("".join(chr(c) for c in range(33))).rstrip("fFdD")
            if text.endswith("Infinity"):
                return -math.inf if text.startswith("-") else math.inf
            return float(text)
        raise CoercionError(f"cannot coerce {_show(value)} to a number")
    raise CoercionError(f"cannot coerce {_show(value)} to a number")


def to_boolean(value: object) -> bool:
    """Coerce to Boolean: null and ``""`` are false, strings are true only if ``"true"``."""
    if value is True or value is False:
        return value
    if value is None:
        return False
    if isinstance(value, str):
        return value.lower() == "true"
    raise CoercionError(f"cannot coerce {_show(value)} to a boolean")


def _is_long(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_double_like(value: object) -> bool:
    """Operands that switch ``+ - * %`` and unary minus to Double arithmetic."""
    if isinstance(value, float | Decimal):
        return True
    return isinstance(value, str) and ("." in value or "e" in value or "E" in value)


# -- arithmetic -------------------------------------------------------------------------------


def _arith(
    a: object,
    b: object,
    long_op: Callable[[int, int], int],
    double_op: Callable[[float, float], float],
) -> int | float:
    if a is None and b is None:
        return 0
    if _is_double_like(a) or _is_double_like(b):
        return double_op(to_double(a), to_double(b))
    return wrap_long(long_op(to_long(a), to_long(b)))


def add(a: object, b: object) -> int | float:
    if type(a) is int and type(b) is int:
        return wrap_long(a + b)
    return _arith(a, b, int.__add__, float.__add__)


def subtract(a: object, b: object) -> int | float:
    if type(a) is int and type(b) is int:
        return wrap_long(a - b)
    return _arith(a, b, int.__sub__, float.__sub__)


def multiply(a: object, b: object) -> int | float:
    if type(a) is int and type(b) is int:
        return wrap_long(a * b)
    return _arith(a, b, int.__mul__, float.__mul__)


def _java_double_div(x: float, y: float) -> float:
    if y == 0.0:
        if x == 0.0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def divide(a: object, b: object) -> int | float:
    """``/`` and ``div``: always Double (two nulls give Long 0)."""
    if a is None and b is None:
        return 0
    return _java_double_div(to_double(a), to_double(b))


def _java_double_mod(x: float, y: float) -> float:
    if y == 0.0 or math.isinf(x) or math.isnan(x) or math.isnan(y):
        return math.nan
    return math.fmod(x, y)


def _java_long_mod(x: int, y: int) -> int:
    if y == 0:
        raise CoercionError(
            "division by zero in '%' (mod)",
            hint="integers cannot be divided by 0 (div gives Infinity); guard the divisor, "
            "e.g. ${b == 0 ? 0 : a mod b}",
        )
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def modulo(a: object, b: object) -> int | float:
    """``%`` and ``mod``: Long unless an operand is Double-like; sign follows the dividend."""
    return _arith(a, b, _java_long_mod, _java_double_mod)


def negate(a: object) -> int | float:
    """Unary minus: null is 0, strings parse as Long or Double."""
    if type(a) is int:
        return wrap_long(-a)
    if a is None:
        return 0
    if isinstance(a, float):
        return -a
    if isinstance(a, str):
        return -to_double(a) if _is_double_like(a) else wrap_long(-to_long(a))
    if _is_long(a):
        return wrap_long(-int(a))  # type: ignore[call-overload]
    raise CoercionError(f"cannot negate {_show(a)}")


# -- comparisons ------------------------------------------------------------------------------


def _compare(a: object, b: object) -> int:
    """-1/0/1 for two non-null operands under the JSP relational rules."""
    x: Any
    y: Any
    if isinstance(a, float) or isinstance(b, float):
        x, y = to_double(a), to_double(b)
        if math.isnan(x) or math.isnan(y):
            return 2  # unordered: every relational operator is false
    elif _is_long(a) or _is_long(b):
        x, y = to_long(a), to_long(b)
    elif isinstance(a, str) or isinstance(b, str):
        x, y = to_string(a), to_string(b)
    else:
        x, y = a, b
        try:
            return -1 if x < y else (1 if x > y else 0)
        except TypeError:
            raise CoercionError(f"cannot compare {_show(a)} with {_show(b)}") from None
    return -1 if x < y else (1 if x > y else 0)


def less(a: object, b: object) -> bool:
    if a is None or b is None:
        return False
    return _compare(a, b) == -1


def greater(a: object, b: object) -> bool:
    if a is None or b is None:
        return False
    return _compare(a, b) == 1


def less_equal(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    return _compare(a, b) in (-1, 0)


def greater_equal(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    return _compare(a, b) in (0, 1)


def equals(a: object, b: object) -> bool:
    """``==``/``eq`` under the JSP rules (numbers, then booleans, then strings, then equals)."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    if isinstance(a, float) or isinstance(b, float):
        return to_double(a) == to_double(b)
    if _is_long(a) or _is_long(b):
        return to_long(a) == to_long(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return to_boolean(a) == to_boolean(b)
    if isinstance(a, str) or isinstance(b, str):
        return to_string(a) == to_string(b)
    try:
        return bool(a == b)
    except Exception:  # an odd __eq__ must not escape as a traceback
        raise CoercionError(f"cannot compare {_show(a)} with {_show(b)}") from None


def not_equals(a: object, b: object) -> bool:
    return not equals(a, b)


def is_empty(value: object) -> bool:
    """``empty``: null, ``""``, and empty maps / lists / sets."""
    if value is None:
        return True
    if isinstance(value, str):
        return value == ""
    if isinstance(value, Mapping | Sequence | Set):
        return len(value) == 0
    return False


def get_item(target: object, key: object) -> object:
    """``a.b`` / ``a[b]``: maps and lists only; a missing key or index is null."""
    if target is None or key is None:
        return None
    if isinstance(target, Mapping):
        try:
            return target.get(key)
        except TypeError:  # unhashable key
            return None
    if isinstance(target, Sequence) and not isinstance(target, str | bytes | bytearray):
        index = to_long(key)
        if 0 <= index < len(target):
            return target[index]
        return None
    raise CoercionError(
        f"cannot read [{to_string(key)}] of a {type_name(target)} (only maps and lists have properties)"
    )


# -- typed functions --------------------------------------------------------------------------

_COERCERS: dict[object, Callable[[Any], Any]] = {
    str: to_string,
    int: to_long,
    float: to_double,
    bool: to_boolean,
    object: lambda value: value,
    None: lambda value: value,
    Any: lambda value: value,
}

F = TypeVar("F", bound=Callable[..., Any])


def el_function(*params: object) -> Callable[[F], F]:
    """Declare a function's EL parameter types so arguments are coerced as JSP EL does.

    ``str`` (null becomes ``""``), ``int`` (Long), ``float`` (Double), ``bool``, or ``object``
    (passed through). The wrapper also checks the argument count, giving a clear error instead
    of a Python ``TypeError``::

        @el_function(int)
        def current(n: int) -> str: ...
    """
    coercers = tuple(_COERCERS[p] for p in params)
    count = len(coercers)

    def decorate(fn: F) -> F:
        def wrapper(*args: Any) -> Any:
            if len(args) != count:
                plural = "" if count == 1 else "s"
                raise ArgumentError(f"expects {count} argument{plural}, got {len(args)}")
            coerced = []
            for index, (coercer, arg) in enumerate(zip(coercers, args, strict=True)):
                try:
                    coerced.append(coercer(arg))
                except CoercionError as exc:
                    raise CoercionError(f"argument {index + 1}: {exc}") from None
            return fn(*coerced)

        # What functools.wraps would copy, set directly: tables of these wrappers are built per
        # coordinator and per workflow, and wraps' attribute loop was a measurable share of that.
        wrapper.__name__ = getattr(fn, "__name__", "function")
        wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
        wrapper.__doc__ = fn.__doc__
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        wrapper.__el_params__ = params  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


_PARAM_WORDS: dict[object, str] = {
    str: "string",
    int: "long",
    float: "double",
    bool: "boolean",
    object: "value",
}


def el_signature(fn: Callable[..., Any]) -> tuple[str, ...] | None:
    """The parameter types :func:`el_function` declared for ``fn``, as EL names them
    (``("string", "long")``); None for a function not declared with it."""
    params = getattr(fn, "__el_params__", None)
    return None if params is None else tuple(_PARAM_WORDS.get(p, "value") for p in params)


def el_signatures(table: Mapping[str, Callable[..., Any]]) -> dict[str, tuple[str, ...]]:
    """:func:`el_signature` of each function of ``table`` that declares one."""
    return {name: sig for name, fn in table.items() if (sig := el_signature(fn)) is not None}


def wrong_count(name: str, params: tuple[str, ...], got: int) -> tuple[str, str]:
    """The message and hint for a call of ``name`` with ``got`` arguments, where its
    parameters are ``params`` (as :func:`el_signature` names them)."""
    plural = "" if len(params) == 1 else "s"
    return (
        f"function [{name}] expects {len(params)} argument{plural}, got {got}",
        f"call it as {name}({', '.join(params)})",
    )


# Exceptions a function may raise that the evaluator must not rewrap.
PASS_THROUGH: tuple[type[BaseException], ...] = (Deferred, BundletuiError)

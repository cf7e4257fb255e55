"""Oozie's basic EL functions and constants (oozie.md §5.8; Oozie ``ELConstantsFunctions``).

Arguments are coerced as JSP EL coerces them to the Java parameter types (a ``String``
parameter turns null into ``""``), so e.g. ``concat(null, 'b')`` is ``"b"``.

Oozie XML-escapes the result of ``toJsonStr``/``toPropertiesStr``/``toConfigurationStr`` because
it evaluates EL on raw XML text and parses it afterwards. We evaluate already-parsed values, so
by default the functions return what an Oozie action finally sees (unescaped); pass
``xml_escape=True`` to get Oozie's raw escaped text.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from bundletui.spec.config import configuration_xml
from bundletui.spec.el import javaregex
from bundletui.spec.el.coerce import el_function, java_double_str, to_string

BASIC_CONSTANTS: Mapping[str, int] = {
    "KB": 1024,
    "MB": 1024**2,
    "GB": 1024**3,
    "TB": 1024**4,
    "PB": 1024**5,
}
"""``KB MB GB TB PB`` as Longs; merge into a context's variables."""

_URL_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")
_JAVA_WHITESPACE = "".join(chr(c) for c in range(33))


def escape_xml(text: str) -> str:
    """Oozie's ``XmlUtils.escapeCharsForXML``: ``< > " ' &`` as entities."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#039;")
    )


def first_not_null(a: object, b: object) -> object:
    return a if a is not None else b


def concat(a: str, b: str) -> str:
    return a + b


def replace_all(source: str, regex: str, replacement: str) -> str:
    """Java ``String.replaceAll``: Java regex, ``$1``/``${name}`` group references."""
    return javaregex.replace_all(source, regex, replacement)


def append_all(source: str, append: str, delimiter: str) -> str:
    """Append ``append`` to each ``delimiter``-separated piece (delimiter is a Java regex for the
    split but is re-inserted literally, as Oozie does)."""
    pieces = javaregex.split(source, delimiter)
    result = delimiter.join(piece + append for piece in pieces)
    if source.startswith(delimiter) and pieces and pieces[0] != "":
        result = append + result
    return result


def trim(text: str) -> str:
    """``StringUtils.trimToEmpty``: strips control characters and spaces (<= U+0020)."""
    return text.strip(_JAVA_WHITESPACE)


def url_encode(text: str) -> str:
    """``URLEncoder.encode(text, "UTF-8")``: space is ``+``, ``~`` is encoded, uppercase hex."""
    out: list[str] = []
    for byte in text.encode("utf-8", errors="replace"):
        if byte in _URL_SAFE:
            out.append(chr(byte))
        elif byte == 0x20:
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def _require_map(value: object, function: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{function} needs a map (e.g. wf:actionData('node')), got {to_string(value)!r}"
        )
    return value


def _json_escape(text: str) -> str:
    """json-simple's escaping: also ``/`` and the control ranges as ``\\uXXXX``."""
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "/":
            out.append("\\/")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code <= 0x1F or 0x7F <= code <= 0x9F or 0x2000 <= code <= 0x20FF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    return "".join(out)


def to_json(value: object) -> str:
    """A json-simple rendering (``{"k":"v"}``, no spaces)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return "null"
        return java_double_str(value)
    if isinstance(value, Mapping):
        return (
            "{"
            + ",".join(f'"{_json_escape(to_string(k))}":{to_json(v)}' for k, v in value.items())
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    return '"' + _json_escape(to_string(value)) + '"'


def _properties_escape(text: str, *, is_key: bool) -> str:
    """``java.util.Properties.saveConvert``."""
    out: list[str] = []
    for index, ch in enumerate(text):
        code = ord(ch)
        if 61 < code < 127:
            out.append("\\\\" if ch == "\\" else ch)
        elif ch == " ":
            out.append("\\ " if index == 0 or is_key else " ")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\f":
            out.append("\\f")
        elif ch in "=:#!":
            out.append("\\" + ch)
        elif code < 0x20 or code > 0x7E:
            data = ch.encode("utf-16-be", errors="surrogatepass")
            out.extend(f"\\u{data[i]:02X}{data[i + 1]:02X}" for i in range(0, len(data), 2))
        else:
            out.append(ch)
    return "".join(out)


def _java_date(moment: datetime) -> str:
    """``Date.toString`` in UTC: ``Wed Jun 12 17:00:00 UTC 2024``."""
    return moment.strftime("%a %b %d %H:%M:%S UTC %Y")


def basic_functions(
    now: Callable[[], datetime], *, xml_escape: bool = False
) -> dict[str, Callable[..., Any]]:
    """The basic function table, keyed by bare name (``concat``, ``timestamp`` ...).

    ``now`` supplies the current time (the Clock's ``now``): this package never reads the clock.
    """

    def utc_now() -> datetime:
        moment = now()
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)

    def timestamp() -> str:
        """Processing-timezone (UTC) ``yyyy-MM-ddTHH:mmZ``."""
        return utc_now().strftime("%Y-%m-%dT%H:%MZ")

    def to_properties_str(value: object) -> str:
        mapping = _require_map(value, "toPropertiesStr")
        lines = ["#", "#" + _java_date(utc_now())]
        for key, val in mapping.items():
            k = _properties_escape(to_string(key), is_key=True)
            v = _properties_escape(to_string(val), is_key=False)
            lines.append(f"{k}={v}")
        return _finish("\n".join(lines) + "\n", xml_escape)

    return {
        **_timeless_functions(xml_escape),
        "timestamp": el_function()(timestamp),
        "toPropertiesStr": el_function(object)(to_properties_str),
    }


def _finish(text: str, xml_escape: bool) -> str:
    return escape_xml(text) if xml_escape else text


@functools.cache  # no clock, no state: one table per escaping mode (tables are built per job)
def _timeless_functions(xml_escape: bool) -> dict[str, Callable[..., Any]]:
    def to_json_str(value: object) -> str:
        return _finish(to_json(_require_map(value, "toJsonStr")), xml_escape)

    def to_configuration_str(value: object) -> str:
        mapping = _require_map(value, "toConfigurationStr")
        text = configuration_xml({to_string(k): to_string(v) for k, v in mapping.items()})
        return _finish(text, xml_escape)

    return {
        "firstNotNull": el_function(object, object)(first_not_null),
        "concat": el_function(str, str)(concat),
        "replaceAll": el_function(str, str, str)(replace_all),
        "appendAll": el_function(str, str, str)(append_all),
        "trim": el_function(str)(trim),
        "urlEncode": el_function(str)(url_encode),
        "toJsonStr": el_function(object)(to_json_str),
        "toConfigurationStr": el_function(object)(to_configuration_str),
    }


def _no_clock() -> datetime:  # pragma: no cover - the names table never calls its functions
    raise AssertionError("BASIC_FUNCTION_NAMES is for names only")


BASIC_FUNCTION_NAMES: frozenset[str] = frozenset(basic_functions(_no_clock))
"""The names :func:`basic_functions` binds (for checks that need no clock)."""

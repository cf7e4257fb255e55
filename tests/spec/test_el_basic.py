"""Basic EL functions and constants (oozie.md §5.8), with vectors from Oozie's own tests."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from bundletui.spec.el import BASIC_CONSTANTS, ELContext, ELError, basic_functions, evaluate
from bundletui.spec.el.javaregex import JavaRegexError, replace_all, split, translate

NOW = datetime(2009, 3, 6, 10, 7, 31, tzinfo=UTC)


def ev(expr: str, variables: dict[str, Any] | None = None, *, xml_escape: bool = False) -> Any:
    functions = basic_functions(lambda: NOW, xml_escape=xml_escape)
    ctx = ELContext({**BASIC_CONSTANTS, **(variables or {})}, functions)
    return evaluate("${" + expr + "}", ctx)


def test_constants() -> None:
    assert ev("KB") == 1024
    assert ev("MB") == 1024 * 1024
    assert ev("GB") == 1024**3
    assert ev("TB") == 1024**4
    assert ev("PB") == 1024**5
    assert ev("2 * GB") == 2 * 1024**3


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("concat('a', null)", "a"),
        ("concat(null, 'b')", "b"),
        ("concat('a', 'b')", "ab"),
        ("concat(null, null)", ""),
        ("concat(1, 2.0)", "12.0"),
        ("concat(concat('a', 'b'), 'c')", "abc"),
        ("firstNotNull('a', 'b')", "a"),
        ("firstNotNull(null, 'b')", "b"),
        ("firstNotNull(null, null)", None),
        ("firstNotNull(null, 3)", 3),
        ("firstNotNull('', 'b')", ""),
        ("trim(null)", ""),
        ("trim(' a ')", "a"),
        ("trim(x)", "a b"),
        ("trim(nbsp)", "\u00a0a"),  # Java trim only strips <= U+0020
        ("urlEncode(' ')", "+"),
        ("urlEncode('%')", "%25"),
        ("urlEncode('a/b?c=d&e')", "a%2Fb%3Fc%3Dd%26e"),
        ("urlEncode('*-._~')", "*-._%7E"),
        ("urlEncode('\u00e9')", "%C3%A9"),
        ("urlEncode(null)", ""),
        ("timestamp()", "2009-03-06T10:07Z"),
    ],
)
def test_simple_functions(expr: str, value: object) -> None:
    assert ev(expr, {"x": "\t a b\n", "nbsp": "\u00a0a"}) == value


def test_timestamp_uses_the_injected_clock_in_utc() -> None:
    la = timezone(timedelta(hours=-8))
    functions = basic_functions(lambda: datetime(2009, 3, 6, 23, 30, tzinfo=la))
    assert evaluate("${timestamp()}", ELContext({}, functions)) == "2009-03-07T07:30Z"


# -- replaceAll: Java regex and replacement syntax --------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("replaceAll('a.b.c', '\\\\.', '/')", "a/b/c"),
        ("replaceAll('2009-01-02', '(\\\\d+)-(\\\\d+)-(\\\\d+)', '$3/$2/$1')", "02/01/2009"),
        (
            "replaceAll('2009-01-02', '(?<y>\\\\d{4})-(?<m>\\\\d\\\\d)-\\\\d+', '${m}.${y}')",
            "01.2009",
        ),
        ("replaceAll('abc', '(b)', '$10')", "ab0c"),  # $10 with one group: group 1 then '0'
        ("replaceAll('abc', 'b', '\\\\$1')", "a$1c"),  # escaped dollar
        ("replaceAll('abc', 'b', '\\\\\\\\')", "a\\c"),  # escaped backslash
        ("replaceAll('abc', 'x*', '-')", "-a-b-c-"),
        ("replaceAll('a+b', '\\\\Q+\\\\E', ' plus ')", "a plus b"),
        ("replaceAll('ab12', '\\\\p{Alpha}', '_')", "__12"),
        ("replaceAll('ab12', '\\\\P{Digit}+', '')", "12"),
        ("replaceAll('ab12', '[\\\\p{Digit}a]', '.')", ".b.."),
        ("replaceAll('a\\nb\\n', 'b\\\\Z', 'B')", "a\\nB\\n"),  # Java \\Z: before a final newline
        (
            "replaceAll('aXa', '(a)X\\\\k<g>', 'y')",
            None,
        ),  # invalid: group g undefined -> error below
        ("replaceAll('hello world', '(\\\\w+) (\\\\w+)', '$2 $1')", "world hello"),
        ("replaceAll('aaa', 'a', null)", ""),
        ("replaceAll(null, 'a', 'b')", ""),
        ("replaceAll('x', '(x)?y?', '[$1]')", "[x][]"),
    ],
)
def test_replace_all_java_semantics(expr: str, value: str | None) -> None:
    if value is None:
        with pytest.raises(ELError, match=r"function \[replaceAll\]"):
            ev(expr)
        return
    assert ev(expr.replace("\\n", "\n")) == value.replace("\\n", "\n")


@pytest.mark.parametrize(
    ("replacement", "message"),
    [
        ("$x", "illegal group reference"),
        ("$2", "no group 2"),
        ("${nope}", "no group with name"),
        ("a\\", "escaped"),
    ],
)
def test_replace_all_bad_replacement(replacement: str, message: str) -> None:
    with pytest.raises(JavaRegexError, match=message):
        replace_all("abc", "(b)", replacement)
    with pytest.raises(ELError, match=r"function \[replaceAll\] failed"):
        ev("replaceAll('abc', '(b)', r)", {"r": replacement})


def test_replace_all_bad_pattern_is_e1004() -> None:
    with pytest.raises(ELError) as info:
        ev("replaceAll('abc', '(b', 'x')")
    assert "invalid regular expression" in info.value.message


def test_translate_named_groups_and_lookbehind() -> None:
    assert translate("(?<year>\\d+)") == "(?P<year>\\d+)"
    assert translate("(?<=a)b(?<!c)") == "(?<=a)b(?<!c)"
    assert translate("\\k<year>") == "(?P=year)"
    assert translate("a\\z") == "a\\Z"


# -- appendAll (Java String.split semantics) ---------------------------------------------------


@pytest.mark.parametrize(
    ("src", "append", "delim", "value"),
    [
        ("/a/b/,/c/b/,/c/d/", "ADD", ",", "/a/b/ADD,/c/b/ADD,/c/d/ADD"),  # Oozie's doc example
        ("a", "X", ",", "aX"),
        ("a,", "X", ",", "aX"),  # trailing empty pieces dropped by split
        (",a", "X", ",", "X,aX"),
        ("", "X", ",", "X"),
        ("a|b", "X", "\\|", "aX\\|bX"),  # delimiter is a regex for split, re-inserted literally
        ("a,b", None, ",", "a,b"),
    ],
)
def test_append_all(src: str, append: str | None, delim: str, value: str) -> None:
    assert ev("appendAll(s, a, d)", {"s": src, "a": append, "d": delim}) == value


def test_java_split() -> None:
    assert split("a,b,,", ",") == ["a", "b"]
    assert split(",a", ",") == ["", "a"]
    assert split("abc", "") == ["a", "b", "c"]
    assert split("", ",") == [""]
    assert split("a1b22c", "\\d+") == ["a", "b", "c"]


# -- map serialisers ---------------------------------------------------------------------------


def test_to_json_str() -> None:
    assert ev("toJsonStr(m)", {"m": {"b": "B"}}) == '{"b":"B"}'
    assert ev("toJsonStr(m)", {"m": {"p": 'a/"b"\n'}}) == '{"p":"a\\/\\"b\\"\\n"}'
    assert ev("toJsonStr(m)", {"m": {}}) == "{}"
    assert ev("toJsonStr(m)", {"m": {"b": "B"}}, xml_escape=True) == "{&quot;b&quot;:&quot;B&quot;}"


def test_to_properties_str() -> None:
    text = ev("toPropertiesStr(m)", {"m": {"b": "B", "a key": " x=y", "u": "\u00e9", "n": "1\n2"}})
    lines = text.split("\n")
    assert lines[0] == "#"
    assert lines[1] == "#Fri Mar 06 10:07:31 UTC 2009"
    assert lines[2:] == ["b=B", "a\\ key=\\ x\\=y", "u=\\u00E9", "n=1\\n2", ""]
    escaped = ev("toPropertiesStr(m)", {"m": {"b": "&"}}, xml_escape=True)
    assert "b=&amp;" in escaped


def test_to_configuration_str_is_hadoop_configuration_xml() -> None:
    data = {"b": "B", "amp": "x & <y>"}
    text = ev("toConfigurationStr(m)", {"m": data})
    root = ET.fromstring(text)
    assert root.tag == "configuration"
    parsed = {p.findtext("name"): p.findtext("value") for p in root.findall("property")}
    assert parsed == data
    raw = ev("toConfigurationStr(m)", {"m": {"b": "B"}}, xml_escape=True)
    assert raw.startswith("&lt;configuration&gt;")


@pytest.mark.parametrize("fn", ["toJsonStr", "toPropertiesStr", "toConfigurationStr"])
def test_serialisers_need_a_map(fn: str) -> None:
    with pytest.raises(ELError) as info:
        ev(f"{fn}('text')")
    assert f"function [{fn}] failed" in info.value.message
    assert "needs a map" in info.value.message


def test_argument_count_checked() -> None:
    with pytest.raises(ELError, match=r"function \[concat\] expects 2 arguments, got 3"):
        ev("concat('a', 'b', 'c')")

"""EL evaluation: JSP operators and coercions, native vs string results, phased echo, errors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bundletui.errors import CommandError, SpecError
from bundletui.spec.el import (
    Deferred,
    ELContext,
    ELError,
    compile_template,
    el_function,
    evaluate,
    has_el,
    property_variables,
    render,
    to_el_string,
)

VARS: dict[str, Any] = {
    "i": 7,
    "neg": -7,
    "f": 2.5,
    "s3": "3",
    "s15": "1.5",
    "word": "abc",
    "t": True,
    "no": False,
    "nul": None,
    "emptys": "",
    "m": {"k": "v", "n": 2, "list": [10, 20, 30], "inner": {"x": "y"}},
    "lst": ["a", "b"],
    "emptym": {},
    "emptyl": [],
}


def ev(
    expr: str,
    variables: dict[str, Any] | None = None,
    functions: dict[str, Callable[..., Any]] | None = None,
) -> Any:
    return evaluate("${" + expr + "}", ELContext({**VARS, **(variables or {})}, functions or {}))


def err(expr: str, **kwargs: Any) -> ELError:
    with pytest.raises(ELError) as info:
        ev(expr, **kwargs)
    assert info.value.code == "E1004"
    return info.value


# -- arithmetic -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("1 + 2", 3),
        ("'3' + 1", 4),
        ("s3 + s3", 6),
        ("'1.5' + 1", 2.5),
        ("'1e1' + 0", 10.0),
        ("1 + 2.0", 3.0),
        ("null + null", 0),
        ("null + 1", 1),
        ("'' + 1", 1),
        ("5 - 7", -2),
        ("3 * 4", 12),
        ("3 * 0.5", 1.5),
        ("7 / 2", 3.5),
        ("6 / 3", 2.0),
        ("6 div 3", 2.0),
        ("null / null", 0),
        ("7 % 3", 1),
        ("-7 % 3", -1),
        ("7 % -3", 1),
        ("-7 mod -3", -1),
        ("7.5 % 2", 1.5),
        ("-7.5 % 2", -1.5),
        ("'7' mod 4", 3),
        ("-i", -7),
        ("-f", -2.5),
        ("-s3", -3),
        ("-s15", -1.5),
        ("-null", 0),
        ("9223372036854775807 + 1", -9223372036854775808),  # Java long wrap-around
        ("3000000000 * 4000000000", -6446744073709551616),
    ],
)
def test_arithmetic(expr: str, value: object) -> None:
    result = ev(expr)
    assert result == value
    assert type(result) is type(value), f"{expr} gave {type(result).__name__}"


def test_long_multiplication_wraps_like_java() -> None:
    assert ev("3000000000 * 4000000000") == (3000000000 * 4000000000 + 2**63) % 2**64 - 2**63


def test_double_division_by_zero_follows_java() -> None:
    assert ev("1 / 0") == math.inf
    assert ev("-1 / 0") == -math.inf
    assert math.isnan(ev("0 / 0"))
    assert math.isnan(ev("1.5 % 0"))


def test_long_modulo_by_zero_is_an_error() -> None:
    e = err("7 % 0")
    assert "division by zero" in e.message
    assert e.column == 5
    assert e.hint is not None and "${b == 0 ? 0 : a mod b}" in e.hint  # QA: it had none
    assert ev("0 == 0 ? 0 : 7 % 0") == 0  # the guard the hint gives works


def test_text_in_arithmetic_says_how_to_join_text() -> None:
    e = err("'abc' + 1")
    assert "cannot coerce" in e.message and e.hint is not None and "concat(a, b)" in e.hint


@pytest.mark.parametrize(
    "expr", ["'abc' + 1", "t + 1", "m + 1", "1 - 'x'", "-word", "-t", "lst * 2"]
)
def test_arithmetic_on_non_numbers_is_an_error(expr: str) -> None:
    assert "cannot" in err(expr).message


# -- comparisons and equality -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("1 < 2", True),
        ("2 lt 1", False),
        ("2 > 1", True),
        ("2 gt 2", False),
        ("2 >= 2", True),
        ("2 ge 3", False),
        ("2 <= 2", True),
        ("3 le 2", False),
        ("'10' < '9'", True),  # strings compare lexically
        ("'10' < 9", False),  # a number on one side: numeric
        ("1.5 < 2", True),
        ("'abc' < 'abd'", True),
        ("null < 1", False),
        ("null <= null", True),
        ("null < null", False),
        ("false < true", True),
        ("1 == 1", True),
        ("1 == 1.0", True),
        ("'1' == 1", True),
        ("1 eq 2", False),
        ("'a' == 'a'", True),
        ("'a' ne 'b'", True),
        ("null == null", True),
        ("null == 0", False),
        ("null != ''", True),
        ("true == 'true'", True),
        ("'TRUE' == true", True),
        ("'yes' == true", False),
        ("m == m", True),
        ("m['inner'] == m.inner", True),
        ("lst == lst", True),
        ("empty '' == true", True),
    ],
)
def test_comparisons(expr: str, value: bool) -> None:
    assert ev(expr) is value


@pytest.mark.parametrize("expr", ["'a' == 1", "'1.0' == 1", "'abc' < 1", "m < m", "lst > 1"])
def test_incomparable_values_are_errors(expr: str) -> None:
    assert "cannot" in err(expr).message


# -- logic, empty, conditional ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("true && false", False),
        ("true and true", True),
        ("false || true", True),
        ("false or false", False),
        ("!true", False),
        ("not false", True),
        ("not null", True),
        ("not ''", True),
        ("'true' && 'TRUE'", True),
        ("'yes' || false", False),
        ("empty null", True),
        ("empty ''", True),
        ("empty emptym", True),
        ("empty emptyl", True),
        ("empty 'x'", False),
        ("empty m", False),
        ("empty lst", False),
        ("empty 0", False),
        ("empty undefinedButEmptyMode", True),
        ("!empty m", True),
        ("t ? 'y' : 'n'", "y"),
        ("no ? 'y' : 'n'", "n"),
        ("null ? 'y' : 'n'", "n"),
        ("'true' ? 1 : 2", 1),
        ("i > 5 ? i * 2 : 0", 14),
        ("false ? 1 : true ? 2 : 3", 2),
    ],
)
def test_logic_empty_conditional(expr: str, value: object) -> None:
    ctx = ELContext(VARS, on_unknown_variable="empty")
    assert evaluate("${" + expr + "}", ctx) == value


def test_logical_operators_short_circuit() -> None:
    calls: list[str] = []

    def boom() -> bool:
        calls.append("boom")
        raise AssertionError("must not be called")

    assert ev("false && x:boom()", functions={"x:boom": boom}) is False
    assert ev("true || x:boom()", functions={"x:boom": boom}) is True
    assert ev("true ? 1 : x:boom()", functions={"x:boom": boom}) == 1
    assert calls == []


@pytest.mark.parametrize("expr", ["1 && true", "i ? 1 : 2", "!5", "m || false"])
def test_numbers_and_maps_are_not_booleans(expr: str) -> None:
    assert "boolean" in err(expr).message


# -- property and index access ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("m.k", "v"),
        ("m['k']", "v"),
        ('m["n"] + 1', 3),
        ("m.inner.x", "y"),
        ("m['list'][1]", 20),
        ("m.list['2']", 30),  # list index coerced to an integer
        ("m.list[5]", None),
        ("m.list[-1]", None),  # no Python negative indexing
        ("m.missing", None),
        ("m.missing.deeper", None),  # null.x is null
        ("lst[0]", "a"),
        ("nul.x", None),
        ("m[null]", None),
        ("m[1]", None),
    ],
)
def test_access(expr: str, value: object) -> None:
    assert ev(expr) == value


def test_access_on_non_collections_is_refused() -> None:
    class Secret:
        password = "hunter2"

    e = err("o.password", variables={"o": Secret()})
    assert "only maps and lists" in e.message
    assert "hunter2" not in e.message
    assert "only maps and lists" in err("word.upper").message
    assert "only maps and lists" in err("word['__class__']").message
    assert "integer" in err("lst['x']").message


def test_access_chain_on_function_result() -> None:
    data = {"key": "val"}
    assert ev("wf:actionData('n')['key']", functions={"wf:actionData": lambda n: data}) == "val"
    assert ev("wf:actionData('n').key", functions={"wf:actionData": lambda n: data}) == "val"


# -- native values vs strings -----------------------------------------------------------------


def test_single_expression_returns_native_value() -> None:
    ctx = ELContext(VARS)
    assert evaluate("${i}", ctx) == 7
    assert evaluate("${f}", ctx) == 2.5
    assert evaluate("${t}", ctx) is True
    assert evaluate("${nul}", ctx) is None
    assert evaluate("${m}", ctx) is VARS["m"]
    assert evaluate("${lst}", ctx) is VARS["lst"]


def test_mixed_template_is_string_with_jsp_coercion() -> None:
    ctx = ELContext(VARS)
    assert evaluate("n=${i}", ctx) == "n=7"
    assert evaluate("${i}${f}", ctx) == "72.5"
    assert evaluate(" ${i}", ctx) == " 7"
    assert evaluate("[${nul}]", ctx) == "[]"
    assert evaluate("${t}/${no}", ctx) == "true/false"
    assert evaluate("${1e10}|${1.0E-5}|${100.0}|${0.001}", ctx) == "1.0E10|1.0E-5|100.0|0.001"
    assert evaluate("${1/0}", ctx) == math.inf
    assert evaluate("x${1/0}", ctx) == "xInfinity"
    assert evaluate("${m.inner}:${lst}", ctx) == "{x=y}:[a, b]"


def test_render_always_gives_a_string() -> None:
    ctx = ELContext(VARS)
    assert render("${i}", ctx) == "7"
    assert render("${nul}", ctx) == ""
    assert render("plain", ctx) == "plain"
    assert render("${1.0 * 3}", ctx) == "3.0"


def test_text_without_expressions_is_returned_as_is() -> None:
    ctx = ELContext()
    assert evaluate("no el here $ { }", ctx) == "no el here $ { }"
    assert evaluate("escaped \\${x}", ctx) == "escaped ${x}"
    assert not has_el("escaped \\${x}")
    assert has_el("a ${x}")
    assert not has_el("plain")


def test_to_el_string() -> None:
    assert to_el_string(None) == ""
    assert to_el_string(3.0) == "3.0"
    assert to_el_string(12345678.9) == "1.23456789E7"
    assert to_el_string(-0.0) == "-0.0"
    assert to_el_string(float("nan")) == "NaN"
    assert to_el_string({"a": None, "b": [1, True]}) == "{a=null, b=[1, true]}"


# -- phases: deferral and echo ----------------------------------------------------------------

DATE_VARS = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"})


def _defer(*_args: Any) -> Any:
    raise Deferred("not in this phase")


def test_deferred_function_and_variables_echo_in_mixed_template() -> None:
    ctx = ELContext({"base": "/data"}, {"coord:current": _defer}, DATE_VARS)
    template = "${base}/${YEAR}/${MONTH}/x-${coord:current(0)}"
    assert evaluate(template, ctx) == "/data/${YEAR}/${MONTH}/x-${coord:current(0)}"
    resolution = compile_template(template).resolve(ctx)
    assert resolution.complete is False


def test_whole_expression_containing_a_deferral_is_echoed_verbatim() -> None:
    ctx = ELContext({"n": 1}, {"coord:latest": _defer, "concat": lambda a, b: f"{a}{b}"})
    text = "in=${concat( 'p-', coord:latest( -n ) )}!"
    assert evaluate(text, ctx) == "in=${concat( 'p-', coord:latest( -n ) )}!"
    assert evaluate("${coord:latest(0)}", ctx) == "${coord:latest(0)}"
    assert evaluate("${YEAR + 1}", ELContext(deferred_variables=DATE_VARS)) == "${YEAR + 1}"


def test_echo_round_trips_through_a_later_phase() -> None:
    submit = ELContext({"base": "/d"}, {"coord:current": _defer}, DATE_VARS)
    later = ELContext(
        {"base": "/other", "YEAR": "2009", "MONTH": "01"},
        {"coord:current": el_function(int)(lambda n: f"c{n}")},
    )
    first = render("${base}/${YEAR}/${MONTH}/${coord:current(-1)}", submit)
    assert first == "/d/${YEAR}/${MONTH}/${coord:current(-1)}"
    assert render(first, later) == "/d/2009/01/c-1"


def test_untaken_branch_does_not_defer() -> None:
    ctx = ELContext({}, {"coord:latest": _defer})
    assert evaluate("${true ? 'now' : coord:latest(0)}", ctx) == "now"


def test_deferred_variable_wins_over_a_defined_one() -> None:
    ctx = ELContext({"YEAR": "2001"}, {}, DATE_VARS)
    assert evaluate("${YEAR}", ctx) == "${YEAR}"


def test_escape_literals_keeps_escapes_for_a_later_phase() -> None:
    ctx = ELContext({}, {"coord:latest": _defer})
    template = "\\${literal} ${coord:latest(0)}"
    assert render(template, ctx) == "${literal} ${coord:latest(0)}"
    kept = render(template, ctx, escape_literals=True)
    assert kept == "\\${literal} ${coord:latest(0)}"
    final = ELContext({}, {"coord:latest": lambda n: "/x"})
    assert render(kept, final) == "${literal} /x"


def test_unknown_variable_modes() -> None:
    assert evaluate("a${x}b", ELContext(on_unknown_variable="empty")) == "ab"
    assert evaluate("a${x}b", ELContext(on_unknown_variable="echo")) == "a${x}b"
    with pytest.raises(ELError) as info:
        evaluate("a${x}b", ELContext({"xx": 1}))
    e = info.value
    assert "unresolved variable [x] in ${x}" in e.message
    assert e.column == 4
    assert e.hint is not None and "-D x=" in e.hint and "xx" in e.hint
    with pytest.raises(ValueError):
        ELContext(on_unknown_variable="ignore")  # type: ignore[arg-type]


def test_dotted_property_name_gets_a_conf_hint() -> None:
    with pytest.raises(ELError) as info:
        evaluate("${oozie.wf.application.path}", ELContext())
    assert info.value.hint is not None
    assert "wf:conf('oozie.wf.application.path')" in info.value.hint


def test_context_extend_merges() -> None:
    base = ELContext({"a": 1}, {"f": lambda: 1})
    more = base.extend(variables={"b": 2}, functions={"g": lambda: 2}, on_unknown_variable="empty")
    assert evaluate("${a + b + f() + g()}", more) == 6
    assert evaluate("${zzz}", more) is None
    assert "b" not in base.variables


def test_property_variables_keeps_java_identifiers_only() -> None:
    props = {"nameNode": "file:///", "queue_1": "q", "oozie.wf.application.path": "/x", "1bad": "n"}
    assert property_variables(props) == {"nameNode": "file:///", "queue_1": "q"}


# -- functions --------------------------------------------------------------------------------


def test_function_calls_nested_and_plain() -> None:
    functions: dict[str, Callable[..., Any]] = {
        "concat": lambda a, b: to_el_string(a) + to_el_string(b),
        "x:twice": lambda v: v * 2,
        "x:zero": lambda: 0,
        "x:three": lambda a, b, c: a + b + c,
    }
    ctx = ELContext({"n": 4}, functions)
    assert evaluate("${concat(concat('a', x:twice(n)), x:zero())}", ctx) == "a80"
    assert evaluate("${x:three(1, 2, x:twice(3))}", ctx) == 9
    assert evaluate("${x:twice(x:twice(x:twice(1)))}", ctx) == 8


def test_unknown_function_is_an_error_with_suggestion() -> None:
    ctx = ELContext({}, {"coord:current": lambda n: n})
    with pytest.raises(ELError) as info:
        evaluate("x ${coord:curent(0)}", ctx)
    assert "unknown function [coord:curent]" in info.value.message
    assert info.value.column == 5
    assert info.value.hint == "did you mean coord:current?"


def test_python_exception_in_function_becomes_e1004_with_name() -> None:
    def broken(n: int) -> int:
        return 1 // 0

    with pytest.raises(ELError) as info:
        evaluate("${a:broken(1)}", ELContext({}, {"a:broken": broken}))
    assert "function [a:broken] failed" in info.value.message
    assert "by zero" in info.value.message
    assert info.value.__cause__ is None


def test_wrong_argument_count_is_reported() -> None:
    ctx = ELContext({}, {"f": el_function(str, str)(lambda a, b: a + b), "g": lambda a: a})
    with pytest.raises(ELError, match=r"function \[f\] expects 2 arguments, got 1"):
        evaluate("${f('a')}", ctx)
    with pytest.raises(ELError, match=r"function \[g\] failed"):
        evaluate("${g()}", ctx)


def test_el_function_coerces_arguments_like_jsp() -> None:
    seen: list[tuple[Any, ...]] = []

    @el_function(str, int, float, bool, object)
    def probe(a: str, b: int, c: float, d: bool, e: object) -> str:
        seen.append((a, b, c, d, e))
        return "ok"

    ctx = ELContext({}, {"p": probe})
    evaluate("${p(null, '12', 3, 'true', null)}", ctx)
    evaluate("${p(1.5, null, '2.5', null, 'x')}", ctx)
    assert seen == [("", 12, 3.0, True, None), ("1.5", 0, 2.5, False, "x")]
    with pytest.raises(ELError, match=r"function \[p\] argument 2: cannot coerce"):
        evaluate("${p('', 'abc', 1, true, 1)}", ctx)


def test_bundletui_errors_from_functions_pass_through_unchanged() -> None:
    original = SpecError("E1010", "Invalid data in coordinator xml. [x]")

    def strict(n: int) -> int:
        raise original

    with pytest.raises(SpecError) as info:
        evaluate("${c:f(1)}", ELContext({}, {"c:f": strict}))
    assert info.value is original

    def other() -> None:
        raise CommandError("E1100", "nope")

    with pytest.raises(CommandError):
        evaluate("a${c:g()}", ELContext({}, {"c:g": other}))


def test_runtime_error_positions_point_at_the_operator() -> None:
    with pytest.raises(ELError) as info:
        evaluate("path/${i + 'x'}", ELContext(VARS))
    assert info.value.column == 10
    assert info.value.expression == "${i + 'x'}"


# -- compile cache and static information -----------------------------------------------------


def test_templates_are_cached_by_text() -> None:
    assert compile_template("${a}-${b}") is compile_template("${a}-${b}")


def test_template_reports_variables_and_functions() -> None:
    t = compile_template("${a + m.k}/${coord:current(n)}${concat(x, 'y')}")
    assert t.variables == {"a", "m", "n", "x"}
    assert t.functions == {"coord:current", "concat"}
    assert t.is_single_expression is False
    assert compile_template("${a}").is_single_expression is True
    assert compile_template("text").is_literal is True


def test_no_python_eval_reachable() -> None:
    ctx = ELContext({"__builtins__": {}}, {})
    for text in ["${__import__('os')}", "${().__class__}", "${'a'.__class__}"]:
        with pytest.raises(ELError):
            evaluate(text, ctx)


# -- properties (hypothesis) ------------------------------------------------------------------

LONGS = st.integers(min_value=-(2**63), max_value=2**63 - 1)


def _wrap(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


@given(LONGS, LONGS)
def test_long_arithmetic_matches_java(a: int, b: int) -> None:
    ctx = ELContext({"a": a, "b": b})
    assert evaluate("${a + b}", ctx) == _wrap(a + b)
    assert evaluate("${a - b}", ctx) == _wrap(a - b)
    assert evaluate("${a * b}", ctx) == _wrap(a * b)
    if b != 0:
        expected = abs(a) % abs(b) * (-1 if a < 0 else 1)
        assert evaluate("${a % b}", ctx) == expected
    assert evaluate("${a < b}", ctx) is (a < b)
    assert evaluate("${'' + a == a}", ctx) is True


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=30))
def test_string_literals_round_trip(text: str) -> None:
    quoted = "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    assert evaluate("${" + quoted + "}", ELContext()) == text


@given(st.text(max_size=40))
def test_literal_text_without_dollar_brace_is_unchanged(text: str) -> None:
    if "${" in text:
        return
    assert evaluate(text, ELContext()) == text


def test_cached_evaluation_is_fast() -> None:
    """Sanity bound only (the figure is printed by bench/bench_el.py): ~2 µs here, allow 100."""
    import time

    ctx = ELContext(
        {"base": "/d"}, {"coord:current": el_function(int)(lambda n: "2009-01-01T00:00Z")}
    )
    text = "${base}/${coord:current(-1)}"
    evaluate(text, ctx)
    n = 5_000
    start = time.perf_counter()
    for _ in range(n):
        evaluate(text, ctx)
    assert (time.perf_counter() - start) / n < 100e-6


@pytest.mark.parametrize("op", ["+", "*", " and ", "=="])
def test_an_expression_nested_past_the_limit_is_e1004_not_a_recursion_error(op: str) -> None:
    """A 600-term chain nests 600 levels deep: compiling it recursed past Python's stack (a
    traceback, and an engine retrying the launch for ever). 200 levels are refused cleanly."""
    with pytest.raises(ELError) as info:
        evaluate("${" + op.join(["1"] * 600) + "}", ELContext({}, {}))
    assert info.value.code == "E1004"
    assert "nested more than 200 levels deep" in info.value.message
    assert evaluate("${" + "+".join(["1"] * 150) + "}", ELContext({}, {})) == 150

"""EL syntax: template splitting, tokens, precedence and associativity, syntax errors with columns."""

from __future__ import annotations

import pytest

from bundletui.errors import SpecError
from bundletui.spec.el import ELContext, ELError, compile_template, evaluate
from bundletui.spec.el.nodes import ExprPart, TextPart, dump
from bundletui.spec.el.parser import parse_template


def tree(expr: str) -> str:
    parts = parse_template("${" + expr + "}")
    assert len(parts) == 1
    part = parts[0]
    assert isinstance(part, ExprPart)
    return dump(part.node)


# -- templates --------------------------------------------------------------------------------


def test_template_splits_text_and_expressions() -> None:
    parts = parse_template("a${x}b${y}${z}c")
    kinds = [type(p).__name__ for p in parts]
    assert kinds == ["TextPart", "ExprPart", "TextPart", "ExprPart", "ExprPart", "TextPart"]
    sources = [p.source for p in parts if isinstance(p, ExprPart)]
    assert sources == ["${x}", "${y}", "${z}"]


def test_escaped_dollar_brace_is_literal_text() -> None:
    parts = parse_template("cost \\${x} and ${y}")
    assert parts[0] == TextPart("cost ${x} and ")
    assert isinstance(parts[1], ExprPart)


def test_closing_brace_inside_string_does_not_end_expression() -> None:
    parts = parse_template("${concat('a}', \"}b\")}!")
    assert isinstance(parts[0], ExprPart)
    assert parts[0].source == "${concat('a}', \"}b\")}"
    assert parts[1] == TextPart("!")


def test_dollar_without_brace_and_lone_braces_are_text() -> None:
    assert parse_template("$5 {x} $ {y}") == [TextPart("$5 {x} $ {y}")]


def test_empty_template() -> None:
    assert parse_template("") == [TextPart("")]
    assert evaluate("", ELContext()) == ""


def test_expression_positions_are_absolute_in_template() -> None:
    parts = parse_template("ab${x}")
    assert isinstance(parts[1], ExprPart)
    assert parts[1].start == 2
    assert parts[1].node.pos == 4


# -- literals and tokens ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("42", 42),
        ("0", 0),
        ("007", 7),
        ("1.5", 1.5),
        ("1.", 1.0),
        (".5", 0.5),
        ("1e3", 1000.0),
        ("2.5E-1", 0.25),
        ("true", True),
        ("false", False),
        ("null", None),
    ],
)
def test_number_and_keyword_literals(expr: str, value: object) -> None:
    result = evaluate("${" + expr + "}", ELContext())
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("'abc'", "abc"),
        ('"abc"', "abc"),
        ("'a\\'b'", "a'b"),
        ('"a\\"b"', 'a"b'),
        ("'a\\\"b'", 'a"b'),
        ("'a\\\\b'", "a\\b"),
        ("'say \"hi\"'", 'say "hi"'),
        ("'\\d+'", "\\d+"),  # unknown escapes are kept, so Java regexes survive
        ("''", ""),
    ],
)
def test_string_literals(literal: str, value: str) -> None:
    assert evaluate("${" + literal + "}", ELContext()) == value


def test_keywords_are_case_sensitive_identifiers_otherwise() -> None:
    ctx = ELContext({"AND": 1, "True": 2})
    assert evaluate("${AND + True}", ctx) == 3


def test_identifiers_may_contain_dollar_and_underscore() -> None:
    assert evaluate("${_a$b}", ELContext({"_a$b": "v"})) == "v"


# -- precedence -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("1 + 2 * 3", "(1 + (2 * 3))"),
        ("1 * 2 + 3", "((1 * 2) + 3)"),
        ("1 - 2 - 3", "((1 - 2) - 3)"),
        ("8 / 4 / 2", "((8 / 4) / 2)"),
        ("8 div 4 mod 3", "((8 / 4) % 3)"),
        ("-a * b", "((-a) * b)"),
        ("- -a", "(-(-a))"),
        ("!a && b", "((!a) && b)"),
        ("not a == b", "((!a) == b)"),
        ("empty a == b", "((empty a) == b)"),
        ("a || b && c", "(a || (b && c))"),
        ("a or b and c", "(a || (b && c))"),
        ("a == b && c != d", "((a == b) && (c != d))"),
        ("a < b == c > d", "((a < b) == (c > d))"),
        ("a lt b eq c gt d", "((a < b) == (c > d))"),
        ("a + 1 < b * 2", "((a + 1) < (b * 2))"),
        ("a ? b : c ? d : e", "(a ? b : (c ? d : e))"),
        ("a ? b ? c : d : e", "(a ? (b ? c : d) : e)"),
        ("a || b ? c : d", "((a || b) ? c : d)"),
        ("(1 + 2) * 3", "((1 + 2) * 3)"),
        ("a.b.c", "a['b']['c']"),
        ("a['b'][0]", "a['b'][0]"),
        ("-a.b", "(-a['b'])"),
        ("empty m['k']", "(empty m['k'])"),
        ("wf:actionData('n')['key']", "wf:actionData('n')['key']"),
        ("f(1, g(2, 3))", "f(1, g(2, 3))"),
        ("ns:f()", "ns:f()"),
        ("a le b and c ge d", "((a <= b) && (c >= d))"),
        ("a ne b", "(a != b)"),
    ],
)
def test_precedence_and_associativity(expr: str, expected: str) -> None:
    assert tree(expr) == expected


def test_negative_number_literal_is_folded() -> None:
    assert tree("coord:current(-1)") == "coord:current(-1)"


def test_namespaced_call_needs_no_spaces_around_colon() -> None:
    # "c ? a : f(x)" is a conditional, not a call of "a:f"
    assert tree("c ? a : f(x)") == "(c ? a : f(x))"
    assert tree("c ? wf:id() : 'x'") == "(c ? wf:id() : 'x')"
    assert tree("c?a:b") == "(c ? a : b)"


def test_precedence_evaluates_as_jsp() -> None:
    ctx = ELContext()
    assert evaluate("${1 + 2 * 3}", ctx) == 7
    assert evaluate("${(1 + 2) * 3}", ctx) == 9
    assert evaluate("${10 - 2 - 3}", ctx) == 5
    assert evaluate("${true || false && false}", ctx) is True
    assert evaluate("${not true == false}", ctx) is True  # (not true) == false
    assert evaluate("${1 < 2 == 2 < 3}", ctx) is True


# -- syntax errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "column", "fragment"),
    [
        ("${a +}", 6, "expected a value, found '}'"),
        ("${}", 1, "empty expression"),
        ("xx${a = 1}", 7, "unexpected character '='"),
        ("${a & b}", 5, "unexpected character '&'"),
        ("${a b}", 5, "unexpected 'b'"),
        ("${'abc}", 3, "unterminated string literal"),
        ("abc ${a", 5, "missing closing '}'"),
        ("${(1 + 2}", 9, "expected ')'"),
        ("${f(1, }", 8, "expected a value"),
        ("${a[1}", 6, "expected ']'"),
        ("${a.}", 5, "expected a property name"),
        ("${a ? b}", 8, "expected ':'"),
        ("${a instanceof b}", 5, "reserved word"),
        ("${99999999999999999999}", 3, "too large"),
        ("${${a}}", 4, "unexpected character '{'"),
        ("${a.true}", 5, "expected a property name"),
        ("${#}", 3, "unexpected character '#'"),
    ],
)
def test_syntax_errors_name_expression_and_column(
    template: str, column: int, fragment: str
) -> None:
    with pytest.raises(ELError) as info:
        compile_template(template)
    err = info.value
    assert isinstance(err, SpecError)
    assert err.code == "E1004"
    assert fragment in err.message
    assert err.column == column, err.message
    assert f"at column {column}" in err.message
    assert "${" in err.expression
    assert err.expression in err.message or err.message.count("...")


def test_syntax_error_on_later_line_reports_line_and_column() -> None:
    with pytest.raises(ELError) as info:
        compile_template("first line\n  value ${a +* b}")
    assert info.value.template_line == 2
    assert info.value.column == 14
    assert "line 2, column 14" in info.value.message


def test_syntax_error_hint_for_missing_operator() -> None:
    with pytest.raises(ELError) as info:
        compile_template("${'a' 'b'}")
    assert info.value.hint is not None and "concat" in info.value.hint


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(ELError, match="nested too deeply"):
        compile_template("${" + "(" * 500 + "1" + ")" * 500 + "}")
    with pytest.raises(ELError, match="nested too deeply"):
        compile_template("${" + "-" * 500 + "1}")


def test_only_later_expression_invalid_still_fails_whole_template() -> None:
    with pytest.raises(ELError) as info:
        compile_template("${a} and ${b +}")
    assert info.value.expression == "${b +}"

"""Query strings the way both kinds of client write them (oozie-rest-clients.md §6.4)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bundletui.api.handlers import _without_premater
from bundletui.api.params import Params, parse_query
from bundletui.errors import ApiError


def test_raw_and_encoded_read_the_same() -> None:
    raw = "jobtype=coordinator&filter=user=u;status=A;status=B;&offset=1&len=5000"
    encoded = "jobtype=coordinator&filter=user%3Du%3Bstatus%3DA%3Bstatus%3DB%3B&offset=1&len=5000"
    assert (
        parse_query(raw)
        == parse_query(encoded.encode())
        == {
            "jobtype": "coordinator",
            "filter": "user=u;status=A;status=B;",
            "offset": "1",
            "len": "5000",
        }
    )


def test_first_occurrence_wins_and_odd_pairs() -> None:
    assert parse_query("a=1&a=2&&b&=x&c=") == {"a": "1", "b": "", "c": ""}
    assert parse_query("scope=2026-01-01T00%3A00Z%3A%3A2026-01-02T00%3A00Z") == {
        "scope": "2026-01-01T00:00Z::2026-01-02T00:00Z"
    }
    assert parse_query(b"x=%ZZ&y=%FF") == {"x": "%ZZ", "y": "\ufffd"}


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1).filter(
    lambda s: s.strip() == s
)


@given(st.dictionaries(names, st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)))))
def test_form_encoding_round_trips(values: dict[str, str]) -> None:
    assert parse_query(urlencode(values)) == values


def test_typed_lookups() -> None:
    p = Params({"len": " 7 ", "offset": "", "refresh": "TRUE", "bad": "x", "huge": "99999999999"})
    assert (p.integer("len", 1), p.integer("offset", 1), p.integer("missing", 3)) == (7, 1, 3)
    assert p.boolean("refresh") is True and p.boolean("missing") is False
    for name, fn in (("bad", p.integer), ("huge", p.integer)):
        with pytest.raises(ApiError) as err:
            fn(name, 0)
        assert err.value.code == "E0304"
    with pytest.raises(ApiError) as err:
        p.boolean("bad")
    assert err.value.code == "E0303"


def test_premater_clauses() -> None:
    assert _without_premater("user=u;status=PREP") == ("user=u;status=PREP", False)
    assert _without_premater("user=u;status=premater;status=PREP;") == ("user=u;status=PREP", False)
    assert _without_premater("status=PREMATER;name=x") == ("name=x", True)

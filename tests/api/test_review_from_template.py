"""``ApiError.from_template``: Oozie's message for a code, as an API error (HTTP 400 unless
told), and the replies the handlers build with it unchanged.

Review: the classmethod ApiError inherited passed ``usage`` to an ``__init__`` that took
none, so calling it was a TypeError; the handlers wrote the same messages by hand.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from bundletui.errors import ApiError
from tests.api.conftest import Live


def test_from_template_builds_an_api_error() -> None:
    made = ApiError.from_template("E0303", "len", "x", hint="len is a number")
    assert type(made) is ApiError
    assert (made.code, made.message, made.hint, made.status, made.usage) == (
        "E0303",
        "Invalid parameter value, [len] = [x]",
        "len is a number",
        400,
        False,
    )
    assert ApiError.from_template("E0305", "action").message == "Missing parameter [action]"
    assert ApiError.from_template("E0604", "X-W").message == "Job does not exist [X-W]"


@pytest.fixture
def http(bare: Live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=bare.url + "/", timeout=30) as client:
        yield client


def test_the_handlers_templated_errors_read_as_before(http: httpx.Client) -> None:
    cases = [
        (http.put("v2/jobs"), "E0305", "Missing parameter [action]", "action=kill|suspend|resume"),
        (
            http.put("v2/jobs", params={"action": "stop"}),
            "E0303",
            "Invalid parameter value, [action] = [stop]",
            "bulk actions are kill, suspend and resume",
        ),
        (
            http.get("v2/job/nope"),
            "E0604",
            "Job does not exist [nope]",
            "ids end in -B (bundle), -C (coordinator), -C@n, -W or -W@node",
        ),
        (
            http.get("v2/jobs", params={"timezone": "Bogus/Zone"}),
            "E0303",
            "Invalid parameter value, [timezone] = [Bogus/Zone]",
            None,
        ),
    ]
    for reply, code, message, hint in cases:
        assert reply.status_code == 400, reply.text
        body = reply.json()
        assert (body["code"], body["message"]) == (code, message), body
        if hint is not None:
            assert body["hint"] == hint, body
        assert reply.headers["oozie-error-message"] == f"{code}: {message}"

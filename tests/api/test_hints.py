"""Error replies speak HTTP: their hints name query parameters and endpoints (``filter=…``,
``?action=change&value=…``, ``GET /oozie/v2/jobs?jobtype=…``), never the CLI's options or
commands (``--filter``, ``-value``, ``bundletui jobs``), which an HTTP client does not have; and
an empty submission says that the body is empty, not that its content type is wrong."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bundletui.api.hints import api_hint
from tests.api.conftest import FEEDS, NAIVE_BAYES, Live, conf_xml, in_past, oozie_time, start_live

XML = {"Content-Type": "application/xml;charset=UTF-8"}
PACKAGE = Path(__file__).resolve().parents[2] / "bundletui"

# Written independently of bundletui.api.hints: a long option, an Oozie-CLI option (``-value``;
# not an id suffix such as ``-W@node`` nor a relative time such as ``-2d``), ``-D k=v``, or a
# bundletui command.
CLI = re.compile(
    r"(?<![\w-])--[a-z]|(?<![\w-])-[a-z]{2,}\b|(?<![\w-])-D [\w.]+="
    r"|\bbundletui (?:jobs|info|run|oozie|eval|change|rerun|kill|submit|start|log)\b"
)


NEEDS_A_PARAMETER = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="needs">
  <parameters><property><name>needed</name></property></parameters>
  <start to="end"/>
  <end name="end"/>
</workflow-app>
"""


@pytest.fixture
def lhttp(live: Live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.url + "/", timeout=30) as client:
        yield client


def error_hint(r: httpx.Response, code: str) -> str:
    assert r.status_code == 400, r.text
    assert r.headers["oozie-error-code"] == code, r.headers
    body = r.json()
    assert body["code"] == code
    hint: str = body["hint"]
    assert not CLI.search(hint), hint
    return hint


def test_command_hints_name_http_parameters(lhttp: httpx.Client, live: Live) -> None:
    start = in_past(3)
    coord = {
        "user.name": "joe",
        "oozie.coord.application.path": str(FEEDS / "ingest" / "coordinator.xml"),
        "start": oozie_time(start),
        "end": oozie_time(start.replace(year=start.year + 1)),
        "landing": str(live.landing),
    }
    r = lhttp.post("v2/jobs", content=conf_xml(coord), headers=XML)
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    wf = lhttp.post(
        "v2/jobs",
        content=conf_xml(
            {
                "user.name": "joe",
                "oozie.wf.application.path": str(NAIVE_BAYES),
                "outputDir": str(live.tmp / "nb"),
            }
        ),
        headers=XML,
    ).json()["id"]

    # listings and action pages: filter=…, not --filter '…'
    hint = error_hint(
        lhttp.get("v2/jobs", params={"jobtype": "coordinator", "filter": "x=1"}), "E0420"
    )
    assert "e.g. filter=status=RUNNING;name=daily" in hint
    hint = error_hint(lhttp.get("v2/jobs", params={"filter": "x=1"}), "E0420")
    assert "filter=status=RUNNING" in hint
    hint = error_hint(lhttp.get(f"v2/job/{cid}", params={"len": "5", "filter": "x=1"}), "E0421")
    assert hint.startswith("e.g. filter=status=WAITING;")

    # change: ?action=change&value=…, not -value '…'
    hint = error_hint(
        lhttp.put(f"v2/job/{cid}", params={"action": "change", "value": "x=1"}), "E1015"
    )
    assert "?action=change&value=pausetime=" in hint
    # QA: an empty value's example was in shell quotes
    hint = error_hint(lhttp.put(f"v2/job/{cid}", params={"action": "change", "value": ""}), "E1015")
    assert hint == "e.g. ?action=change&value=endtime=2026-12-31T00:00Z;concurrency=2", hint

    # unknown jobs: the listing endpoint, not bundletui jobs --type …
    unknown = "0000099-000000000000000-bundletui-x"
    hint = error_hint(lhttp.get(f"v2/job/{unknown}-C"), "E0604")
    assert "GET /oozie/v2/jobs?jobtype=coordinator" in hint
    hint = error_hint(lhttp.get(f"v2/job/{unknown}-B"), "E0604")
    assert "GET /oozie/v2/jobs?jobtype=bundle" in hint
    hint = error_hint(lhttp.get(f"v2/job/{unknown}-W"), "E0604")
    assert "GET /oozie/v2/jobs?jobtype=" in hint
    hint = error_hint(lhttp.get(f"v2/job/{cid}@999"), "E0605")
    assert "GET /oozie/v2/job/<coordinator id>?len=" in hint

    # action scopes: type=…&scope=…, not --action / --date
    kill_scoped = {"action": "kill", "type": "action", "scope": "1"}
    hint = error_hint(lhttp.put(f"v2/job/{wf}", params=kill_scoped), "E0302")
    assert "type=action|date&scope=" in hint
    no_dates = {"action": "kill", "type": "date", "scope": "2001-01-01T00:00Z::2001-01-02T00:00Z"}
    hint = error_hint(lhttp.put(f"v2/job/{cid}", params=no_dates), "E0605")
    assert f"GET /oozie/v2/job/{cid}?len=" in hint
    hint = error_hint(
        lhttp.put(f"v2/job/{cid}@1", params={"action": "rerun"}, headers=XML), "E0302"
    )
    assert "action=coord-rerun&type=action|date&scope=" in hint

    # a workflow's rerun: the properties of the XML body, not -D k=v
    hint = error_hint(lhttp.put(f"v2/job/{wf}", params={"action": "rerun"}, headers=XML), "E0401")
    assert "<configuration> body" in hint and "oozie.wf.rerun.failnodes=true" in hint

    # a submission missing a parameter: a <property> of the body, not -D name=value
    app = live.tmp / "needs-a-parameter" / "workflow.xml"
    app.parent.mkdir()
    app.write_text(NEEDS_A_PARAMETER)
    props = {"user.name": "joe", "oozie.wf.application.path": str(app)}
    hint = error_hint(lhttp.post("v2/jobs", content=conf_xml(props), headers=XML), "E0738")
    assert "as <property> elements of the <configuration> body" in hint


def test_the_token_hint_names_no_command_line(tmp_path: Path) -> None:
    server = start_live(tmp_path, engine=False, token="s3cret")
    try:
        r = httpx.get(f"{server.url}/versions")
        assert (r.status_code, r.headers["oozie-error-code"]) == (401, "E0500")
        hint = r.json()["hint"]
        assert "Authorization: Bearer" in hint and not CLI.search(hint), hint
    finally:
        server.close()


def test_hints_only_the_command_line_can_follow_are_dropped() -> None:
    assert (
        api_hint("submit a job first, or pass --home to the directory holding bundletui.db") is None
    )
    assert api_hint("e.g. --start-time 2026-01-01T00:00Z") is None
    assert api_hint("ids end in -B (bundle), -C (coordinator), -C@n, -W or -W@node") == (
        "ids end in -B (bundle), -C (coordinator), -C@n, -W or -W@node"
    )
    assert api_hint("use yyyy-MM-ddTHH:mmZ or a relative time such as -2d, -3h, -5m") == (
        "use yyyy-MM-ddTHH:mmZ or a relative time such as -2d, -3h, -5m"
    )
    assert api_hint(None) is None


def _literal(node: ast.expr) -> str | None:
    """A hint as written: a string, a concatenation, or an f-string with ``X`` for its fields."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return f"{_literal(node.left) or 'X'}{_literal(node.right) or 'X'}"
    return None


def _source_hints() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] in ("cli", "tui"):
            continue  # the faces that are the command line
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, OSError, UnicodeDecodeError):
            continue  # being edited
        names = {
            node.targets[0].id: _literal(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "hint":
                text = _literal(node.value)
                if text is None and isinstance(node.value, ast.Name):
                    text = names.get(node.value.id)
                if text:
                    yield f"{path.relative_to(PACKAGE)}:{node.lineno}", text


def test_no_hint_of_the_code_base_reaches_a_client_naming_the_command_line() -> None:
    hints = list(_source_hints())
    assert len(hints) > 100
    cli_hints = [(where, text) for where, text in hints if CLI.search(text)]
    assert cli_hints, "the command layer's hints name CLI options: translated at the API face"
    for where, text in hints:
        told = api_hint(text)
        assert told is None or not CLI.search(told), (where, text, told)
    # the common ones are translated, not dropped
    for text in (
        "list coordinators with: bundletui jobs --type coordinator",
        "keys: a, b; e.g. --filter 'status=RUNNING;name=daily'",
        "keys: a, b; e.g. -value 'pausetime=2026-01-01T00:00Z'",
        "give exactly one of --action 1,3-4 or --date d1::d2",
        "an operator put it there; bundletui oozie admin -systemmode NORMAL ends it",
    ):
        assert api_hint(text), text


def test_an_empty_submission_says_the_body_is_empty(lhttp: httpx.Client) -> None:
    for headers in (XML, {"Content-Type": "text/xml"}, {}, {"Content-Type": "text/plain"}):
        for body in (b"", b" \r\n\t"):
            r = lhttp.post("v2/jobs", content=body, headers=headers)
            assert r.status_code == 400, r.text
            assert r.headers["oozie-error-code"] == "E0701", r.headers
            message = r.headers["oozie-error-message"]
            assert message.startswith("E0701: ") and "body is empty" in message, message
            assert "content-type" not in message.lower(), message
            reply = r.json()
            assert reply["code"] == "E0701" and "Hadoop configuration XML" in reply["message"]
            assert "<configuration>" in reply["hint"] and "application/xml" in reply["hint"]
    # a body that is there is still refused for its content type, as Oozie's
    r = lhttp.post("v2/jobs", content=b"<configuration/>", headers={"Content-Type": "text/plain"})
    assert (r.status_code, r.headers["oozie-error-code"]) == (400, "E0300")
    assert lhttp.get("v2/jobs").json()["total"] == 0


def test_a_relative_app_path_over_http_is_told_it_starts_at_the_home(
    lhttp: httpx.Client, live: Live
) -> None:
    """A body has no file: the CLI's "relative paths start at the config file's directory"
    was wrong over HTTP, where they start at the home."""
    body = conf_xml({"user.name": "joe", "oozie.wf.application.path": "nothere"})
    for params in ({"action": "dryrun"}, None):
        r = lhttp.post("v2/jobs", params=params, content=body, headers=XML)
        assert (r.status_code, r.headers["oozie-error-code"]) == (400, "E0710"), r.text
        assert str(live.home / "nothere") in r.json()["message"]
        assert r.json()["hint"] == (
            "check the application path (a relative path over HTTP starts at the server's home "
            "directory; give an absolute one)"
        )

"""``wf:`` functions over a small state object, and ``fs:`` functions on real files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.spec.el import (
    ELContext,
    ELError,
    WorkflowELState,
    basic_functions,
    evaluate,
    fs_functions,
    local_path,
    wf_functions,
)


@dataclass
class FakeWorkflow:
    """Stands in for the engine's workflow job (the engine implements WorkflowELState)."""

    id: str = "0000001-090306100731000-bundletui-joe-W"
    name: str = "wf-app"
    app_path: str = "file:///apps/wf"
    user: str = "joe"
    group: str = "users"
    run: int = 2
    current_action_id: str | None = "0000001-090306100731000-bundletui-joe-W@act"
    properties: dict[str, str] = field(default_factory=lambda: {"a": "A", "queue.name": "default"})
    transitions: dict[str, str] = field(default_factory=lambda: {"start": "act", "act": "end"})
    errors: dict[str, tuple[str, str]] = field(default_factory=lambda: {"bad": ("JA018", "exit 1")})
    data: dict[str, dict[str, str]] = field(default_factory=lambda: {"act": {"b": "B", "n": "3"}})
    external: dict[str, tuple[str, str, str]] = field(
        default_factory=lambda: {"act": ("pid-42", "file:///logs/act", "SUCCEEDED")}
    )
    last_error: str | None = "bad"

    def conf(self, name: str) -> str | None:
        return self.properties.get(name)

    def transition(self, node: str) -> str | None:
        return self.transitions.get(node)

    def last_error_node(self) -> str | None:
        return self.last_error

    def error_code(self, node: str) -> str | None:
        return self.errors.get(node, (None, None))[0]

    def error_message(self, node: str) -> str | None:
        return self.errors.get(node, (None, None))[1]

    def action_data(self, node: str) -> Mapping[str, str] | None:
        return self.data.get(node)

    def action_external_id(self, node: str) -> str | None:
        return self.external.get(node, (None, None, None))[0]

    def action_tracker_uri(self, node: str) -> str | None:
        return self.external.get(node, (None, None, None))[1]

    def action_external_status(self, node: str) -> str | None:
        return self.external.get(node, (None, None, None))[2]


NOW = datetime(2009, 1, 1, tzinfo=UTC)


def wf_ctx(state: WorkflowELState | None = None) -> ELContext:
    state = state or FakeWorkflow()
    functions = {**basic_functions(lambda: NOW), **wf_functions(state)}
    return ELContext({"a": "A"}, functions)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("wf:id()", "0000001-090306100731000-bundletui-joe-W"),
        ("wf:name()", "wf-app"),
        ("wf:appPath()", "file:///apps/wf"),
        ("wf:conf('a')", "A"),
        ("wf:conf('queue.name')", "default"),
        ("wf:conf('missing')", ""),
        ("wf:user()", "joe"),
        ("wf:group()", "users"),
        ("wf:run()", 2),
        ("wf:run() + 1", 3),
        ("wf:transition('act')", "end"),
        ("wf:transition('never-ran')", ""),
        ("wf:lastErrorNode()", "bad"),
        ("wf:errorCode('bad')", "JA018"),
        ("wf:errorMessage('bad')", "exit 1"),
        ("wf:errorCode('act')", ""),
        ("wf:actionData('act')['b']", "B"),
        ("wf:actionData('act').n * 2", 6),
        ("wf:actionData('nothing')", {}),
        ("wf:actionData('nothing')['b']", None),
        ("empty wf:actionData('nothing')", True),
        ("wf:actionExternalId('act')", "pid-42"),
        ("wf:actionTrackerUri('act')", "file:///logs/act"),
        ("wf:actionExternalStatus('act')", "SUCCEEDED"),
        ("wf:actionExternalStatus('nope')", ""),
        ("toJsonStr(wf:actionData('act'))", '{"b":"B","n":"3"}'),
        ("wf:lastErrorNode() == 'bad' ? wf:errorMessage(wf:lastErrorNode()) : 'ok'", "exit 1"),
    ],
)
def test_wf_functions(expr: str, value: object) -> None:
    assert evaluate("${" + expr + "}", wf_ctx()) == value


def test_wf_callback_names_action_and_status() -> None:
    url = evaluate("${wf:callback('XX')}", wf_ctx())
    assert url.startswith("http://localhost:11000/oozie/callback?")
    assert "id=0000001-090306100731000-bundletui-joe-W@act" in url
    assert url.endswith("status=XX")
    no_action = FakeWorkflow(current_action_id=None)
    assert "id=0000001-090306100731000-bundletui-joe-W&" in evaluate(
        "${wf:callback('S')}", wf_ctx(no_action)
    )


def test_wf_last_error_node_empty_when_none() -> None:
    assert evaluate("${wf:lastErrorNode()}", wf_ctx(FakeWorkflow(last_error=None))) == ""


def test_wf_functions_see_live_state() -> None:
    state = FakeWorkflow()
    ctx = wf_ctx(state)
    assert evaluate("${wf:transition('later')}", ctx) == ""
    state.transitions["later"] = "end"
    assert evaluate("${wf:transition('later')}", ctx) == "end"


def test_wf_action_data_is_a_copy() -> None:
    state = FakeWorkflow()
    result = evaluate("${wf:actionData('act')}", wf_ctx(state))
    result["b"] = "changed"
    assert state.data["act"]["b"] == "B"


def test_wf_functions_in_mixed_template() -> None:
    text = "${wf:name()}-${wf:run()}/${wf:conf('a')}${wf:actionData('act').b}"
    assert evaluate(text, wf_ctx()) == "wf-app-2/AB"


def test_wf_function_wrong_arity() -> None:
    with pytest.raises(ELError, match=r"function \[wf:conf\] expects 1 argument, got 0"):
        evaluate("${wf:conf()}", wf_ctx())


# -- fs: --------------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "data" / "2009" / "01").mkdir(parents=True)
    (tmp_path / "data" / "2009" / "01" / "_SUCCESS").write_bytes(b"")
    (tmp_path / "data" / "2009" / "01" / "part-0").write_bytes(b"x" * 100)
    (tmp_path / "data" / "2009" / "01" / "part-1").write_bytes(b"y" * 23)
    (tmp_path / "data" / "2009" / "01" / "sub").mkdir()
    (tmp_path / "data" / "2009" / "01" / "sub" / "big").write_bytes(b"z" * 1000)
    (tmp_path / "data" / "2009" / "02").mkdir()
    (tmp_path / "data" / ".hidden").write_bytes(b"h")
    return tmp_path


def fs_ctx(root: Path) -> ELContext:
    functions = {**basic_functions(lambda: NOW), **fs_functions(base=root)}
    return ELContext({"root": str(root), "uri": root.as_uri()}, functions)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("fs:exists(concat(root, '/data/2009/01/_SUCCESS'))", True),
        ("fs:exists(concat(uri, '/data/2009/01/_SUCCESS'))", True),
        ("fs:exists(concat(uri, '/data/2009/03'))", False),
        ("fs:exists('data/2009/01')", True),  # relative to the base directory
        ("fs:exists('data/2009/*/_SUCCESS')", True),
        ("fs:exists('data/2009/0[2-3]')", True),
        ("fs:exists('data/2009/0[^1-2]')", False),
        ("fs:exists('data/2009/{03,01}/part-?')", True),
        ("fs:exists('data/2009/{03,04}')", False),
        ("fs:exists('data/.hid*')", True),
        ("fs:isDir('data/2009/01')", True),
        ("fs:isDir('data/2009/01/part-0')", False),
        ("fs:isDir('data/nope')", False),
        ("fs:dirSize('data/2009/01')", 123),  # non-recursive: sub/big not counted
        ("fs:dirSize('data/2009/02')", 0),
        ("fs:dirSize('data/2009/01/part-0')", -1),
        ("fs:dirSize('data/nope')", -1),
        ("fs:fileSize('data/2009/01/part-0')", 100),
        ("fs:fileSize('data/2009/01')", -1),
        ("fs:fileSize('data/nope')", -1),
        ("fs:blockSize('data/2009/01')", -1),
        (
            "fs:fileSize(concat(root, '/data/2009/01/part-1')) + fs:dirSize(concat(uri, '/data/2009/01'))",
            146,
        ),
    ],
)
def test_fs_functions(tree: Path, expr: str, value: object) -> None:
    assert evaluate("${" + expr + "}", fs_ctx(tree)) == value


def test_fs_block_size_positive_for_files(tree: Path) -> None:
    assert evaluate("${fs:blockSize('data/2009/01/part-0')}", fs_ctx(tree)) > 0


def test_local_path_forms(tmp_path: Path) -> None:
    assert local_path("file:///tmp/x") == Path("/tmp/x")
    assert local_path("file:/tmp/x") == Path("/tmp/x")
    assert local_path("file://localhost/tmp/x") == Path("/tmp/x")
    assert local_path("/tmp/x") == Path("/tmp/x")
    assert local_path("rel/x", tmp_path) == tmp_path / "rel" / "x"


def test_fs_rejects_remote_uris(tree: Path) -> None:
    with pytest.raises(SpecError) as info:
        evaluate("${fs:exists('hdfs://nn:8020/data')}", fs_ctx(tree))
    assert info.value.code == "E1004"
    assert "local path" in info.value.message
    with pytest.raises(SpecError):
        local_path("file://otherhost/x")


def test_fs_custom_resolver_maps_hdfs_onto_a_local_root(tree: Path) -> None:
    def resolve(uri: str) -> Path:
        return tree / uri.removeprefix("hdfs://nn:8020/")

    ctx = ELContext({}, fs_functions(resolve=resolve))
    assert evaluate("${fs:exists('hdfs://nn:8020/data/2009/01/_SUCCESS')}", ctx) is True


@pytest.mark.parametrize("arg", ["''", "'  '", "'data/2009'", "'file:data'"])
def test_fs_without_a_base_refuses_empty_and_relative_paths(arg: str) -> None:
    """The engine gives no base: a relative path would be read against its working directory."""
    ctx = ELContext({}, {**basic_functions(lambda: NOW), **fs_functions()})
    with pytest.raises(SpecError) as info:
        evaluate("${fs:exists(" + arg + ")}", ctx)
    assert info.value.code == "E1004"
    assert ("empty" if not arg.strip("' ") else "cannot be relative") in info.value.message


def test_fs_empty_path_refused_even_with_a_base(tree: Path) -> None:
    with pytest.raises(SpecError, match="empty"):
        evaluate("${fs:isDir('')}", fs_ctx(tree))

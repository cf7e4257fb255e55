"""The Oozie workflow sample: schema-shaped XML, sound graph, and scripts that work.

The walk-through test runs the scripts along the success path with the argv taken
from workflow.xml; only parameters, `wf:appPath()`, `wf:id()` and
`wf:actionData(node)[key]` are substituted, by regex, from captured stdout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from tests.samples.helpers import OOZIE_WF, parse_properties

WF_NS = "uri:oozie:workflow:1.0"
SHELL_NS = "uri:oozie:shell-action:1.0"
NS = {"w": WF_NS, "s": SHELL_NS}
WORKFLOW = OOZIE_WF / "workflow.xml"
IDENTIFIER = re.compile(r"([a-zA-Z_]([\-_a-zA-Z0-9])*){1,39}")
NODE_TAGS = {"start", "end", "kill", "decision", "fork", "join", "action"}
ACTION_DATA = re.compile(r"\$\{wf:actionData\('([\w-]+)'\)\['(\w+)'\]\}")
PREDICATE = re.compile(r"\$\{wf:actionData\('([\w-]+)'\)\['(\w+)'\] gt (\d+)\}")


def root() -> etree._Element:
    return etree.parse(str(WORKFLOW)).getroot()


def nodes() -> dict[str, etree._Element]:
    out: dict[str, etree._Element] = {}
    for el in root():
        if not isinstance(el.tag, str):
            continue  # comments
        tag = etree.QName(el).localname
        if tag in NODE_TAGS - {"start"}:
            assert el.get("name") not in out, f"duplicate node {el.get('name')}"
            out[el.get("name")] = el
    return out


def transitions(el: etree._Element) -> list[str]:
    """Every node name `el` can go to."""
    targets = [t.get("to") for t in el.iterfind("w:ok", NS)]
    targets += [t.get("to") for t in el.iterfind("w:error", NS)]
    targets += [t.get("to") for t in el.iterfind("w:switch/*", NS)]
    targets += [p.get("start") for p in el.iterfind("w:path", NS)]
    if etree.QName(el).localname == "join":
        targets.append(el.get("to"))
    return targets


def test_namespaces() -> None:
    r = root()
    assert r.tag == f"{{{WF_NS}}}workflow-app"
    shells = r.findall("w:action/s:shell", NS)
    assert len(shells) == 4
    for el in r.iter(etree.Element):
        ns = etree.QName(el).namespace
        inside_shell = any(etree.QName(a).localname == "shell" for a in el.iterancestors())
        if etree.QName(el).localname == "shell" or inside_shell:
            assert ns == SHELL_NS, el.tag
        else:
            assert ns == WF_NS, el.tag


def test_graph_is_sound() -> None:
    r = root()
    graph = nodes()
    assert all(IDENTIFIER.fullmatch(n) for n in graph)
    start = r.find("w:start", NS).get("to")
    # Every transition targets an existing node; every node is reachable from start.
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        assert name in graph, f"transition to unknown node {name}"
        if name not in seen:
            seen.add(name)
            todo.extend(transitions(graph[name]))
    assert seen == set(graph)

    # Acyclic (depth-first search with colours).
    state: dict[str, int] = {}

    def visit(n: str) -> None:
        assert state.get(n) != 1, f"cycle through {n}"
        if state.get(n) == 2:
            return
        state[n] = 1
        for t in transitions(graph[n]):
            visit(t)
        state[n] = 2

    visit(start)


def test_has_the_required_node_kinds() -> None:
    graph = nodes()
    kinds = {n: etree.QName(el).localname for n, el in graph.items()}

    decision = graph["has-rows"]
    case = decision.find("w:switch/w:case", NS)
    assert case.text == "${wf:actionData('check')['rows'] gt 0}"
    assert case.get("to") == "prepare"
    assert decision.find("w:switch/w:default", NS).get("to") == "empty-input"

    fork = graph["fork-counts"]
    paths = [p.get("start") for p in fork.iterfind("w:path", NS)]
    assert paths == ["count-words", "count-lines"]
    for p in paths:  # both branches go straight to the join on success, to the kill on error
        assert graph[p].find("w:ok", NS).get("to") == "join-counts"
        assert kinds[graph[p].find("w:error", NS).get("to")] == "kill"
    assert kinds["join-counts"] == "join"

    kills = {
        n: el.findtext("w:message", namespaces=NS) for n, el in graph.items() if kinds[n] == "kill"
    }
    assert set(kills) == {"empty-input", "fail"}
    assert all(m.strip() for m in kills.values())
    assert "${wf:lastErrorNode()}" in kills["fail"]

    fs_ops = {etree.QName(op).localname for op in root().iterfind("w:action/w:fs/*", NS)}
    assert {"mkdir", "touchz", "delete"} <= fs_ops

    assert graph["report"].get("retry-max") == "2"
    assert graph["report"].get("retry-interval") == "1"
    captured = {n for n, el in graph.items() if el.find("s:shell/s:capture-output", NS) is not None}
    assert captured == {"check", "count-words", "count-lines"}
    for action in root().iterfind("w:action", NS):
        for arg in action.iterfind("s:shell/s:argument", NS):
            if arg.text and arg.text.startswith("${wf:appPath()}/") and arg.text.endswith(".py"):
                assert (OOZIE_WF / arg.text.removeprefix("${wf:appPath()}/")).is_file()


def test_job_properties_and_parameters() -> None:
    props = parse_properties((OOZIE_WF / "job.properties").read_text())
    assert props["oozie.wf.application.path"] == "."
    params = {
        p.findtext("w:name", namespaces=NS): p.findtext("w:value", namespaces=NS)
        for p in root().iterfind("w:parameters/w:property", NS)
    }
    # outputDir has no default: "." failed at the first fs action (QA (n)); submit asks for it
    assert params == {"inputName": "input.txt", "outputDir": None, "reportFailures": "0"}
    assert (OOZIE_WF / "data" / params["inputName"]).is_file()


class Walker:
    """Runs one action's argv from workflow.xml with the sample's few EL forms resolved."""

    def __init__(self, workdir: Path, **params: str) -> None:
        self.workdir = workdir
        self.graph = nodes()
        self.values = {
            "wf:appPath()": str(OOZIE_WF),
            "wf:id()": "0000001-000000000000000-bundletui-W",
            "inputName": "input.txt",
            "outputDir": str(workdir / "out"),
            "reportFailures": "0",
            **params,
        }
        self.data: dict[str, dict[str, str]] = {}

    def resolve(self, text: str) -> str:
        text = ACTION_DATA.sub(lambda m: self.data[m[1]][m[2]], text)
        for key, value in self.values.items():
            text = text.replace("${" + key + "}", value)
        assert "${" not in text, text
        return text

    def decide(self, name: str) -> str:
        for case in self.graph[name].iterfind("w:switch/w:case", NS):
            m = PREDICATE.fullmatch(case.text.strip())
            assert m, case.text
            if int(self.data[m[1]][m[2]]) > int(m[3]):
                return case.get("to")
        return self.graph[name].find("w:switch/w:default", NS).get("to")

    def fs(self, name: str) -> None:
        for op in self.graph[name].find("w:fs", NS):
            path = Path(self.resolve(op.get("path")))
            match etree.QName(op).localname:
                case "delete":
                    shutil.rmtree(path, ignore_errors=True)
                case "mkdir":
                    path.mkdir(parents=True, exist_ok=True)
                case "touchz":
                    path.touch()

    def start(self, name: str) -> subprocess.Popen[str]:
        shell = self.graph[name].find("s:shell", NS)
        argv = [self.resolve(shell.findtext("s:exec", namespaces=NS))]
        argv += [self.resolve(a.text or "") for a in shell.iterfind("s:argument", NS)]
        argv[0] = sys.executable if argv[0] == "python3" else argv[0]
        env = dict(os.environ)
        for ev in shell.iterfind("s:env-var", NS):
            key, _, value = self.resolve(ev.text).partition("=")
            env[key] = value
        return subprocess.Popen(
            argv,
            cwd=self.workdir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def finish(self, name: str, proc: subprocess.Popen[str]) -> int:
        out, err = proc.communicate(timeout=60)
        assert "Traceback" not in err
        if (
            self.graph[name].find("s:shell/s:capture-output", NS) is not None
            and proc.returncode == 0
        ):
            assert len(out.encode()) <= 2048
            self.data[name] = parse_properties(out)
        return proc.returncode

    def run(self, name: str) -> int:
        return self.finish(name, self.start(name))


def test_walk_through_success_path(tmp_path: Path) -> None:
    w = Walker(tmp_path)
    assert w.run("check") == 0
    assert w.data["check"] == {
        "rows": "5",
        "bytes": str((OOZIE_WF / "data/input.txt").stat().st_size),
    }
    assert w.decide("has-rows") == "prepare"
    out = tmp_path / "out" / "report"
    out.mkdir(parents=True)
    (out / "stale.txt").write_text("from an earlier run")
    w.fs("prepare")
    assert out.is_dir() and not any(out.iterdir())

    procs = {n: w.start(n) for n in ("count-words", "count-lines")}  # the fork
    assert all(w.finish(n, p) == 0 for n, p in procs.items())  # the join
    text = (OOZIE_WF / "data/input.txt").read_text()
    assert w.data["count-words"] == {"words": str(len(text.split()))}
    assert w.data["count-lines"] == {"lines": str(len(text.splitlines()))}

    assert w.run("report") == 0
    w.fs("mark-done")
    assert (out / "report.txt").read_text().splitlines() == [
        "workflow: 0000001-000000000000000-bundletui-W",
        "input: input.txt",
        "lines: 5",
        f"words: {len(text.split())}",
    ]
    assert (out / "_SUCCESS").is_file()


def test_empty_input_takes_the_default_branch(tmp_path: Path) -> None:
    w = Walker(tmp_path, inputName="empty.txt")
    assert w.run("check") == 0
    assert w.data["check"]["rows"] == "0"
    assert w.decide("has-rows") == "empty-input"


def test_missing_input_is_an_action_error(tmp_path: Path) -> None:
    w = Walker(tmp_path, inputName="no-such-file.txt")
    assert w.run("check") == 1
    assert w.graph["check"].find("w:error", NS).get("to") == "fail"


@pytest.mark.parametrize(("failures", "codes"), [(0, [0]), (1, [75, 0]), (3, [75, 75, 75])])
def test_report_fails_the_requested_number_of_times(
    tmp_path: Path, failures: int, codes: list[int]
) -> None:
    """retry-max=2 allows 3 attempts: one planned failure recovers, three do not."""
    w = Walker(tmp_path, reportFailures=str(failures))
    w.data = {"count-words": {"words": "7"}, "count-lines": {"lines": "2"}}
    w.fs("prepare")
    attempts = 1 + int(w.graph["report"].get("retry-max"))
    got = []
    for _ in range(attempts):
        got.append(w.run("report"))
        if got[-1] == 0:
            break
    assert got == codes
    assert (tmp_path / "out" / "report" / "report.txt").exists() == (codes[-1] == 0)

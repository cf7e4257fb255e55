"""The naive-Bayes sample is a real classifier: run its jobs as the DAG would.

The argv of every job is taken from workflow.xml itself (only `${...}` parameters
are substituted here, by plain string replacement), so these tests also prove that
the DAG definition wires the scripts together correctly.
"""

from __future__ import annotations

import math
import subprocess
import sys
from graphlib import TopologicalSorter
from pathlib import Path

import pytest
from lxml import etree

from tests.samples.helpers import NAIVE_BAYES, parse_properties

DAG_NS = "uri:bundletui:dag:1.0"
NS = {"d": DAG_NS}
WORKFLOW = NAIVE_BAYES / "workflow.xml"


def _q(tag: str) -> str:
    return f"{{{DAG_NS}}}{tag}"


def load_jobs() -> tuple[dict[str, set[str]], dict[str, list[str]], dict[str, str]]:
    """(depends, argv, capture) per job, and parameter defaults, from workflow.xml."""
    root = etree.parse(str(WORKFLOW)).getroot()
    depends: dict[str, set[str]] = {}
    argv: dict[str, list[str]] = {}
    for job in root.iterfind("d:job", NS):
        name = job.get("name")
        depends[name] = {d.text for d in job.iterfind("d:depends", NS)}
        shell = job.find("d:shell", NS)
        argv[name] = [shell.findtext("d:exec", namespaces=NS)] + [
            a.text or "" for a in shell.iterfind("d:argument", NS)
        ]
    params = {
        p.findtext("d:name", namespaces=NS): p.findtext("d:value", namespaces=NS) or ""
        for p in root.iterfind("d:parameters/d:property", NS)
    }
    return depends, argv, params


def resolve(arg: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        arg = arg.replace("${" + key + "}", value)
    assert "${" not in arg, f"unresolved expression in {arg!r}"
    return arg


def run_dag(workdir: Path, **overrides: str) -> dict[str, subprocess.CompletedProcess[str]]:
    """Run the DAG's jobs wave by wave; jobs of one wave run concurrently."""
    depends, argv, params = load_jobs()
    values = {"wf:appPath()": str(NAIVE_BAYES), **params, **overrides}
    sorter = TopologicalSorter(depends)
    sorter.prepare()
    results: dict[str, subprocess.CompletedProcess[str]] = {}
    while sorter.is_active():
        wave = sorter.get_ready()
        procs = {}
        for name in wave:
            cmd = [resolve(a, values) for a in argv[name]]
            cmd[0] = sys.executable if cmd[0] == "python3" else cmd[0]
            procs[name] = subprocess.Popen(
                cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        for name, proc in procs.items():
            out, err = proc.communicate(timeout=60)
            results[name] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
            assert proc.returncode == 0, f"{name} failed: {err}"
            sorter.done(name)
    return results


def read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()[1:]]


def test_dag_trains_and_classifies_accurately(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    results = run_dag(tmp_path, traceFile=str(trace))

    # Default outputDir "." = the jobs' working directory.
    predictions = read_tsv(tmp_path / "predictions.tsv")
    test_docs = read_tsv(NAIVE_BAYES / "data" / "test.tsv")
    assert [p[0] for p in predictions] == [d[0] for d in test_docs]
    assert all(p[2] in {"sports", "tech", "food"} for p in predictions)

    props = parse_properties(results["predict"].stdout)
    accuracy = float(props["accuracy"])
    assert accuracy >= 0.8
    correct = sum(p[1] == p[2] for p in predictions)
    assert int(props["correct"]) == correct
    assert int(props["total"]) == len(test_docs)
    assert math.isclose(accuracy, correct / len(test_docs), abs_tol=1e-4)
    # capture-output limit (oozie.action.max.output.data = 2 KB)
    assert len(results["predict"].stdout.encode()) <= 2048

    # Every job ran exactly once, extract first and predict last.
    lines = trace.read_text().splitlines()
    assert sorted(lines) == sorted(f"{j} ran" for j in results)
    assert lines[0] == "extract ran" and lines[-1] == "predict ran"


def test_dag_shape_is_the_jobcontrol_example() -> None:
    depends, argv, params = load_jobs()
    assert depends == {
        "extract": set(),
        "class-prior": {"extract"},
        "cond-prob": {"extract"},
        "predict": {"class-prior", "cond-prob"},
    }
    assert params == {"outputDir": ".", "traceFile": "", "jobSleep": "0"}
    for name, cmd in argv.items():
        script = Path(cmd[1].replace("${wf:appPath()}", str(NAIVE_BAYES)))
        assert script.is_file(), f"{name}: {script} missing"


def test_workflow_xml_is_well_formed_in_dag_namespace() -> None:
    root = etree.parse(str(WORKFLOW)).getroot()
    assert root.tag == _q("dag-app")
    assert root.get("name") == "naive-bayes"
    assert root.get("max-parallel") == "2"
    for el in root.iter(etree.Element):
        assert etree.QName(el).namespace == DAG_NS, el.tag
    names = [j.get("name") for j in root.iterfind("d:job", NS)]
    assert len(names) == len(set(names)) == 4
    capture = {
        j.get("name")
        for j in root.iterfind("d:job", NS)
        if j.find("d:shell/d:capture-output", NS) is not None
    }
    assert capture == {"predict"}


def test_job_properties_points_at_the_app() -> None:
    props = parse_properties((NAIVE_BAYES / "job.properties").read_text())
    assert props["oozie.wf.application.path"] == "."
    assert (NAIVE_BAYES / props["oozie.wf.application.path"] / "workflow.xml").is_file()


def _script(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(NAIVE_BAYES / name), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_laplace_smoothing_matches_hand_computation(tmp_path: Path) -> None:
    (tmp_path / "train.tsv").write_text(
        "doc_id\tlabel\ttext\nd1\tsports\tGoal, goal! The match.\nd2\tfood\tcake match\n"
    )
    assert (
        _script("extract.py", "--data", "train.tsv", "--out", "f.tsv", cwd=tmp_path).returncode == 0
    )
    assert (
        _script("class_prior.py", "--features", "f.tsv", "--out", "p.tsv", cwd=tmp_path).returncode
        == 0
    )
    assert (
        _script("cond_prob.py", "--features", "f.tsv", "--out", "c.tsv", cwd=tmp_path).returncode
        == 0
    )

    assert read_tsv(tmp_path / "f.tsv") == [
        ["d1", "sports", "goal goal match"],
        ["d2", "food", "cake match"],
    ]
    priors = {r[0]: (int(r[1]), float(r[2])) for r in read_tsv(tmp_path / "p.tsv")}
    assert priors == {"food": (1, 0.5), "sports": (1, 0.5)}
    # |V| = 3 (cake, goal, match); sports has 3 tokens, food 2; alpha = 1.
    cond = {(r[0], r[1]): (int(r[2]), float(r[3])) for r in read_tsv(tmp_path / "c.tsv")}
    expected = {
        ("sports", "goal"): (2, 3 / 6),
        ("sports", "match"): (1, 2 / 6),
        ("sports", "cake"): (0, 1 / 6),
        ("food", "cake"): (1, 2 / 5),
        ("food", "match"): (1, 2 / 5),
        ("food", "goal"): (0, 1 / 5),
    }
    assert cond.keys() == expected.keys()
    for key, (count, prob) in expected.items():
        assert cond[key][0] == count
        assert math.isclose(cond[key][1], prob, rel_tol=1e-9)

    (tmp_path / "test.tsv").write_text(
        "doc_id\tlabel\ttext\nx1\tsports\tgoal\nx2\tfood\tcake and unseen words\n"
    )
    r = _script(
        "predict.py",
        "--test",
        "test.tsv",
        "--priors",
        "p.tsv",
        "--cond-prob",
        "c.tsv",
        "--out",
        "out/pred.tsv",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert parse_properties(r.stdout) == {"accuracy": "1.0000", "correct": "2", "total": "2"}
    assert read_tsv(tmp_path / "out" / "pred.tsv") == [
        ["x1", "sports", "sports"],
        ["x2", "food", "food"],
    ]


def test_predict_fails_below_min_accuracy(tmp_path: Path) -> None:
    run_dag(tmp_path)
    r = _script(
        "predict.py",
        "--test",
        str(NAIVE_BAYES / "data" / "test.tsv"),
        "--priors",
        "priors.tsv",
        "--cond-prob",
        "cond_prob.tsv",
        "--out",
        "p2.tsv",
        "--min-accuracy",
        "0.99",
        cwd=tmp_path,
    )
    assert r.returncode == 1
    assert float(parse_properties(r.stdout)["accuracy"]) < 0.99


@pytest.mark.parametrize("script", ["extract.py", "class_prior.py", "cond_prob.py"])
def test_missing_input_is_a_clean_error(tmp_path: Path, script: str) -> None:
    flag = "--data" if script == "extract.py" else "--features"
    r = _script(script, flag, "nope.tsv", "--out", "x.tsv", cwd=tmp_path)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "nope.tsv" in r.stderr
    assert not (tmp_path / "x.tsv").exists()
    assert list(tmp_path.iterdir()) == []  # no stray temp files either


def test_empty_trace_path_disables_tracing(tmp_path: Path) -> None:
    r = _script(
        "extract.py",
        "--data",
        str(NAIVE_BAYES / "data" / "train.tsv"),
        "--out",
        "f.tsv",
        "--trace=",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.tsv"]

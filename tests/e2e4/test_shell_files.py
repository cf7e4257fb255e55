"""A shell action's ``<file>`` and ``<archive>``: linked into the job's working directory
when it starts, as Hadoop's distributed cache does for Oozie's launcher (QA found them
accepted and ignored, so Oozie's usual ``<exec>run.sh</exec><file>run.sh</file>`` failed).
Real CLI, real engine on the simulated clock, real processes, real archives."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e4.conftest import Bt4

T0, T1 = "2026-01-01T00:00Z", "2026-01-01T00:05Z"


def workflow(*actions: str) -> str:
    nodes, names = [], [a.split('"')[1] for a in actions]
    for i, body in enumerate(actions):
        nxt = names[i + 1] if i + 1 < len(names) else "end"
        nodes.append(f'{body}\n    </shell>\n    <ok to="{nxt}"/><error to="fail"/>\n  </action>')
    return (
        '<workflow-app xmlns="uri:oozie:workflow:1.0" name="files">\n'
        f'  <start to="{names[0]}"/>\n  '
        + "\n  ".join(nodes)
        + '\n  <kill name="fail"><message>failed at ${wf:lastErrorNode()}</message></kill>\n'
        '  <end name="end"/>\n</workflow-app>\n'
    )


def shell(name: str, exec_: str, *inner: str) -> str:
    return (
        f'<action name="{name}">\n    <shell xmlns="uri:oozie:shell-action:1.0">'
        f"<exec>{exec_}</exec>" + "".join(inner)
    )


def tgz(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def app(bt: Bt4, xml: str) -> Path:
    bt.apps.write("wf/workflow.xml", xml)
    return bt.apps.props("wf.properties", {"oozie.wf.application.path": "wf"})


def test_files_and_archives_are_in_the_working_directory_and_exec_runs_a_shipped_script(
    bt: Bt4,
) -> None:
    root = bt.apps.root / "wf"
    script = bt.apps.write(
        "wf/bin/run.sh",
        "#!/bin/sh\ncat lookup; cat deps/inner/a.txt; cat more.zip/b.txt\n"
        'test -n "$OOZIE_ACTION_CONF_XML" && test -f "$OOZIE_ACTION_CONF_XML" && echo conf\n',
    )
    script.chmod(0o644)  # not executable: YARN's localizer makes it so, and so do we
    bt.apps.write("wf/data.txt", "looked up\n")
    (root / "deps.tar.gz").write_bytes(tgz({"inner/a.txt": b"from the tarball\n"}))
    with zipfile.ZipFile(root / "more.zip", "w") as z:
        z.writestr("b.txt", "from the zip\n")
    xml = workflow(
        shell(
            "use",
            "run.sh",
            "<file>bin/run.sh#run.sh</file>",
            "<file>data.txt#lookup</file>",
            "<archive>deps.tar.gz#deps</archive>",
            "<archive>${wf:appPath()}/more.zip</archive>",
        ),
        shell(
            "writes",
            "sh",
            "<argument>-c</argument><argument>echo mine &gt; clash</argument>",
        ),
        shell("clashes", "true", "<file>data.txt#clash</file>"),
    )
    wf = bt.submit_job(app(bt, xml), start=True)
    bt.sim(T0, T1)
    info = bt.info_json(wf)
    nodes = {a["name"]: a for a in info["actions"]}
    assert nodes["use"]["status"] == "OK", nodes["use"]["errorMessage"]
    assert bt.cli("log", f"{wf}@use").stdout == (
        "looked up\nfrom the tarball\nfrom the zip\nconf\n"
    )
    assert oct(script.stat().st_mode & 0o777) == "0o644"  # the user's file is not changed
    # a name a job wrote is not replaced: the attempt fails and says why
    assert nodes["clashes"]["status"] == "ERROR"
    assert nodes["clashes"]["errorCode"] == "EB0507"
    assert "is in the way" in nodes["clashes"]["errorMessage"]
    assert (bt.home / "work" / wf / "clash").read_text() == "mine\n"


def test_submit_checks_literal_entries_with_their_line(bt: Bt4) -> None:
    bt.apps.write("wf/data.txt", "x")
    cases = {
        "<file>missing.txt</file>": ("JA008", "missing.txt"),
        "<file>data.txt#a/b</file>": ("EB0720", "not a plain file name"),
        "<archive>data.txt</archive>": ("EB0720", "not an archive bundletui unpacks"),
        "<file>hdfs://nn/x.txt</file>": ("FS002", "hdfs"),
        "<file>data.txt#d</file><archive>data.tar#d</archive>": ("EB0720", "takes the name [d]"),
    }
    bt.apps.write("wf/data.tar", "")
    for inner, (code, words) in cases.items():
        props = app(bt, workflow(shell("s", "true", inner)))
        r = bt.fails("submit", str(props), code=code)
        assert words in r.stderr and "workflow.xml:4:" in r.stderr, r
    assert not (bt.home / "bundletui.db").exists()  # a refused submit leaves no store behind


def test_a_file_missing_when_the_action_starts_fails_it_with_ja008(bt: Bt4) -> None:
    props = app(bt, workflow(shell("s", "true", "<file>${dir}/later.txt</file>")))
    wf = bt.submit_job(props, {"dir": str(bt.tmp)}, start=True)
    bt.sim(T0, T1)
    (node,) = [a for a in bt.info_json(wf)["actions"] if a["name"] == "s"]
    assert node["errorCode"] == "JA008" and "later.txt does not exist" in node["errorMessage"]


def zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("name", "pack", "member"),
    [
        ("evil.tgz", tgz, "../../escaped.txt"),
        ("evil.zip", zipped, "../../escaped.txt"),  # shutil dropped it without a word
        ("evil.zip", zipped, "/tmp/escaped.txt"),
    ],
)
def test_an_archive_member_escaping_its_directory_is_refused(
    bt: Bt4, name: str, pack: Callable[[dict[str, bytes]], bytes], member: str
) -> None:
    root = bt.apps.root / "wf"
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_bytes(pack({"ok.txt": b"fine\n", member: b"no\n"}))
    wf = bt.submit_job(
        app(bt, workflow(shell("s", "true", f"<archive>{name}</archive>"))), start=True
    )
    bt.sim(T0, T1)
    (node,) = [a for a in bt.info_json(wf)["actions"] if a["name"] == "s"]
    assert node["errorCode"] == "EB0507" and "cannot unpack" in node["errorMessage"]
    assert member.lstrip("/.") in node["errorMessage"]
    assert not list(bt.home.rglob("escaped.txt"))
    assert not list(bt.home.rglob("ok.txt"))  # nothing of it is left half-unpacked


def test_exec_dot_slash_runs_the_file_brought_under_that_name(bt: Bt4) -> None:
    """QA: ``<exec>./run.sh</exec>`` with ``<file>run.sh</file>`` ran the link to the user's
    file, not executable (exit 126); ``run.sh`` names the same program, and worked."""
    script = bt.apps.write("wf/run.sh", "#!/bin/sh\necho ran from $(basename $(pwd))\n")
    script.chmod(0o644)
    wf = bt.submit_job(app(bt, workflow(shell("a", "./run.sh", "<file>run.sh</file>"))), start=True)
    bt.sim(T0, T1)
    nodes = {a["name"]: a for a in bt.info_json(wf)["actions"]}
    assert nodes["a"]["status"] == "OK", nodes["a"]["errorMessage"]
    assert bt.cli("log", f"{wf}@a").stdout == f"ran from {wf}\n"


def test_last_error_node_is_the_last_of_failures_that_end_together(bt: Bt4) -> None:
    """QA: on the simulated clock (and in one millisecond on the real one) ``s1`` failing
    into ``s2``, which failed too, made ``${wf:lastErrorNode()}`` name ``s1``."""
    xml = (
        '<workflow-app xmlns="uri:oozie:workflow:1.0" name="chain">\n  <start to="s1"/>\n  '
        + shell("s1", "sh", "<argument>-c</argument><argument>exit 1</argument>")
        + '\n    </shell>\n    <ok to="end"/><error to="s2"/>\n  </action>\n  '
        + shell("s2", "sh", "<argument>-c</argument><argument>exit 2</argument>")
        + '\n    </shell>\n    <ok to="end"/><error to="fail"/>\n  </action>\n'
        '  <kill name="fail"><message>failed at [${wf:lastErrorNode()}] code'
        " ${wf:errorCode(wf:lastErrorNode())}</message></kill>\n"
        '  <end name="end"/>\n</workflow-app>\n'
    )
    wf = bt.submit_job(app(bt, xml), start=True)
    bt.sim(T0, T1)
    info = bt.info_json(wf)
    assert info["status"] == "KILLED"
    assert "failed at [s2] code 2" in info["errorMessage"], info["errorMessage"]


def archived(name: str, ok: str, script: str) -> str:
    """A shell action running ``sh -c script`` with ``deps.tar.gz`` unpacked as ``d``."""
    return (
        f'<action name="{name}"><shell xmlns="uri:oozie:shell-action:1.0"><exec>sh</exec>'
        f"<argument>-c</argument><argument>{script}</argument>"
        f'<archive>deps.tar.gz#d</archive></shell><ok to="{ok}"/><error to="fail"/>'
        "</action>\n"
    )


def run_forked(bt: Bt4, text: bytes, *actions: str) -> str:
    """A workflow forking into ``a`` and ``b``, joined at ``j``, with ``deps.tar.gz`` holding
    ``x.txt`` = ``text``; run on the simulated clock; its id."""
    (bt.apps.root / "wf").mkdir(parents=True, exist_ok=True)
    (bt.apps.root / "wf" / "deps.tar.gz").write_bytes(tgz({"x.txt": text}))
    xml = (
        '<workflow-app xmlns="uri:oozie:workflow:1.0" name="forked">\n  <start to="f"/>\n'
        '  <fork name="f"><path start="a"/><path start="b"/></fork>\n'
        + "".join(actions)
        + '  <join name="j" to="end"/>\n'
        '  <kill name="fail"><message>${wf:errorMessage(wf:lastErrorNode())}</message></kill>\n'
        '  <end name="end"/>\n</workflow-app>\n'
    )
    wf = bt.submit_job(app(bt, xml), start=True)
    bt.sim(T0, T1)
    info = bt.info_json(wf)
    assert info["status"] == "SUCCEEDED", info.get("errorMessage")
    return wf


def test_two_nodes_of_a_fork_share_an_archive(bt: Bt4) -> None:
    """Review: with the unpacking moved after the launch's commit, the second node of a fork
    unpacked the shared archive afresh while the first already ran in it (cat: No such
    file). Every node of a tick is made ready before any starts."""
    script = "cd d &amp;&amp; sleep 0.5 &amp;&amp; cat x.txt"
    wf = run_forked(bt, b"shared\n", archived("a", "j", script), archived("b", "j", script))
    assert bt.cli("log", f"{wf}@a").stdout == bt.cli("log", f"{wf}@b").stdout == "shared\n"


def test_a_job_still_in_an_archive_keeps_it_when_a_later_job_unpacks_it_again(bt: Bt4) -> None:
    """Review: a job that had ``cd``-ed into its archive lost the directory when a later job
    of the run, launched in another tick, unpacked the same archive afresh. The earlier
    unpacking now stays while a job of the run may work in it."""
    # a waits in its archive for the flag c writes, then reads from it
    waits = 'w=$(pwd); cd d &amp;&amp; while [ ! -e "$w/flag" ]; do sleep 0.05; done; cat x.txt'
    wf = run_forked(
        bt,
        b"kept\n",
        archived("a", "j", waits),
        archived("b", "c", "true"),
        archived("c", "j", "touch flag"),
    )
    assert bt.cli("log", f"{wf}@a").stdout == "kept\n"


def test_an_archive_unpacked_again_replaces_the_last_one_when_nothing_works_in_it(
    bt: Bt4,
) -> None:
    (bt.apps.root / "wf").mkdir(parents=True, exist_ok=True)
    (bt.apps.root / "wf" / "deps.tar.gz").write_bytes(tgz({"x.txt": b"again\n"}))
    uses = (
        "<argument>-c</argument><argument>cat d/x.txt</argument>",
        "<archive>deps.tar.gz#d</archive>",
    )
    wf = bt.submit_job(
        app(bt, workflow(shell("a", "sh", *uses), shell("b", "sh", *uses))), start=True
    )
    bt.sim(T0, T1)
    assert bt.info_json(wf)["status"] == "SUCCEEDED"
    unpacked = bt.home / "work" / wf / ".localized" / "archives" / "d"
    assert [p.name for p in unpacked.iterdir() if not p.name.startswith(".")] == [
        os.readlink(bt.home / "work" / wf / "d").rsplit("/", 1)[-1]
    ]  # a's went when b unpacked it again: one copy, the one the link names

"""retry-max is capped at 3, as Oozie's ``user.retry.max`` does (E0820), end to end.

A node that always fails, declared with retry-max="10", runs 4 times (1 + 3 retries) and the
workflow is killed; ``info`` shows the retries it gets (userRetryMax 3); ``validate`` says so in
a note naming the file, line and node. A retry-max within the cap is kept as written.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Bt, trace_lines

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="capped">
  <start to="flaky"/>
  <action name="flaky" retry-max="{retry_max}" retry-interval="1">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <exec>python3</exec>
      <argument>-c</argument>
      <argument>import sys; open(sys.argv[1], "a").write("flaky\\n"); sys.exit(3)</argument>
      <argument>${{trace}}</argument>
    </shell>
    <ok to="end"/>
    <error to="boom"/>
  </action>
  <kill name="boom"><message>flaky gave up</message></kill>
  <end name="end"/>
</workflow-app>
"""


def write_app(root: Path, retry_max: str) -> Path:
    (root / "workflow.xml").write_text(WORKFLOW.format(retry_max=retry_max))
    props = root / "job.properties"
    props.write_text(f"oozie.wf.application.path=.\ntrace={root / 'trace'}\n")
    return props


def test_a_retry_max_over_three_retries_three_times_and_says_so(bt: Bt, tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    props = write_app(app, "10")

    r = bt.cli("validate", str(app / "workflow.xml"), "--config", str(props))
    assert r.stdout.splitlines()[1:] == [
        f"  note: {app / 'workflow.xml'}:3: E0820: retry-max [10] of node [flaky] is more "
        "than 3: it is retried 3 times at most"
    ]
    listed = json.loads(
        bt.cli("validate", str(app / "workflow.xml"), "--config", str(props), "--json").stdout
    )
    assert [len(v["notes"]) for v in listed] == [1]

    bt.engine("--clock", "simulated", "--start-time", "2026-01-01T00:00Z")
    wf = bt.submit(props)
    info = bt.wait(wf)
    assert info["status"] == "KILLED", info
    flaky = next(a for a in info["actions"] if a["name"] == "flaky")
    assert (flaky["attempt"], flaky["retries"], flaky["userRetryMax"]) == (4, 3, 3)
    assert trace_lines(app / "trace") == ["flaky"] * 4


def test_a_retry_max_within_the_cap_is_kept_and_validate_has_no_note(
    bt: Bt, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    props = write_app(app, "2")
    r = bt.cli("validate", str(app / "workflow.xml"), "--config", str(props))
    assert r.stdout.strip() == f"Valid workflow-app: {app / 'workflow.xml'}"

    bt.engine("--clock", "simulated", "--start-time", "2026-01-01T00:00Z")
    wf = bt.submit(props)
    info = bt.wait(wf)
    assert info["status"] == "KILLED", info
    flaky = next(a for a in info["actions"] if a["name"] == "flaky")
    assert (flaky["attempt"], flaky["userRetryMax"]) == (3, 2)
    assert trace_lines(app / "trace") == ["flaky"] * 3

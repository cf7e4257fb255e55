"""A sub-workflow is resolved on the engine's clock: under a simulated clock its submit-time EL
(``timestamp()`` in its name) reads the simulated time, as its parent's does."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Bt

STAMPED = '<dag-app xmlns="uri:bundletui:dag:1.0" name="{name}-${{timestamp()}}">{job}</dag-app>'


def test_a_sub_workflow_reads_the_simulated_clock_like_its_parent(bt: Bt, tmp_path: Path) -> None:
    app = tmp_path / "app"
    (app / "child").mkdir(parents=True)
    (app / "workflow.xml").write_text(
        STAMPED.format(
            name="parent",
            job='<job name="child"><sub-workflow><app-path>child</app-path>'
            "<propagate-configuration/></sub-workflow></job>",
        )
    )
    (app / "child" / "workflow.xml").write_text(
        STAMPED.format(name="child", job='<job name="touch"><fs><touchz path="${out}"/></fs></job>')
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    bt.engine("--clock", "simulated", "--start-time", "2026-01-01T00:00Z")
    wf = bt.submit(app / "job.properties", {"out": str(tmp_path / "touched")})
    parent = bt.wait(wf)
    assert parent["status"] == "SUCCEEDED", bt.nodes(wf)

    child = bt.peek(bt.peek(f"{wf}@child")["externalId"])
    assert parent["appName"] == "parent-2026-01-01T00:00Z"  # submitted while the engine ran
    assert child["appName"] == "child-2026-01-01T00:00Z"

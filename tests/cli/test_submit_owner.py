"""A job always has an owner: a blank ``user.name`` is the submitting user, as through the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bundletui.store.db import current_user
from tests.cli import bundletui

SAMPLE = Path(__file__).resolve().parents[2] / "sample_bundles" / "naive-bayes" / "job.properties"


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_user_name_is_the_submitting_user(tmp_path: Path, blank: str) -> None:
    home = tmp_path / "home"
    done = bundletui("submit", str(SAMPLE), "-D", f"user.name={blank}", home=home)
    assert done.returncode == 0, done.stderr
    job_id = done.stdout.strip()
    me = current_user()
    assert f"-{me}-W" in job_id  # the id and the owner agree
    info = json.loads(bundletui("info", job_id, "--json", home=home).stdout)
    assert info["user"] == me
    assert info["conf"].count(f"<value>{me}</value>") >= 1


def test_user_name_and_the_landing_default_expand_in_job_properties(tmp_path: Path) -> None:
    """``${user.name}`` in job.properties is Oozie's everyday app path (``/user/${user.name}/…``):
    it expands to the submitting user, in the app path and in any property, and so does the
    ``landing`` default a job leaves unset."""
    me = current_user()
    app = tmp_path / "apps" / me
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="t"><job name="a"><shell>'
        "<exec>echo</exec><argument>${who}</argument><argument>${into}</argument>"
        "</shell></job></dag-app>"
    )
    props = tmp_path / "job.properties"
    props.write_text(
        f"oozie.wf.application.path={tmp_path}/apps/${{user.name}}/workflow.xml\n"
        "who=u-${user.name}\ninto=${landing}/x\n"
    )
    home = tmp_path / "home"
    done = bundletui("submit", str(props), home=home)
    assert done.returncode == 0, done.stderr
    info = json.loads(bundletui("info", done.stdout.strip(), "--json", home=home).stdout)
    assert f"<value>u-{me}</value>" in info["conf"]
    assert f"<value>{home / 'landing'}/x</value>" in info["conf"]
    assert "${" not in info["conf"]


def test_the_landing_default_expands_in_the_app_path(tmp_path: Path) -> None:
    """Review: ``${landing}`` expanded in a property, not in the app path itself."""
    home = tmp_path / "home"
    app = home / "landing" / "apps"
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="t"><job name="a"><shell>'
        "<exec>true</exec></shell></job></dag-app>"
    )
    props = tmp_path / "job.properties"
    props.write_text("oozie.wf.application.path=${landing}/apps/workflow.xml\n")
    done = bundletui("submit", str(props), home=home)
    assert done.returncode == 0, done.stderr
    info = json.loads(bundletui("info", done.stdout.strip(), "--json", home=home).stdout)
    assert info["appPath"] == str(app / "workflow.xml"), info["appPath"]
    dry = bundletui("dryrun", str(props), home=home)  # a workflow: refused, but found
    assert "is a workflow" in dry.stderr and "does not exist" not in dry.stderr, dry

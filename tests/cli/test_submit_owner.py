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

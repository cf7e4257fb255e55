"""A bulk kill / suspend / resume with a bad ``jobtype`` and no filter: both faces tell the
jobtype first (bundletui.commands.queries.bulk_kind), then the filter.

Review: ``PUT /jobs`` checked the filter before the jobtype, ``oozie jobs`` the other way
round.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from bundletui.cli.oozie import runner as oozie_cmds
from tests.api.conftest import Live

JOBTYPE = "Invalid parameter value, [jobtype] = [pipelines]"
JOBTYPE_HINT = "jobtype is wf, coordinator or bundle"
NO_FILTER = "filter params must be specified for bulk write API"


@pytest.fixture
def http(bare: Live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=bare.url + "/", timeout=30) as client:
        yield client


def cli_jobs(bare: Live, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = oozie_cmds.run("jobs", [*args, "-home", str(bare.home)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("op", ["kill", "suspend", "resume"])
@pytest.mark.parametrize("empty", [None, "", ";", "name="])
def test_a_bad_jobtype_is_told_before_a_missing_filter(
    bare: Live, http: httpx.Client, capsys: pytest.CaptureFixture[str], op: str, empty: str | None
) -> None:
    params = {"action": op, "jobtype": "pipelines"}
    flt: tuple[str, ...] = ()
    if empty is not None:
        params["filter"] = empty
        flt = ("-filter", empty)
    reply = http.put("v2/jobs", params=params)
    assert reply.status_code == 400, reply.text
    body = reply.json()
    assert (body["code"], body["message"], body["hint"]) == ("E0303", JOBTYPE, JOBTYPE_HINT)
    code, out, err = cli_jobs(bare, "-jobtype", "pipelines", *flt, f"-{op}", capsys=capsys)
    assert (code, out) == (255, "")
    assert err == f"Error: E0303 : E0303: {JOBTYPE}\n  hint: {JOBTYPE_HINT}\n"


def test_a_good_jobtype_with_no_filter_is_still_refused_for_the_filter(
    bare: Live, http: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = http.put("v2/jobs", params={"action": "kill", "jobtype": "coordinator"})
    assert reply.status_code == 400, reply.text
    assert (reply.json()["code"], reply.json()["message"]) == ("E0305", NO_FILTER)
    code, out, err = cli_jobs(bare, "-jobtype", "coordinator", "-kill", capsys=capsys)
    assert (code, out) == (255, "")
    assert err.startswith(f"Error: E0305 : E0305: {NO_FILTER}\n"), err

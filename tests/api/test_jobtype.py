"""``jobtype`` read one way by both faces: ``GET|PUT /oozie/v2/jobs?jobtype=…`` and
``bundletui oozie jobs -jobtype …`` (bundletui.commands.queries.job_kind).

QA: the CLI refused ``-jobtype workflow`` (E0303, exit 255) that the API listed, and the two
faces each had their own reading of the value, envelope and id keys. Oozie's server
(V1JobsServlet.getJobs) tests ``contains("wf")``, then ``"coord"``, then ``"bundle"``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bundletui.cli.oozie import runner as oozie_cmds
from bundletui.commands import queries
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.errors import CommandError
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from tests.api.conftest import Live
from tests.commands.sample_apps import write_apps

#: a value, and the listing both faces give for it
KINDS = {
    "": "workflows",
    "wf": "workflows",
    "WF": "workflows",
    " wf ": "workflows",
    "workflow": "workflows",
    "Workflows": "workflows",
    "coordinator": "coordinatorjobs",
    "coord": "coordinatorjobs",
    "Coordinators": "coordinatorjobs",
    "xcoordinator": "coordinatorjobs",  # the server's contains(), not the CLI's startsWith
    "bundle": "bundlejobs",
    "BUNDLES": "bundlejobs",
    "wfbundle": "workflows",  # "wf" is tested first, as Oozie's server does
}


@pytest.fixture
def http(bare: Live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=bare.url + "/", timeout=30) as client:
        yield client


@pytest.fixture
def ids(bare: Live) -> dict[str, str]:
    """One job of each kind (PREP: no engine), by the envelope that lists it."""
    apps = write_apps(bare.tmp / "apps")
    made = {}
    with Store(bare.home) as store:
        for envelope, props in (
            ("workflows", apps.workflow_props),
            ("coordinatorjobs", apps.hourly_props),
            ("bundlejobs", apps.bundle_props),
        ):
            made[envelope] = submit_loaded(
                Ctx(store), load_job(props, [], store.clock, user="alice")
            )
    return made


def cli_jobs(home: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = oozie_cmds.run("jobs", [*args, "-home", str(home)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_job_kind_reads_oozies_values() -> None:
    for value, envelope in KINDS.items():
        assert queries.LISTING_ENVELOPE[queries.job_kind(value)] == envelope, value
    assert queries.job_kind(None) == "wf"  # absent: Oozie's default
    for value in ("pipelines", "workflowz", "w f", "flow"):
        with pytest.raises(CommandError) as caught:
            queries.job_kind(value)
        assert (caught.value.code, caught.value.message) == (
            "E0303",
            f"Invalid parameter value, [jobtype] = [{value}]",
        )
    assert queries.LISTING_ID_KEY == {
        "wf": "id",
        "coordinator": "coordJobId",
        "bundle": "bundleJobId",
    }


def test_both_faces_list_the_same_kind_for_every_value(
    bare: Live, http: httpx.Client, ids: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    for value, envelope in KINDS.items():
        reply = http.get("v2/jobs", params={"jobtype": value})
        assert reply.status_code == 200, (value, reply.text)
        key = queries.LISTING_ID_KEY[queries.job_kind(value)]
        assert [job[key] for job in reply.json()[envelope]] == [ids[envelope]], value
        code, out, err = cli_jobs(bare.home, "-jobtype", value, capsys=capsys)
        assert (code, err) == (0, ""), (value, err)
        listed = [line.split()[0] for line in out.splitlines()[2:] if line.strip("-")]
        assert listed == [ids[envelope]], (value, out)


def test_both_faces_refuse_the_same_value_with_the_same_error(
    bare: Live, http: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    for value in ("pipelines", "Flows"):
        reply = http.get("v2/jobs", params={"jobtype": value})
        assert reply.status_code == 400, reply.text
        body = reply.json()
        message = f"Invalid parameter value, [jobtype] = [{value}]"
        hint = "jobtype is wf, coordinator or bundle"
        assert (body["code"], body["message"], body["hint"]) == ("E0303", message, hint)
        assert reply.headers["oozie-error-message"] == f"E0303: {message}"
        code, out, err = cli_jobs(bare.home, "-jobtype", value, capsys=capsys)
        assert (code, out) == (255, "")
        assert err == f"Error: E0303 : E0303: {message}\n  hint: {hint}\n"
        # a bulk change reads it the same way, before it selects anything
        put = http.put(
            "v2/jobs", params={"action": "kill", "jobtype": value, "filter": "status=RUNNING"}
        )
        assert (put.status_code, put.json()["message"]) == (400, message)
        code, out, err = cli_jobs(
            bare.home, "-jobtype", value, "-filter", "status=RUNNING", "-kill", capsys=capsys
        )
        assert (code, err.splitlines()[0]) == (255, f"Error: E0303 : E0303: {message}")


def test_a_bulk_change_by_an_oozie_spelling_acts_on_that_kind(
    bare: Live, http: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-jobtype workflow -kill`` and ``jobtype=WF`` select workflows (none here: told so)."""
    code, out, err = cli_jobs(
        bare.home, "-jobtype", "workflow", "-filter", "status=RUNNING", "-kill", capsys=capsys
    )
    assert (code, out, err) == (0, "bulk modify command did not modify any jobs\n", "")
    put = http.put(
        "v2/jobs", params={"action": "kill", "jobtype": "WF", "filter": "status=RUNNING"}
    )
    assert put.json() == {"workflows": [], "total": 0, "offset": 1, "len": 50}
    put = http.put(
        "v2/jobs", params={"action": "suspend", "jobtype": "xcoordinator", "filter": "name=x"}
    )
    assert put.json() == {"coordinatorjobs": [], "total": 0, "offset": 1, "len": 50}

"""``GET /v2/job/ID?show=log|errorlog`` by the one rule of commands/logs (see
tests/commands/test_logs_uniform.py), from a real server on a real store: a sub-workflow
node's log is its child's nodes', headed ``sub → boom``, in the node's log and in its
workflow's; a log of one section is its bytes alone. The API gave the sub-workflow node's own
files (none: an empty answer), and the parent's log said nothing of why the child failed.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from bundletui.api import serve_in_thread
from tests.commands.test_logs_uniform import (
    PAIR_LOG,
    PARENT_LOG,
    SUB_ERRORLOG,
    SUB_LOG,
    Uniform,
    build,
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Uniform, httpx.Client]]:
    u = build(tmp_path_factory.mktemp("api-logs-uniform"))
    handle = serve_in_thread(u.home, "127.0.0.1", 0, None)
    try:
        with httpx.Client(base_url=handle.url + "/", timeout=30) as client:
            yield u, client
    finally:
        handle.stop()


def log(client: httpx.Client, job_id: str, show: str = "log") -> str:
    r = client.get(f"v2/job/{job_id}", params={"show": show})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return r.text


def test_the_log_of_a_sub_workflow_node_is_its_childs(
    world: tuple[Uniform, httpx.Client],
) -> None:
    u, client = world
    assert log(client, f"{u.parent}@sub") == SUB_LOG
    assert log(client, f"{u.parent}@sub", "errorlog") == SUB_ERRORLOG


def test_the_parents_log_shows_why_its_child_failed(world: tuple[Uniform, httpx.Client]) -> None:
    u, client = world
    assert log(client, u.parent) == PARENT_LOG
    assert log(client, u.parent, "errorlog").endswith(
        "── sub → boom (FAILED, attempt 1)\nboom failed: no input\n"
    )


def test_one_section_is_its_bytes_alone(world: tuple[Uniform, httpx.Client]) -> None:
    u, client = world
    assert log(client, u.pair) == PAIR_LOG
    assert log(client, f"{u.pair}@a") == PAIR_LOG
